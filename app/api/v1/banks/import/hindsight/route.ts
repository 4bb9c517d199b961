import { endpoints } from "@/lib/server/api/endpoints";
import { handle } from "@/lib/server/api/handle";
import { otherMethods } from "@/lib/server/api/methods";
import { importFromHindsightApi } from "@/lib/server/hindsight-import";

export const dynamic = "force-dynamic";

export const POST = handle(endpoints.importHindsight, async ({ db, body }) =>
  Response.json(await importFromHindsightApi(db, body), { status: 201 }),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
