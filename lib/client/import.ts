/** What the import page sends for a chosen bundle file (docs/curation.md#import-a-bank). */
import { AppError } from "@/lib/contracts/errors";

/** The media type the import route reads a file as: JSON lines for `.jsonl`, one JSON document otherwise. */
export function bundleContentType(fileName: string): string {
  return fileName.trim().toLowerCase().endsWith(".jsonl") ? "application/x-ndjson" : "application/json";
}

/** How much of a file the page reads to tell its format (a JSON-lines header line is far shorter). */
export const SNIFF_BYTES = 64 * 1024;

const parsesAsObject = (text: string) => {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v);
  } catch {
    return false;
  }
};

/**
 * The body type for a file by what its first bytes hold, its name deciding only when they cannot:
 * a `.json` that is JSON lines (a complete object on line 1, more lines after) goes as JSON lines,
 * and a `.jsonl` that is one JSON document (pretty-printed: line 1 is a lone `{`; or one line and
 * nothing after it, read whole) goes as JSON — either would otherwise be refused with a parser's
 * message about a position. `head` is the file's first SNIFF_BYTES decoded; `whole` says it is all of it.
 */
export function bundleContentTypeOf(fileName: string, head: string, whole: boolean): string {
  const text = head.replace(/^\uFEFF/, "");
  const nl = text.indexOf("\n");
  const first = (nl < 0 ? text : text.slice(0, nl)).trim();
  const after = nl < 0 ? "" : text.slice(nl + 1);
  if (first === "{" || first === "[") return "application/json";
  if (nl >= 0 && after.trim() !== "" && parsesAsObject(first)) return "application/x-ndjson";
  if (whole && after.trim() === "" && parsesAsObject(first)) {
    // One object and nothing else: a one-line bundle, unless it is a JSON-lines header alone.
    const keys = Object.keys(JSON.parse(first) as object);
    if (keys.some((k) => k !== "version" && k !== "bank")) return "application/json";
  }
  return bundleContentType(fileName);
}

/**
 * A file the route would refuse by its size alone is refused before it is sent (the server would
 * answer the same 413, but only once the browser had uploaded what the proxy buffers first).
 */
export function checkBundleFile(file: { name: string; size: number }, maxBytes: number): AppError | null {
  if (file.size === 0) return new AppError("invalid_json", `${file.name} is empty; nothing was imported.`);
  if (file.size > maxBytes)
    return new AppError(
      "body_too_large",
      `${file.name} is larger than ${maxBytes.toLocaleString("en-US")} bytes, the import's limit here: import it with \`npm run cli -- import <file>\`; nothing was imported.`,
    );
  return null;
}
