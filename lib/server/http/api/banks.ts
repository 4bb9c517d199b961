/** Banks for the API: list, and bundle import/export, each the one service (lib/server/services/banks.ts). */
import { ImportQuery } from "@/lib/contracts/banks";
import { AppError } from "@/lib/contracts/errors";
import { parseQuery } from "@/lib/contracts/query";
import { assertValidText } from "@/lib/contracts/text";
import { getAppDb } from "../../runtime/db";
import { importStagedLines, readLines } from "../../services/bundle-lines";
import { httpError } from "../errors";
import { BUNDLE_MAX_BYTES } from "./endpoints";

export { bankList, exportBank, importBank } from "../../services/banks";

/** The media type of a JSON-lines bundle body (one record per line, docs/api.md). */
export const JSON_LINES_TYPE = "application/x-ndjson";

export function isJsonLinesBody(request: Request): boolean {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  return type === JSON_LINES_TYPE;
}

/**
 * The body's bytes as they arrive, refused past `maxBytes` (Content-Length first, then counted) and
 * refused when fewer came than Content-Length declared: a body cut short (a dropped upload, the
 * proxy's copy cut at its size) must not import as a bank with its last lines missing.
 */
async function* cappedBody(request: Request, maxBytes: number): AsyncGenerator<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  const tooLarge = () =>
    new AppError(
      "body_too_large",
      `The request body is larger than ${maxBytes.toLocaleString("en-US")} bytes (a bigger bundle: the CLI's import); nothing was imported.`,
    );
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  if (!request.body) return;
  let size = 0;
  const reader = request.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw tooLarge();
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  if (Number.isFinite(declared) && size !== declared)
    throw new AppError(
      "invalid_input",
      `The request body ended after ${size} of its ${declared} bytes; nothing was imported.`,
    );
}

/**
 * `POST /api/v1/banks/import` with `Content-Type: application/x-ndjson`: a `.jsonl` bundle streamed
 * line by line into the same staged import as the CLI's (`importStagedLines`), under the same size
 * limit as a JSON bundle. A bad line, a body cut short or the client going away imports nothing.
 */
export async function importBankLines(request: Request): Promise<Response> {
  try {
    const search = new URL(request.url).searchParams;
    assertValidText(Object.fromEntries(search), "the query");
    const query = parseQuery(search, ImportQuery);
    const db = await getAppDb();
    const lines = readLines(cappedBody(request, BUNDLE_MAX_BYTES), "the request body");
    const result = await importStagedLines(db, lines, {
      replace: query.replace === "true",
      owner: "server",
      signal: request.signal,
    });
    return Response.json(result, { status: 201 });
  } catch (err) {
    return httpError(err);
  }
}
