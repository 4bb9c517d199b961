/**
 * Foreign errors as the one `AppError` (lib/contracts/errors.ts): zod failures are `invalid_input`,
 * the engine's scope refusal is `scope_not_permitted`, a write the storage refused (read-only, disk
 * full) or a held write lock is `unavailable`, anything else `internal`. Storage faults are also
 * remembered for a minute, so `/api/health` can report them. Below the doors: the database handle
 * uses it as the HTTP edge, the CLI and MCP do (lib/server/http/errors.ts maps the result per audience).
 */
import { z } from "zod";
import { AppError, invalidInput } from "@/lib/contracts/errors";
import { NothingToSearchError, ScopeNotPermittedError } from "@/lib/reflect/errors";
import { processWide } from "./process-wide";

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof z.ZodError) return invalidInput(err);
  if (err instanceof ScopeNotPermittedError)
    return new AppError("scope_not_permitted", err.message, {}, { cause: err });
  if (err instanceof NothingToSearchError) return new AppError("invalid_input", err.message, {}, { cause: err });
  const fault = databaseFault(err);
  if (fault) {
    recordDatabaseFault(fault);
    return new AppError("unavailable", DATABASE_FAULT_MESSAGES[fault], {}, { cause: err });
  }
  if (causes(err).some((e) => (e as { code?: unknown }).code === "SQLITE_BUSY")) {
    return new AppError(
      "unavailable",
      "The database is busy: another process holds its write lock (a long import, say). Try again when it finishes.",
      {},
      { cause: err },
    );
  }
  return new AppError("internal", readableMessage(err), {}, { cause: err });
}

/** A write the database refused for a reason of its storage, not of the request. */
export type DatabaseFault = "read-only" | "disk-full";

/** Said to every audience (no path, no detail): what is wrong and that nothing was changed. */
export const DATABASE_FAULT_MESSAGES: Record<DatabaseFault, string> = {
  "read-only":
    "The database is read-only (its file or file system cannot be written): nothing was changed. Reads still work; make it writable and try again.",
  "disk-full": "The disk is full: nothing was changed. Reads still work; free some space and try again.",
};

export function isDatabaseFault(err: unknown): boolean {
  return databaseFault(err) !== null;
}

function databaseFault(err: unknown): DatabaseFault | null {
  for (const e of causes(err)) {
    const code = String((e as { code?: unknown }).code ?? "");
    const message = e instanceof Error ? e.message : "";
    if (
      code.startsWith("SQLITE_READONLY") ||
      code === "EROFS" ||
      /readonly database|read-only file system/i.test(message)
    )
      return "read-only";
    if (code.startsWith("SQLITE_FULL") || code === "ENOSPC" || /database or disk is full|no space left/i.test(message))
      return "disk-full";
  }
  return null;
}

/** How long a fault seen on a write is reported by `/api/health` after it was last seen. */
const FAULT_REPORT_MS = 60_000;
const faults = processWide("database-faults", () => new Map<DatabaseFault, number>());

export function recordDatabaseFault(fault: DatabaseFault, now = Date.now()): void {
  faults.set(fault, now);
}

/** Faults seen on a write within the last minute (health reports them); a successful probe clears them. */
export function recentDatabaseFaults(now = Date.now()): DatabaseFault[] {
  return [...faults.entries()].filter(([, at]) => now - at <= FAULT_REPORT_MS).map(([f]) => f);
}

export function clearDatabaseFaults(): void {
  faults.clear();
}

/** The error and its causes, outermost first. */
function causes(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e: unknown = err; e && out.length < 8; e = (e as { cause?: unknown }).cause) out.push(e);
  return out;
}

/** The message a person can read: a query wrapper's ("Failed query: insert …\nparams: …") gives way to its cause's. */
function readableMessage(err: unknown): string {
  const readable = causes(err).find((e) => e instanceof Error && !e.message.startsWith("Failed query:"));
  if (readable instanceof Error) return readable.message;
  return err instanceof Error ? err.message.split("\n")[0]! : String(err);
}
