import { endpoints } from "@/lib/server/api/endpoints";
import { handle } from "@/lib/server/api/handle";
import { runDetail } from "@/lib/server/api/runs";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.getRun, async ({ db, params }) => Response.json(await runDetail(db, params.id)));
