import { endpoints } from "@/lib/server/api/endpoints";
import { handle } from "@/lib/server/api/handle";
import { otherMethods } from "@/lib/server/api/methods";
import { listRunItems } from "@/lib/server/runs";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.listRuns, async ({ db, query }) => Response.json(await listRunItems(db, query)));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
