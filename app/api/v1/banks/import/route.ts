import { importBank, importBankLines, isJsonLinesBody } from "@/lib/server/http/api/banks";
import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";

export const dynamic = "force-dynamic";

/** A JSON bundle: read (holding no slot), then validated and written by the service holding an ingest slot (docs/api.md). */
const importJson = handle(endpoints.importBundle, async ({ db, query, rawBody, request }) =>
  Response.json(await importBank(db, rawBody, query.replace === "true", request.signal), { status: 201 }),
);

/** One bundle document as JSON, or a `.jsonl` bundle as `application/x-ndjson` (docs/api.md). */
export function POST(request: Request, ctx: Parameters<typeof importJson>[1]): Promise<Response> {
  return isJsonLinesBody(request) ? importBankLines(request) : importJson(request, ctx);
}

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
