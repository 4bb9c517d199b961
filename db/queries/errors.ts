/**
 * A write refused by a UNIQUE or PRIMARY KEY constraint: how a concurrent save of the same version
 * loses. libSQL puts the SQLite result code on the error (a batch) or on its cause (a single
 * statement through drizzle); the code is matched, never the message.
 */
export function isConstraintViolation(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e && typeof e === "object"; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("SQLITE_CONSTRAINT")) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
