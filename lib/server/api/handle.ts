/**
 * Route-handler plumbing for /api/v1: reads and validates params, query and JSON body against the
 * endpoint's schemas; every failure, here or in the handler, is answered by the one HTTP error mapper.
 */
import type { z } from "zod";
import { getBank } from "@/db/banks";
import type { Db } from "@/db/client";
import { AppError, invalidInput } from "@/lib/contracts/errors";
import { getAppDb } from "../db";
import { httpError } from "../errors";
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

async function readBody(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  const tooLarge = () => new AppError("body_too_large", `The request body is larger than ${maxBytes} bytes.`);
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
  if (!text.trim()) throw new AppError("invalid_json", "The request body must be a JSON document.");
  try {
    return JSON.parse(text);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw new AppError("invalid_json", `The request body is not valid JSON: ${detail}`);
  }
}

function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw invalidInput(parsed.error, `Some ${what} are invalid.`);
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
      if (bank !== undefined && !(await getBank(db, bank))) throw new AppError("not_found", `unknown bank "${bank}"`);
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
      return httpError(err);
    }
  };
}
