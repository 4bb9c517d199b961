import type { z } from "zod";

export type ActionError = { code: string; message: string; fieldErrors?: Record<string, string[]> };
export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: ActionError };

/** A failure a service raises on purpose; its code and message travel to the client as a value. */
export class ServiceError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly fieldErrors?: Record<string, string[]>,
  ) {
    super(message);
    this.name = "ServiceError";
  }
}

export function fieldErrorsOf(error: z.ZodError): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.join(".") : "_";
    out[key] = [...(out[key] ?? []), issue.message];
  }
  return out;
}

/**
 * Wraps a service as a server action: validates input with zod, returns errors as values
 * (production Next hides thrown messages), never throws to the client.
 */
export function defineAction<S extends z.ZodType, T>(schema: S, run: (input: z.output<S>) => Promise<T>) {
  return async (raw: unknown): Promise<ActionResult<T>> => {
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      return {
        ok: false,
        error: { code: "invalid_input", message: "Some fields are invalid.", fieldErrors: fieldErrorsOf(parsed.error) },
      };
    }
    try {
      return { ok: true, data: await run(parsed.data) };
    } catch (err) {
      if (err instanceof ServiceError) {
        return { ok: false, error: { code: err.code, message: err.message, fieldErrors: err.fieldErrors } };
      }
      console.error(err);
      return { ok: false, error: { code: "internal", message: "Unexpected server error; see the server log." } };
    }
  };
}
