/**
 * The one error (`AppError`, lib/contracts/errors.ts) as each audience needs it: an HTTP response,
 * a server-action result, a CLI line with its exit code, an MCP tool result. Foreign errors are
 * translated first (runtime/errors.ts `toAppError`); an `internal` one is logged and remote
 * audiences see a pointer to the log.
 */
import { type ActionResult, type AppError, type ErrorBody, type ErrorCode, errorBody } from "@/lib/contracts/errors";
import { TOO_BUSY_RETRY_AFTER_SECONDS } from "../runtime/admission";
import { DATABASE_FAULT_MESSAGES, toAppError } from "../runtime/errors";

/** Retry-After on a refused live stream. */
const RETRY_STREAM_SECONDS = 5;
const INTERNAL_MESSAGE = "Unexpected server error; see the server log.";
/** The log line names the database path and the cause; a remote client learns only that it is down. */
const UNAVAILABLE_MESSAGE = "The database cannot be opened; the server log says why.";
/** Opening needs to write (migrations, the WAL index): a read-only database is said as such. */
const READ_ONLY_OPEN_MESSAGE =
  "The database cannot be opened: it is read-only (its file or file system cannot be written). Make it writable and restart; the server log names the file.";

export const HTTP_STATUS: Record<ErrorCode, number> = {
  invalid_input: 400,
  invalid_json: 400,
  invalid_bundle: 400,
  invalid_text: 400,
  unauthorized: 401,
  forbidden_host: 403,
  forbidden_origin: 403,
  scope_not_permitted: 403,
  not_found: 404,
  conflict: 409,
  body_too_large: 413,
  unsupported_media_type: 415,
  too_many_requests: 429,
  method_not_allowed: 405,
  too_many_streams: 503,
  too_busy: 503,
  unavailable: 503,
  upstream_failed: 502,
  internal: 500,
};

/** The body for remote audiences: an internal error is logged here and its details stay on the server. */
function remoteBody(err: unknown): ErrorBody {
  const app = toAppError(err);
  if (app.code === "unavailable") {
    console.error(`error: ${app.message}`);
    // A storage fault's message names no path: the client is told what is wrong.
    const said = Object.values(DATABASE_FAULT_MESSAGES).includes(app.message)
      ? app.message
      : /file system is read-only|not readable and writable/.test(app.message)
        ? READ_ONLY_OPEN_MESSAGE
        : UNAVAILABLE_MESSAGE;
    return { code: "unavailable", message: said };
  }
  if (app.code !== "internal") return errorBody(app);
  console.error(app.cause ?? app);
  return { code: "internal", message: INTERNAL_MESSAGE };
}

/** `{error: {code, message, fieldErrors?, current?}}` with the code's status. */
export function httpError(err: unknown, init: { headers?: HeadersInit } = {}): Response {
  const body = remoteBody(err);
  const headers = new Headers(init.headers);
  // A full server says when to come back; an EventSource or a retry loop waits that long.
  if (body.code === "too_many_streams") headers.set("retry-after", String(RETRY_STREAM_SECONDS));
  if (body.code === "too_busy") headers.set("retry-after", String(TOO_BUSY_RETRY_AFTER_SECONDS));
  return Response.json({ error: body }, { status: HTTP_STATUS[body.code as ErrorCode] ?? 500, headers });
}

export function actionError(err: unknown): Extract<ActionResult<never>, { ok: false }> {
  return { ok: false, error: remoteBody(err) };
}

/**
 * The error as one line a person reads (CLI, MCP text): the message, then the first bad field and
 * its message when the input was refused, never a raw validation dump.
 */
export function oneLine(app: AppError): string {
  const entries = Object.entries(app.details.fieldErrors ?? {});
  const [path, messages] = entries[0] ?? [];
  const first = messages?.[0];
  let line = app.message;
  if (path && first && app.code !== "invalid_bundle" && !app.message.includes(first)) {
    line = `${line.replace(/\.$/, ":")} ${path === "_" ? "" : `${path}: `}${first}`;
    const more = entries.reduce((n, [, m]) => n + m.length, 0) - 1;
    if (more > 0) line += ` (and ${more} more)`;
  }
  return line.replace(/\s*\n\s*/g, " ");
}

/**
 * One line on stderr (a bundle's further issues follow, indented). The CLI runs on the user's
 * machine, so an internal error shows its own message. Exit 2: the input was refused; 1: it broke.
 */
export function cliError(err: unknown): { lines: string[]; exitCode: 1 | 2 } {
  const app = toAppError(err);
  const lines = [`error: ${oneLine(app)}`];
  if (app.code === "invalid_bundle") {
    const issues = Object.entries(app.details.fieldErrors ?? {}).flatMap(([path, messages]) =>
      messages.map((m) => `  ${path}: ${m}`),
    );
    if (issues.length > 1) lines.push(...issues.slice(0, 20));
  }
  return { lines, exitCode: app.code === "internal" ? 1 : 2 };
}

/** A tool error the agent reads: `isError` with the message (an internal one keeps it too, as the SDK would). */
export function mcpError(err: unknown): { content: { type: "text"; text: string }[]; isError: true } {
  const app = toAppError(err);
  if (app.code === "internal") console.error(app.cause ?? app);
  return { content: [{ type: "text", text: oneLine(app) }], isError: true };
}
