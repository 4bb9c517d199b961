/**
 * Route-handler plumbing for /api/v1: reads and validates params, query and JSON body against the
 * endpoint's schemas and turns every failure into the API's JSON error with the right status.
 */
import { z } from "zod";
import { getBank } from "@/db/banks";
import { BundleError, formatPath } from "@/db/bundle-io";
import type { Db } from "@/db/client";
import { ConflictError, NotFoundError } from "@/db/errors";
import { ScopeNotPermittedError } from "@/lib/reflect/errors";
import { ServiceError } from "../action";
import { getAppDb } from "../db";
import type { Endpoint } from "./endpoint";

export const DEFAULT_MAX_BODY_BYTES = 1_000_000;

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface HandlerInput<E extends Endpoint> {
  db: Db;
  params: Out<E["params"]>;
  query: Out<E["query"]>;
  body: Out<E["body"]>;
  /** The body as parsed JSON before validation (bundle import re-validates it with bundle paths). */
  rawBody: unknown;
  request: Request;
}

type RouteContext = { params?: Promise<Record<string, string | string[]> | undefined> };

export function apiError(
  status: number,
  code: string,
  message: string,
  extra: { fieldErrors?: Record<string, string[]>; current?: unknown } = {},
): Response {
  return Response.json({ error: { code, message, ...extra } }, { status });
}

/** Messages keyed by JSON path (`facts[0].text`), the same form bundle import uses. */
export function fieldErrorsByPath(issues: readonly z.core.$ZodIssue[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of issues) {
    const key = formatPath(issue.path) || "_";
    out[key] = [...(out[key] ?? []), issue.message];
  }
  return out;
}

const SERVICE_STATUS: Record<string, number> = {
  not_found: 404,
  conflict: 409,
  scope_not_permitted: 403,
  invalid_input: 400,
};

/** Maps a thrown error to its API response; unknown errors are logged and answered with 500. */
export function errorResponse(err: unknown): Response {
  if (err instanceof HttpError) return err.response;
  if (err instanceof ConflictError) return apiError(409, "conflict", err.message, { current: err.current });
  if (err instanceof NotFoundError) return apiError(404, "not_found", err.message);
  if (err instanceof ScopeNotPermittedError) return apiError(403, "scope_not_permitted", err.message);
  if (err instanceof BundleError) {
    const fieldErrors: Record<string, string[]> = {};
    for (const issue of err.issues) {
      const key = issue.path || "_";
      fieldErrors[key] = [...(fieldErrors[key] ?? []), issue.message];
    }
    return apiError(400, "invalid_bundle", "The bundle is invalid; nothing was imported.", { fieldErrors });
  }
  if (err instanceof z.ZodError) {
    return apiError(400, "invalid_input", "Some fields are invalid.", { fieldErrors: fieldErrorsByPath(err.issues) });
  }
  if (err instanceof ServiceError) {
    return apiError(SERVICE_STATUS[err.code] ?? 400, err.code, err.message, { fieldErrors: err.fieldErrors });
  }
  console.error(err);
  return apiError(500, "internal", "Unexpected server error; see the server log.");
}

/** A response decided deep inside a handler (thrown so helpers can stop the handler early). */
export class HttpError extends Error {
  constructor(readonly response: Response) {
    super(`HTTP ${response.status}`);
  }
}

async function readBody(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  const tooLarge = () =>
    new HttpError(apiError(413, "body_too_large", `The request body is larger than ${maxBytes} bytes.`));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  // Read with a running cap: a chunked body without Content-Length must not fill memory either.
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  if (!text.trim()) throw new HttpError(apiError(400, "invalid_json", "The request body must be a JSON document."));
  try {
    return JSON.parse(text);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw new HttpError(apiError(400, "invalid_json", `The request body is not valid JSON: ${detail}`));
  }
}

function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new HttpError(
    apiError(400, "invalid_input", `Some ${what} are invalid.`, {
      fieldErrors: fieldErrorsByPath(parsed.error.issues),
    }),
  );
}

/**
 * Builds a Next route handler for the endpoint. Every endpoint with a `{bank}` path parameter
 * answers 404 for an unknown bank before the handler runs.
 */
export function handle<E extends Endpoint>(endpoint: E, run: (input: HandlerInput<E>) => Promise<Response>) {
  return async (request: Request, ctx: RouteContext): Promise<Response> => {
    try {
      // Next passes no params at all for routes without dynamic segments.
      const rawParams = (await ctx?.params) ?? {};
      const params = endpoint.params ? parseOrThrow(endpoint.params, rawParams, "path parameters") : undefined;
      const db = await getAppDb();
      const bank = typeof rawParams.bank === "string" ? rawParams.bank : undefined;
      if (bank !== undefined && !(await getBank(db, bank))) {
        return apiError(404, "not_found", `unknown bank "${bank}"`);
      }
      const query = endpoint.query
        ? parseOrThrow(endpoint.query, Object.fromEntries(new URL(request.url).searchParams), "query parameters")
        : undefined;
      let rawBody: unknown;
      let body: unknown;
      if (endpoint.body) {
        rawBody = await readBody(request, endpoint.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
        body = parseOrThrow(endpoint.body, rawBody, "fields");
      }
      return await run({ db, params, query, body, rawBody, request } as HandlerInput<E>);
    } catch (err) {
      return errorResponse(err);
    }
  };
}
