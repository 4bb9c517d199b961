import { otherMethods } from "@/lib/server/api/methods";
import { getAppDb } from "@/lib/server/db";

export const dynamic = "force-dynamic";

/** Ready once the database is migrated and seeded. */
export async function GET() {
  await getAppDb();
  return Response.json({ ok: true });
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
