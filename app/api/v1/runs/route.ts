import { endpoints } from "@/lib/server/api/endpoints";
import { handle } from "@/lib/server/api/handle";
import { listRunItems } from "@/lib/server/runs";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.listRuns, async ({ db, query }) => Response.json(await listRunItems(db, query)));
