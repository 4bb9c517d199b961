import { otherMethods } from "@/lib/server/api/methods";
import { getAppDb } from "@/lib/server/db";
import { httpError } from "@/lib/server/errors";

export const dynamic = "force-dynamic";

/** Ready once the database is migrated and seeded; 503 (and a log line saying why) while it cannot be opened. */
export async function GET() {
  try {
    await getAppDb();
    return Response.json({ ok: true });
  } catch (err) {
    return httpError(err);
  }
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
