/**
 * A server action's request body as React encodes it for our actions (plain JSON arguments), checked
 * before Next decodes it: Next answers a malformed one with a 500 (SECURITY.md: bad input is a clean
 * 4xx). Text bodies must be a JSON array whose `$`-strings are only the encodings plain values use;
 * multipart bodies must parse as form data. Anything else is `invalid_input` (400).
 */
import { AppError } from "@/lib/contracts/errors";
import { decodeUtf8 } from "@/lib/contracts/text";

/** `$$x` (a string starting with $), undefined, dates, bigints and the special numbers. */
const PLAIN_VALUE_ENCODING = /^\$(\$|undefined$|D|n-?\d|-0$|NaN$|Infinity$|-Infinity$)/;

function refused(detail: string): AppError<"invalid_input"> {
  return new AppError("invalid_input", `This is not a valid server action request: ${detail}.`);
}

function checkValue(value: unknown): string | null {
  if (typeof value === "string") {
    return value.startsWith("$") && !PLAIN_VALUE_ENCODING.test(value)
      ? `unsupported reference "${value.slice(0, 20)}"`
      : null;
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = checkValue(item);
      if (problem) return problem;
    }
  } else if (value !== null && typeof value === "object") {
    for (const item of Object.values(value)) {
      const problem = checkValue(item);
      if (problem) return problem;
    }
  }
  return null;
}

export function checkActionText(text: string): AppError | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return refused("the body is not JSON");
  }
  if (!Array.isArray(parsed)) return refused("the arguments are not a list");
  try {
    const problem = checkValue(parsed);
    return problem ? refused(problem) : null;
  } catch {
    // A stack overflow: nesting no form of ours produces.
    return refused("the arguments are nested too deeply");
  }
}

/**
 * React's multipart encoding: a field named by a bare number holds one JSON part of the arguments
 * (React's decoder throws a SyntaxError on anything else); `<n>_name` fields are a form's own
 * entries and `$ACTION_…` fields a progressive form's, both plain text.
 */
export function checkActionForm(form: FormData): AppError | null {
  for (const [name, value] of form.entries()) {
    if (!/^\d+$/.test(name) || typeof value !== "string") continue;
    try {
      JSON.parse(value);
    } catch {
      return refused(`form field ${name} is not JSON`);
    }
  }
  return null;
}

/** Reads a copy of the request's body (the proxy's own copy) and checks it; null when it may go on. */
export async function checkActionRequest(request: Request): Promise<AppError | null> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type === "multipart/form-data") {
    let form: FormData;
    try {
      form = await request.formData();
    } catch {
      return refused("the form data does not parse");
    }
    return checkActionForm(form);
  }
  // Any other type (JSON, urlencoded, …) would reach React's decoder as text: check it the same way.
  let text: string;
  try {
    text = decodeUtf8(new Uint8Array(await request.arrayBuffer()), "the server action body");
  } catch (err) {
    return err as AppError;
  }
  return checkActionText(text);
}
