import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { importFromHindsightApi } from "@/lib/server/services/hindsight-import";

export const dynamic = "force-dynamic";

export const POST = handle(endpoints.importHindsight, async ({ db, body, request }) =>
  Response.json(await importFromHindsightApi(db, body, process.env, request.signal), { status: 201 }),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
