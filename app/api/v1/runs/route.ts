import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { listRunItems } from "@/lib/server/services/runs";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.listRuns, async ({ db, query }) => Response.json(await listRunItems(db, query)));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
