/**
 * Route-handler plumbing for /api/v1: reads and validates params, query and JSON body against the
 * endpoint's schemas; every failure, here or in the handler, is answered by the one HTTP error mapper.
 */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { AppError, invalidInput } from "@/lib/contracts/errors";
import { parseQuery } from "@/lib/contracts/query";
import { assertValidText, decodeUtf8 } from "@/lib/contracts/text";
import { refuseIfFull } from "../../runtime/admission";
import { getAppDb } from "../../runtime/db";
import { type Bank, requireBank } from "../../services/banks";
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
  /** The bank the path's `{bank}` names, read once here (handlers do not read it again). */
  bank?: Bank;
}

type RouteContext = { params?: Promise<Record<string, string | string[]> | undefined> };

/**
 * Reads the body once into one buffer (sized from Content-Length when declared, so a 50 MB bundle
 * is not held as chunks and a concatenated copy at once), decodes it as strict UTF-8 and parses it.
 */
export async function readBody(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  const tooLarge = () =>
    new AppError("body_too_large", `The request body is larger than ${maxBytes.toLocaleString("en-US")} bytes.`);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  let bytes = new Uint8Array(Number.isFinite(declared) && declared > 0 ? declared : 64 * 1024);
  let size = 0;
  if (request.body) {
    // Read with a running cap: a chunked body without Content-Length must not fill memory either.
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.byteLength > maxBytes) {
        await reader.cancel();
        throw tooLarge();
      }
      if (size + value.byteLength > bytes.byteLength) {
        const grown = new Uint8Array(Math.min(maxBytes, Math.max(bytes.byteLength * 2, size + value.byteLength)));
        grown.set(bytes.subarray(0, size));
        bytes = grown;
      }
      bytes.set(value, size);
      size += value.byteLength;
    }
  }
  const text = decodeUtf8(bytes.subarray(0, size));
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
  throw invalidInput(parsed.error, `Some ${what} are invalid.`, value);
}

/**
 * Builds a Next route handler for the endpoint. Every endpoint with a `{bank}` path parameter
 * answers 404 for an unknown bank before the handler runs.
 */
export function handle<E extends Endpoint>(endpoint: E, run: (input: HandlerInput<E>) => Promise<Response>) {
  return async (request: Request, ctx: RouteContext): Promise<Response> => {
    try {
      // First of all: a request past its class's queue is refused before its body is read. The
      // service takes its slot once the body is in, so a client still uploading never holds one.
      if (endpoint.admission) refuseIfFull(endpoint.admission);
      // Next passes no params at all for routes without dynamic segments.
      const rawParams = assertValidText((await ctx?.params) ?? {}, "the path");
      const params = endpoint.params ? parseOrThrow(endpoint.params, rawParams, "path parameters") : undefined;
      const db = await getAppDb();
      const bank = typeof rawParams.bank === "string" ? await requireBank(db, rawParams.bank) : undefined;
      // Every endpoint reads its query: a parameter it does not take is refused, not ignored.
      const search = new URL(request.url).searchParams;
      assertValidText(Object.fromEntries(search), "the query");
      const query = parseQuery(search, endpoint.query);
      let rawBody: unknown;
      let body: unknown;
      if (endpoint.body) {
        rawBody = await readBody(request, endpoint.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
        if (!endpoint.bodyCheckedByHandler) {
          assertValidText(rawBody, "the body");
          body = parseOrThrow(endpoint.body, rawBody, "fields");
        }
      }
      // The slot itself is taken by the service that does the work (startRun, recallTier), whatever door asks.
      return await run({ db, params, query, body, rawBody, request, bank } as HandlerInput<E>);
    } catch (err) {
      return httpError(err);
    }
  };
}
