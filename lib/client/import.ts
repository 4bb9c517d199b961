/** What the import page sends for a chosen bundle file (docs/curation.md#import-a-bank). */
import { AppError } from "@/lib/contracts/errors";

/** The media type the import route reads a file as: JSON lines for `.jsonl`, one JSON document otherwise. */
export function bundleContentType(fileName: string): string {
  return fileName.trim().toLowerCase().endsWith(".jsonl") ? "application/x-ndjson" : "application/json";
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
