import { otherMethods } from "@/lib/server/http/api/methods";
import { httpError } from "@/lib/server/http/errors";
import { admissionState } from "@/lib/server/runtime/admission";
import { databaseFaults, getAppDb, unindexedMemories } from "@/lib/server/runtime/db";
import { eventLoopDelay } from "@/lib/server/runtime/event-loop";

export const dynamic = "force-dynamic";

/**
 * Ready once the database is migrated and seeded, with how long the event loop waited lately and
 * the recall/reflect admission queues, and whether writes fail lately (a read-only database, a full
 * disk: `ok: false`, still 200, as reads keep working — a database opened read-only says so at once);
 * 503 (and a log line saying why) while the database cannot be opened.
 */
export async function GET() {
  try {
    const db = await getAppDb();
    // A write refused lately because the database is read-only or the disk full, or a database
    // opened read-only (its file or file system cannot be written): reads still work.
    const faults = databaseFaults(db);
    const unindexed = unindexedMemories(db);
    // Never queued behind recall or reflect (lib/server/runtime/admission.ts); says how full their queues are.
    return Response.json({
      ok: faults.length === 0,
      // A read-only file holding memories its indexes lack: searches miss them (docs/operations.md#a-read-only-database).
      database: { writable: faults.length === 0, faults, ...(unindexed > 0 ? { unindexed } : {}) },
      eventLoopDelay: eventLoopDelay(),
      admission: admissionState(),
    });
  } catch (err) {
    return httpError(err);
  }
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
