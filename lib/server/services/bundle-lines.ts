/**
 * A JSON-lines bundle (`.jsonl`) from a byte stream — a file, stdin or an HTTP request body — into
 * `importBundleLines` (bundle-io.ts), the one staged import the CLI and the API both use
 * (docs/cli.md, docs/api.md). Never holds the whole source: a line at a time, a chunk of rows.
 */
import type { Db } from "@/db/client";
import type { ImportResult } from "@/lib/contracts/banks";
import { AppError } from "@/lib/contracts/errors";
import { type OwnerKind, ownerGone, runOwner } from "../runtime/run-owner";
import { importBundleLines, removeAbandonedImports } from "./bundle-io";

/** No record of a bundle comes near this; a longer line is refused rather than held in memory. */
export const MAX_LINE_CHARS = 16 * 1_048_576;

/** Lines between two turns of the event loop (see readLines). */
const LINES_PER_TURN = 1024;

/**
 * The source's lines, decoded as strict UTF-8 chunk by chunk (bytes that are not UTF-8 fail the
 * import); `name` is what errors call the source (a file name, "stdin", "the request body").
 * Every LINES_PER_TURN lines it lets the event loop turn: a request body is already in memory, so
 * its reads resolve at once, and 50 MB of blank lines (50 million lines, minutes of work) would
 * otherwise hold the server's one thread from every other request until the last.
 */
export async function* readLines(source: AsyncIterable<unknown>, name: string): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let rest = "";
  let sinceTurn = 0;
  const decode = (chunk?: Uint8Array) => {
    try {
      return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw new AppError("invalid_text", `${name} is not UTF-8 text; nothing was imported.`);
    }
  };
  for await (const chunk of source) {
    const text = decode(chunk as Uint8Array);
    let start = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
      const line = rest + text.slice(start, nl);
      rest = "";
      start = nl + 1;
      yield line.endsWith("\r") ? line.slice(0, -1) : line;
      if (++sinceTurn >= LINES_PER_TURN) {
        sinceTurn = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    rest += text.slice(start);
    if (rest.length > MAX_LINE_CHARS) {
      throw new AppError(
        "invalid_input",
        `${name}: a line is longer than ${MAX_LINE_CHARS / 1_048_576} Mi characters; nothing was imported.`,
      );
    }
  }
  rest += decode();
  if (rest) yield rest;
}

/**
 * A JSON-lines import, staged in chunks: the staging belongs to this process as a run owner (its
 * heartbeat says it lives), and an earlier import whose process stopped is removed first
 * (docs/operations.md#big-imports). `signal` stops it between two chunks and removes what it staged.
 */
export async function importStagedLines(
  db: Db,
  lines: AsyncIterable<string>,
  options: { replace: boolean; owner: OwnerKind; signal?: AbortSignal },
): Promise<ImportResult> {
  const ownerId = await runOwner(db, options.owner);
  await removeAbandonedImports(db, (owner) => ownerGone(db, owner));
  return importBundleLines(db, lines, { replace: options.replace, ownerId, signal: options.signal });
}
