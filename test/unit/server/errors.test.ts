/**
 * The one error and its four mappers: every code has one HTTP status and body, one action result,
 * one CLI line with its exit code and one MCP tool error; foreign errors are translated first and
 * an internal error never leaks its details to a remote audience.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  AppError,
  conflictCurrent,
  ERROR_CODES,
  type ErrorCode,
  errorBody,
  invalidInput,
  isAppError,
} from "@/lib/contracts/errors";
import { ScopeNotPermittedError } from "@/lib/reflect/errors";
import { actionError, cliError, HTTP_STATUS, httpError, mcpError } from "@/lib/server/http/errors";
import { toAppError } from "@/lib/server/runtime/errors";

const quietLog = () => vi.spyOn(console, "error").mockImplementation(() => {});
afterEach(() => vi.restoreAllMocks());

/** One error of each code, as the code base raises them. */
function sample(code: ErrorCode): AppError {
  switch (code) {
    case "invalid_input":
      return new AppError(code, "Some fields are invalid.", { fieldErrors: { question: ["ask a question"] } });
    case "invalid_bundle":
      return new AppError(code, "invalid bundle, nothing was imported: facts[3].scope: bad scope (and 1 more)", {
        fieldErrors: { "facts[3].scope": ["bad scope"], "bank.id": ["must be a slug"] },
      });
    case "conflict":
      return new AppError(code, "skill s1 is at version 3, not 2", { current: { id: "s1", version: 3 } });
    default:
      return new AppError(code, `a ${code} error`);
  }
}

