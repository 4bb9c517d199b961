import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { runDetail } from "@/lib/server/http/api/runs";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.getRun, async ({ db, params }) => Response.json(await runDetail(db, params.id)));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
