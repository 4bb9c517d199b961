import type { z } from "zod";
import { fieldErrorsOf } from "./action";

/** JSON error body shared by every route handler: `{error: {code, message, fieldErrors?}}`. */
export function jsonError(status: number, code: string, message: string, fieldErrors?: Record<string, string[]>) {
  return Response.json({ error: { code, message, ...(fieldErrors ? { fieldErrors } : {}) } }, { status });
}

export function invalidInput(error: z.ZodError) {
  return jsonError(400, "invalid_input", "Some parameters are invalid.", fieldErrorsOf(error));
}

export function searchParamsObject(url: string): Record<string, string> {
  return Object.fromEntries(new URL(url).searchParams);
}
