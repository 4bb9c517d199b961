import { otherMethods } from "@/lib/server/api/methods";
import { getAppDb } from "@/lib/server/db";
import { httpError } from "@/lib/server/errors";
import { eventLoopDelay } from "@/lib/server/event-loop";

export const dynamic = "force-dynamic";

/**
 * Ready once the database is migrated and seeded, with how long the event loop waited lately;
 * 503 (and a log line saying why) while the database cannot be opened.
 */
export async function GET() {
  try {
    await getAppDb();
    return Response.json({ ok: true, eventLoopDelay: eventLoopDelay() });
  } catch (err) {
    return httpError(err);
  }
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
