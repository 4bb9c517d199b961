import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { pruneRunsNow } from "@/lib/server/services/retention";

export const dynamic = "force-dynamic";

export const POST = handle(endpoints.pruneRuns, async ({ db, body }) => Response.json(await pruneRunsNow(db, body)));

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
