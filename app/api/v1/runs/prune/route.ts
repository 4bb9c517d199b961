import { endpoints } from "@/lib/server/api/endpoints";
import { handle } from "@/lib/server/api/handle";
import { otherMethods } from "@/lib/server/api/methods";
import { pruneRunsNow } from "@/lib/server/retention";

export const dynamic = "force-dynamic";

export const POST = handle(endpoints.pruneRuns, async ({ db, body }) => Response.json(await pruneRunsNow(db, body)));

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
