import type { z } from "zod";
import { type ActionResult, AppError, fieldErrorsOf, invalidInput } from "@/lib/contracts/errors";
import { assertValidText } from "@/lib/contracts/text";
import { unknownFieldIssues } from "@/lib/contracts/unknown-keys";
import { actionError } from "./errors";

/**
 * Wraps a service as a server action: the one validation of the input against its contract (unknown
 * fields refused by name at any depth), then
 * the service; every failure comes back as a value (production Next hides thrown messages). The
 * action takes the schema's input type, so the form that calls it is checked against the contract.
 */
export function defineAction<S extends z.ZodType, T>(schema: S, run: (input: z.output<S>) => Promise<T>) {
  return async (raw: z.input<S>): Promise<ActionResult<T>> => {
    try {
      assertValidText(raw);
    } catch (err) {
      return actionError(err);
    }
    // A field the contract does not know is refused by name, never dropped (whether or not it is strict).
    const unknown = unknownFieldIssues(schema, raw);
    if (unknown.length > 0) {
      return actionError(
        new AppError("invalid_input", "Some fields are unknown.", { fieldErrors: fieldErrorsOf(unknown) }),
      );
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) return actionError(invalidInput(parsed.error));
    try {
      return { ok: true, data: await run(parsed.data) };
    } catch (err) {
      return actionError(err);
    }
  };
}