const EXPECTED_STATUS: Record<ErrorCode, number> = {
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

/** Codes whose remote body is their own message (internal and unavailable stay in the server log). */
const REMOTE_AS_IS = ERROR_CODES.filter((c) => c !== "internal" && c !== "unavailable");

describe("HTTP", () => {
  it.each(REMOTE_AS_IS)("%s → its status and {error: {code, message, …}}", async (code) => {
    const err = sample(code);
    const res = httpError(err);
    expect(res.status).toBe(EXPECTED_STATUS[code]);
    expect(HTTP_STATUS[code]).toBe(EXPECTED_STATUS[code]);
    expect(await res.json()).toEqual({ error: errorBody(err) });
  });

  it("a conflict carries the current record; bad input carries its field errors; others carry neither", async () => {
    expect((await httpError(sample("conflict")).json()).error.current).toEqual({ id: "s1", version: 3 });
    expect((await httpError(sample("invalid_input")).json()).error.fieldErrors).toEqual({
      question: ["ask a question"],
    });
    expect((await httpError(sample("not_found")).json()).error).toEqual({
      code: "not_found",
      message: "a not_found error",
    });
  });

  it("keeps extra headers (the 401 names its auth scheme)", () => {
    const res = httpError(sample("unauthorized"), { headers: { "www-authenticate": "Bearer" } });
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
  });

  it("a refused live stream says when to retry", () => {
    const res = httpError(sample("too_many_streams"));
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
  });

  it("a server too busy for one more recall or reflect says when to retry", () => {
    const res = httpError(sample("too_busy"));
    expect(res.status).toBe(503);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("an unopenable database is a logged 503 whose body does not name the path", async () => {
    const log = quietLog();
    const res = httpError(new AppError("unavailable", "cannot open the database /srv/secret/db: it is a directory"));
    expect(res.status).toBe(503);
    expect((await res.json()).error).toEqual({
      code: "unavailable",
      message: "The database cannot be opened; the server log says why.",
    });
    expect(String(log.mock.calls[0]![0])).toBe("error: cannot open the database /srv/secret/db: it is a directory");
  });

  it("an unexpected error is a logged 500 that does not leak its message", async () => {
    const log = quietLog();
    const res = httpError(new Error("SQLITE_BUSY at /srv/secret/path.db"));
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body.error).toEqual({ code: "internal", message: "Unexpected server error; see the server log." });
    expect(log).toHaveBeenCalledOnce();
  });
});

describe("action results", () => {
  it.each(REMOTE_AS_IS)("%s → {ok: false, error} with the same body", (code) => {
    const err = sample(code);
    expect(actionError(err)).toEqual({ ok: false, error: errorBody(err) });
  });

  it("round-trips through the wire back into the same AppError on the client", () => {
    for (const code of REMOTE_AS_IS) {
      const err = sample(code);
      const back = AppError.fromBody(actionError(err).error);
      expect(back).toBeInstanceOf(AppError);
      expect({ code: back.code, message: back.message, details: back.details }).toEqual({
        code: err.code,
        message: err.message,
        details: err.details,
      });
    }
  });

  it("an unknown code from a newer server reads as internal", () => {
    expect(AppError.fromBody({ code: "teapot", message: "short and stout" }).code).toBe("internal");
  });

  it("an unexpected error is logged and reported without its message", () => {
    quietLog();
    expect(actionError(new TypeError("x is undefined"))).toEqual({
      ok: false,
      error: { code: "internal", message: "Unexpected server error; see the server log." },
    });
  });
});

/** A person's one line: the message, then the first bad field when the input was refused. */
const LINE: Partial<Record<ErrorCode, string>> = {
  invalid_input: "Some fields are invalid: question: ask a question",
};

describe("CLI", () => {
  it.each(ERROR_CODES.filter((c) => c !== "internal" && c !== "invalid_bundle"))(
    "%s → one `error:` line, exit 2 (the input was refused)",
    (code) => {
      const err = sample(code);
      expect(cliError(err)).toEqual({ lines: [`error: ${LINE[code] ?? err.message}`], exitCode: 2 });
    },
  );

  it("names the first bad field of a zod failure and how many more there are, never a dump", () => {
    const parsed = z.object({ a: z.string(), b: z.number(), c: z.boolean() }).safeParse({});
    const { lines } = cliError(parsed.error);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: Some fields are invalid: a: .+ \(and 2 more\)$/);
  });

  it("an invalid bundle names its first issue, then lists every issue indented", () => {
    expect(cliError(sample("invalid_bundle"))).toEqual({
      lines: [
        "error: invalid bundle, nothing was imported: facts[3].scope: bad scope (and 1 more)",
        "  facts[3].scope: bad scope",
        "  bank.id: must be a slug",
      ],
      exitCode: 2,
    });
  });

  it("an unexpected error keeps its message on the user's own terminal and exits 1", () => {
    expect(cliError(new Error("disk full"))).toEqual({ lines: ["error: disk full"], exitCode: 1 });
  });
});

describe("MCP", () => {
  it.each(ERROR_CODES.filter((c) => c !== "internal"))("%s → an isError tool result with the message", (code) => {
    const err = sample(code);
    expect(mcpError(err)).toEqual({ content: [{ type: "text", text: LINE[code] ?? err.message }], isError: true });
  });

  it("an unexpected error is logged and its message reaches the agent, as the SDK itself would", () => {
    const log = quietLog();
    expect(mcpError(new Error("model unreachable"))).toEqual({
      content: [{ type: "text", text: "model unreachable" }],
      isError: true,
    });
    expect(log).toHaveBeenCalledOnce();
  });
});

describe("translation of foreign errors", () => {
  it("a zod failure is invalid_input with messages by JSON path", () => {
    const parsed = z.object({ facts: z.array(z.object({ text: z.string().min(1, "empty") })) }).safeParse({
      facts: [{ text: "ok" }, { text: "" }],
    });
    const err = toAppError(parsed.error);
    expect(err.code).toBe("invalid_input");
    expect(err.details.fieldErrors).toEqual({ "facts[1].text": ["empty"] });
  });

  it("the engine's scope refusal is scope_not_permitted (403), named as such", () => {
    const err = toAppError(new ScopeNotPermittedError("team:ops", "demo"));
    expect(err.code).toBe("scope_not_permitted");
    expect(httpError(err).status).toBe(403);
    expect(err.message).toBe("scope team:ops is not permitted for bank demo");
  });

  it("anything else is internal and keeps the original as its cause", () => {
    const original = new RangeError("boom");
    const err = toAppError(original);
    expect(err.code).toBe("internal");
    expect(err.cause).toBe(original);
    expect(toAppError(err)).toBe(err);
  });

  it("a query the database refused as busy is `unavailable`, said in words; a query wrapper's SQL is never the message", () => {
    const busy = Object.assign(new Error("SQLITE_BUSY: database is locked"), { code: "SQLITE_BUSY" });
    const wrapped = new Error('Failed query: insert into "process_instances" ("id") values (?)\nparams: inst_1', {
      cause: busy,
    });
    const err = toAppError(wrapped);
    expect(err.code).toBe("unavailable");
    expect(err.message).toMatch(/^The database is busy/);
    expect(cliError(wrapped).lines).toEqual([expect.not.stringContaining("insert into")]);

    const other = new Error("Failed query: select 1\nparams: ", { cause: new Error("no such table: runs") });
    expect(toAppError(other)).toMatchObject({ code: "internal", message: "no such table: runs" });
  });
});

describe("AppError", () => {
  it("is recognised by code, never by message", () => {
    const err = new AppError("not_found", "conflict");
    expect(isAppError(err)).toBe(true);
    expect(isAppError(err, "not_found")).toBe(true);
    expect(isAppError(err, "conflict")).toBe(false);
    expect(isAppError(new Error("not_found"))).toBe(false);
  });

  it("hands an editor the conflict's record only when it fits the contract", () => {
    const Versioned = z.object({ id: z.string(), version: z.number() });
    expect(conflictCurrent(sample("conflict") as AppError<"conflict">, Versioned)).toEqual({ id: "s1", version: 3 });
    expect(conflictCurrent(new AppError("conflict", "deleted", { current: null }), Versioned)).toBeNull();
    expect(conflictCurrent(new AppError("conflict", "still running"), Versioned)).toBeUndefined();
    expect(conflictCurrent(new AppError("conflict", "odd", { current: { id: 1 } }), Versioned)).toBeUndefined();
  });
});

describe("quoting refused values", () => {
  it("quotes a refused value, but never a secret's (apiKey, token, password, secret), however it is refused", () => {
    const schema = z.object({
      name: z.string().max(3),
      apiKey: z.string().max(3),
      auth: z.object({ token: z.string() }),
    });
    const input = { name: "toolong", apiKey: "sk-hunter2", auth: { token: ["hunter3"] } };
    const parsed = schema.safeParse(input);
    expect(parsed.success).toBe(false);
    const fields = invalidInput(parsed.error!, "bad", input).details.fieldErrors ?? {};
    expect(fields.name?.[0]).toContain('(got "toolong")');
    expect(JSON.stringify(fields)).not.toMatch(/hunter/);
    expect(fields.apiKey?.[0]).toContain("a secret: not shown");
    expect(Object.keys(fields).some((k) => k.includes("token"))).toBe(true);
  });
});
