import { endpoints } from "@/lib/server/api/endpoints";
import { handle } from "@/lib/server/api/handle";
import { listRunsPage } from "@/lib/server/api/runs";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.listRuns, async ({ db, query }) => Response.json(await listRunsPage(db, query)));
