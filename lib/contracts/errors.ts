/**
 * The app's one error: a typed code, a message a person can act on, and details by code (a
 * conflict carries the record as it is now; bad input carries messages keyed by field path).
 * Queries, services and the CLI throw it; lib/server/http/errors.ts maps it to an HTTP response, an
 * action result, a CLI line and an MCP tool result. On the client `unwrap` throws it again, so
 * components test `isAppError(error, "conflict")`, never a message.
 */
import { z } from "zod";

export const ERROR_CODES = [
  /** A field, parameter or argument is wrong; `fieldErrors` names which. */
  "invalid_input",
  /** The request body is not a JSON document. */
  "invalid_json",
  /** A bank bundle failed validation; `fieldErrors` is keyed by bundle path. Nothing was imported. */
  "invalid_bundle",
  "not_found",
  /** Optimistic concurrency: the record moved on. `current` is the record now (null when deleted). */
  "conflict",
  /** A team scope the bank does not permit. */
  "scope_not_permitted",
  /** Text that is not valid text: invalid UTF-8, a NUL character or a lone surrogate. */
  "invalid_text",
  /** The server needs INSPECTOR_TOKEN and the request does not carry it. */
  "unauthorized",
  /** The Host header names neither loopback nor INSPECTOR_PUBLIC_URL's host (DNS rebinding). */
  "forbidden_host",
  /** A write from another origin (a web page on another site or port): refused. */
  "forbidden_origin",
  /** A write to the API without `Content-Type: application/json`. */
  "unsupported_media_type",
  "body_too_large",
  /** Too many wrong tokens from this client: wait `Retry-After` seconds. */
  "too_many_requests",
  /** The path exists but not with this HTTP method; the response's `Allow` header lists those it has. */
  "method_not_allowed",
  /** This server already serves as many live streams as it allows; retry after a few seconds. */
  "too_many_streams",
  /** This server already runs as many recall (or reflect) requests as it allows, with a full queue; retry after `Retry-After` seconds. */
  "too_busy",
  /** The database cannot be opened (a bad DATABASE_URL, an unwritable path, an unreachable server). */
  "unavailable",
  /** A remote server this request reads from (a Hindsight import) failed, refused or answered something malformed. */
  "upstream_failed",
  /** Anything unexpected: logged in full, shown as a pointer to the log where the audience is remote. */
  "internal",
] as const;
export const ErrorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** Messages keyed by the JSON path of the bad value, e.g. `facts[0].text`; `_` for the whole value. */
export type FieldErrors = Record<string, string[]>;

/** A conflict's `current` is the record as it is now (null: deleted meanwhile). */
export type AppErrorDetails<C extends ErrorCode> = C extends "conflict"
  ? { current?: unknown; fieldErrors?: FieldErrors }
  : C extends "invalid_bundle"
    ? { fieldErrors: FieldErrors }
    : { fieldErrors?: FieldErrors };

type DetailsArgs<C extends ErrorCode> = C extends "invalid_bundle"
  ? [details: AppErrorDetails<C>, options?: ErrorOptions]
  : [details?: AppErrorDetails<C>, options?: ErrorOptions];

export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly details: AppErrorDetails<C>;

  constructor(code: C, message: string, ...[details, options]: DetailsArgs<C>) {
    super(message, options);
    this.name = "AppError";
    this.code = code;
    this.details = (details ?? {}) as AppErrorDetails<C>;
  }

  /** Rebuilds the error from its wire form (an action result or an API error body). */
  static fromBody(body: ErrorBody): AppError {
    const code = ErrorCode.safeParse(body.code).data ?? "internal";
    const fieldErrors = body.fieldErrors ? { fieldErrors: body.fieldErrors } : {};
    if (code === "conflict" && "current" in body)
      return new AppError(code, body.message, { current: body.current, ...fieldErrors });
    if (code === "invalid_bundle") return new AppError(code, body.message, { fieldErrors: body.fieldErrors ?? {} });
    return new AppError(code, body.message, fieldErrors);
  }
}

export function isAppError<C extends ErrorCode>(err: unknown, code?: C): err is AppError<C> {
  return err instanceof AppError && (code === undefined || err.code === code);
}

/**
 * A conflict's newer record, checked against its contract before an editor shows it: null when it
 * was deleted meanwhile, undefined when the conflict carried none (or not that kind of record).
 */
export function conflictCurrent<T>(err: AppError<"conflict">, schema: z.ZodType<T>): T | null | undefined {
  const { current } = err.details;
  if (current === undefined || current === null) return current;
  return schema.safeParse(current).data;
}

