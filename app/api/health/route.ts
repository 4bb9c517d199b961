import { getAppDb } from "@/lib/server/db";
import { eventLoopDelay } from "@/lib/server/event-loop";

export const dynamic = "force-dynamic";

/** Ready once the database is migrated and seeded; also how long the event loop waited lately. */
export async function GET() {
  await getAppDb();
  return Response.json({ ok: true, eventLoopDelay: eventLoopDelay() });
}