/** The error as it travels: the API's `{error: …}` and an action's `{ok: false, error: …}` hold the same object. */
export const ErrorBody = z.object({
  code: z.string().meta({ description: `machine-readable: ${ERROR_CODES.join(", ")}` }),
  message: z.string(),
  fieldErrors: z
    .record(z.string(), z.array(z.string()))
    .optional()
    .meta({ description: "messages keyed by the JSON path of the bad value, e.g. `facts[0].text`" }),
  current: z.unknown().optional().meta({ description: "on 409: the record as it is now (null if deleted)" }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const ApiErrorBody = z.object({ error: ErrorBody });

export function errorBody(err: AppError): ErrorBody {
  const { fieldErrors } = err.details;
  return {
    code: err.code,
    message: err.message,
    ...(fieldErrors ? { fieldErrors } : {}),
    ...("current" in err.details ? { current: err.details.current } : {}),
  };
}

/** What every server action returns: production Next hides thrown messages, so errors travel as values. */
export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: ErrorBody };

/** `facts[3].scope`: the path form used by bundle import, the API and the forms alike. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.map((key, i) => (typeof key === "number" ? `[${key}]` : `${i === 0 ? "" : "."}${String(key)}`)).join("");
}

/**
 * Messages by path; given the input that was refused, each message quotes the value it refused
 * (cut short), so "facts[3].scope" says what it found there.
 */
export function fieldErrorsOf(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
  input?: unknown,
): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of issues) {
    const key = formatPath(issue.path) || "_";
    const message = input === undefined ? issue.message : `${issue.message}${gotValue(input, issue.path)}`;
    out[key] = [...(out[key] ?? []), message];
  }
  return out;
}

const GOT_CHARS = 60;

/**
 * Fields whose value is a secret (the Hindsight form's `apiKey`, a sign-in `token`): a refused value is
 * never quoted back, not even cut short — an error is shown, logged and kept in the page's state.
 */
const SECRET_FIELD = /(api_?key|token|password|secret)$/i;

/** ` (got "x")`: the value at a path of the input, as JSON cut to a few dozen characters; "" at the root. */
export function gotValue(input: unknown, path: readonly PropertyKey[]): string {
  if (path.length === 0) return "";
  if (path.some((key) => typeof key === "string" && SECRET_FIELD.test(key))) return " (a secret: not shown)";
  let v: unknown = input;
  for (const key of path) {
    if (v === null || typeof v !== "object") return "";
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  if (v === undefined) return " (missing)";
  const text = jsonPrefix(v, GOT_CHARS);
  return ` (got ${text.length > GOT_CHARS ? `${text.slice(0, GOT_CHARS)}…` : text})`;
}

/**
 * `JSON.stringify(v)`, but only its first `max` characters and a little more: it stops once that many
 * are written, so a value a million levels deep (JSON.stringify would overflow the stack) or of
 * millions of items is quoted at the cost of its first few dozen characters.
 */
function jsonPrefix(v: unknown, max: number): string {
  let out = "";
  const full = (piece: string) => {
    out += piece;
    return out.length > max;
  };
  const walk = (x: unknown, inArray: boolean): boolean => {
    if (x === null || typeof x !== "object") {
      if (typeof x === "string") return full(JSON.stringify(x.length > max ? x.slice(0, max + 1) : x));
      if (typeof x === "bigint") return full(String(x));
      return full(JSON.stringify(x) ?? (inArray ? "null" : String(x)));
    }
    if (Array.isArray(x)) {
      if (full("[")) return true;
      for (let i = 0; i < x.length; i++) {
        if ((i > 0 && full(",")) || walk(x[i], true)) return true;
      }
      return full("]");
    }
    if (full("{")) return true;
    let first = true;
    for (const [key, item] of Object.entries(x)) {
      if (item === undefined || typeof item === "function") continue;
      if ((!first && full(",")) || full(`${JSON.stringify(key)}:`) || walk(item, false)) return true;
      first = false;
    }
    return full("}");
  };
  walk(v, false);
  return out;
}

/** A zod failure as the one error: `invalid_input` with every message by path (quoting the values refused). */
export function invalidInput(
  error: z.ZodError,
  message = "Some fields are invalid.",
  input?: unknown,
): AppError<"invalid_input"> {
  return new AppError("invalid_input", message, { fieldErrors: fieldErrorsOf(error.issues, input) });
}
