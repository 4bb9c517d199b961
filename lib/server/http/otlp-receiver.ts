/**
 * The OTLP/HTTP trace receiver (docs/tracing.md#receiving-traces): `POST /v1/traces` with an
 * `ExportTraceServiceRequest` as protobuf (`application/x-protobuf`) or JSON (`application/json`),
 * gzip-compressed or not. Each trace becomes an imported run (lib/timeline/otlp-import.ts, stored by
 * db/queries/imported-runs.ts). Answers follow the OTLP/HTTP specification: 200 with an
 * `ExportTraceServiceResponse` in the request's encoding (with `partial_success` naming how many
 * spans were rejected and why), a `google.rpc.Status` body for errors (400 for a body that is not a
 * request, 413 too large, 415 an encoding or media type not served), 503 with Retry-After when the
 * per-process ingest queue is full; a body is unpacked and decoded inside its ingest slot, with
 * its spans and values counted as they are decoded. The proxy applies the same host, origin and token rules as the API.
 */

import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import type { Db } from "@/db/client";
import { AppError } from "@/lib/contracts/errors";
import { readBounded } from "@/lib/text/bounded-body";
import { groupByTrace, spansFromOtlpJson } from "@/lib/timeline/otlp-import";
import { admit, refuseIfFull, TOO_BUSY_RETRY_AFTER_SECONDS } from "../runtime/admission";
import { MAX_TRACE_SPANS, storeTrace } from "../services/imported-traces";
import {
  DecodeLimitError,
  decodeTraceRequest,
  encodeRpcStatus,
  encodeTraceResponse,
  ProtobufError,
} from "./otlp-decode";

const gunzipAsync = promisify(gunzip);

/** The body as sent (compressed or not); the API's largest JSON writes take 10 MB too. */
export const OTLP_MAX_BODY_BYTES = 10_000_000;
/** The body once decompressed: a gzip bomb stops here. */
export const OTLP_MAX_DECODED_BYTES = 50_000_000;
/** Spans in one request. */
export const OTLP_MAX_SPANS = 50_000;
/**
 * Attribute values in one request (attributes, array items, events: 40 a span at the span limit). With the
 * span limit it bounds what a small gzip body can unpack to in memory; counted while decoding.
 */
export const OTLP_MAX_VALUES = 2_000_000;
/** JSON objects and arrays in one request (an attribute is two): counted before the body is parsed. */
export const OTLP_MAX_JSON_CONTAINERS = 2 * OTLP_MAX_VALUES + 4 * OTLP_MAX_SPANS;
/** Traces in one request (each is a write transaction); the spans of traces past it are rejected. */
export const OTLP_MAX_TRACES = 1_000;

type Encoding = "protobuf" | "json";

/** gRPC status codes the OTLP Status body carries. */
const RPC: Record<string, number> = {
  invalid_input: 3,
  invalid_json: 3,
  body_too_large: 8,
  unsupported_media_type: 3,
  too_busy: 14,
  internal: 13,
};
const HTTP: Record<string, number> = {
  invalid_input: 400,
  invalid_json: 400,
  body_too_large: 413,
  unsupported_media_type: 415,
  too_busy: 503,
  internal: 500,
};

function mediaType(value: string | null): string {
  return (value ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

function statusResponse(err: AppError, encoding: Encoding): Response {
  const code = HTTP[err.code] ?? 500;
  const message = code === 500 ? "The trace could not be stored; see the server log." : err.message;
  const headers = new Headers();
  if (err.code === "too_busy") headers.set("retry-after", String(TOO_BUSY_RETRY_AFTER_SECONDS));
  if (encoding === "protobuf") {
    headers.set("content-type", "application/x-protobuf");
    return new Response(Buffer.from(encodeRpcStatus(RPC[err.code] ?? 13, message)), { status: code, headers });
  }
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify({ code: RPC[err.code] ?? 13, message }), { status: code, headers });
}

async function readCapped(request: Request): Promise<Uint8Array> {
  const tooLarge = () =>
    new AppError(
      "body_too_large",
      `The request body is larger than ${OTLP_MAX_BODY_BYTES.toLocaleString("en-US")} bytes.`,
    );
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > OTLP_MAX_BODY_BYTES) throw tooLarge();
  return readBounded(request.body, OTLP_MAX_BODY_BYTES, tooLarge);
}

async function decompress(body: Uint8Array, contentEncoding: string | null): Promise<Uint8Array> {
  const enc = (contentEncoding ?? "").trim().toLowerCase();
  if (enc === "" || enc === "identity") return body;
  if (enc !== "gzip") {
    throw new AppError("unsupported_media_type", `Content-Encoding "${enc}" is not served: send gzip or none.`);
  }
  try {
    return await gunzipAsync(body, { maxOutputLength: OTLP_MAX_DECODED_BYTES });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE" || err instanceof RangeError) {
      throw new AppError(
        "body_too_large",
        `The decompressed body is larger than ${OTLP_MAX_DECODED_BYTES.toLocaleString("en-US")} bytes.`,
      );
    }
    throw new AppError("invalid_input", "The body is not valid gzip.");
  }
}

const tooMany = (what: string) =>
  new AppError(
    "body_too_large",
    `The request holds ${what}; at most ${OTLP_MAX_SPANS.toLocaleString("en-US")} spans and ${OTLP_MAX_VALUES.toLocaleString("en-US")} attribute values are read at once.`,
  );

/**
 * JSON objects and arrays in `bytes` (outside strings), stopping past `limit`: a linear scan, so a
 * body of millions of empty objects is refused before JSON.parse builds them.
 */
export function jsonContainersOver(bytes: Uint8Array, limit: number): boolean {
  let count = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === 0x5c)
        i++; // a backslash escapes the next byte
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if ((b === 0x7b || b === 0x5b) && ++count > limit) return true;
  }
  return false;
}

function parse(bytes: Uint8Array, encoding: Encoding): unknown {
  if (encoding === "protobuf") {
    try {
      return decodeTraceRequest(bytes, { spans: OTLP_MAX_SPANS, values: OTLP_MAX_VALUES });
    } catch (err) {
      if (err instanceof DecodeLimitError) throw tooMany(err.message);
      if (err instanceof ProtobufError) {
        throw new AppError("invalid_input", `The body is not an ExportTraceServiceRequest: ${err.message}.`);
      }
      throw err;
    }
  }
  if (jsonContainersOver(bytes, OTLP_MAX_JSON_CONTAINERS)) {
    throw tooMany(`more than ${OTLP_MAX_JSON_CONTAINERS.toLocaleString("en-US")} JSON objects and arrays`);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AppError("invalid_json", "The body is not valid UTF-8.");
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError(
      "invalid_json",
      `The body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

export interface IngestOutcome {
  runIds: string[];
  acceptedSpans: number;
  rejectedSpans: number;
  reasons: string[];
}

/** How many spans a decoded request lists (whatever each entry is). */
function listedSpans(body: unknown): number {
  const rs = (body as { resourceSpans?: unknown } | null)?.resourceSpans;
  if (!Array.isArray(rs)) return 0;
  let n = 0;
  for (const r of rs) {
    const ss = (r as { scopeSpans?: unknown } | null)?.scopeSpans;
    if (!Array.isArray(ss)) continue;
    for (const s of ss) {
      const spans = (s as { spans?: unknown } | null)?.spans;
      if (Array.isArray(spans)) n += spans.length;
    }
  }
  return n;
}

/** Spans of an already-decoded request into imported runs, one per trace. */
export async function ingestTraces(db: Db, body: unknown): Promise<IngestOutcome> {
  // Counted from the lists' lengths before any span is read (reading each costs far more).
  if (listedSpans(body) > OTLP_MAX_SPANS) {
    throw new AppError(
      "body_too_large",
      `The request holds more than ${OTLP_MAX_SPANS.toLocaleString("en-US")} spans; at most ${OTLP_MAX_SPANS.toLocaleString("en-US")} are read at once.`,
    );
  }
  let batch: ReturnType<typeof spansFromOtlpJson>;
  try {
    batch = spansFromOtlpJson(body);
  } catch (err) {
    throw new AppError("invalid_input", `The body is not an ExportTraceServiceRequest: ${(err as Error).message}.`);
  }
  if (batch.spans.length + batch.rejected > OTLP_MAX_SPANS) {
    throw new AppError(
      "body_too_large",
      `The request holds ${batch.spans.length + batch.rejected} spans; at most ${OTLP_MAX_SPANS.toLocaleString("en-US")} are read at once.`,
    );
  }
  const outcome: IngestOutcome = {
    runIds: [],
    acceptedSpans: 0,
    rejectedSpans: batch.rejected,
    reasons: [...batch.reasons],
  };
  let traces = 0;
  for (const [traceId, spans] of groupByTrace(batch.spans)) {
    if (++traces > OTLP_MAX_TRACES) {
      outcome.rejectedSpans += spans.length;
      if (traces === OTLP_MAX_TRACES + 1)
        outcome.reasons.push(`more than ${OTLP_MAX_TRACES} traces in one request: the rest were not read`);
      continue;
    }
    try {
      const stored = await storeTrace(db, traceId, spans);
      outcome.acceptedSpans += stored.accepted;
      if (stored.rejected > 0) {
        outcome.rejectedSpans += stored.rejected;
        outcome.reasons.push(`trace ${traceId}: ${stored.rejected} spans past the trace's limit of ${MAX_TRACE_SPANS}`);
      }
      if (stored.accepted > 0) outcome.runIds.push(stored.runId);
    } catch (err) {
      console.error(`otlp: trace ${traceId} was not stored:`, err);
      outcome.rejectedSpans += spans.length;
      outcome.reasons.push(
        `trace ${traceId}: could not be stored (${err instanceof Error ? err.message : String(err)})`,
      );
    }
  }
  return outcome;
}

/** `POST /v1/traces`. */
export async function receiveTraces(request: Request, db: () => Promise<Db>): Promise<Response> {
  const type = mediaType(request.headers.get("content-type"));
  // Answers go out in the request's encoding; a media type not served is told so in JSON.
  const encoding: Encoding = type === "application/x-protobuf" ? "protobuf" : "json";
  try {
    if (type !== "application/x-protobuf" && type !== "application/json") {
      throw new AppError(
        "unsupported_media_type",
        `Content-Type "${type}" is not served: send application/x-protobuf or application/json.`,
      );
    }
    // A full queue turns the request away before its body is read; a slot is taken once it is in.
    refuseIfFull("ingest");
    const raw = await readCapped(request);
    // Unpacking and decoding are the costly part: they run inside the slot, so the ingest
    // concurrency bounds how many bodies are unpacked in memory at once.
    const slot = await admit("ingest", request.signal);
    let outcome: IngestOutcome;
    try {
      const bytes = await decompress(raw, request.headers.get("content-encoding"));
      const body = parse(bytes, encoding);
      outcome = await ingestTraces(await db(), body);
    } finally {
      slot.release();
    }
    const partial =
      outcome.rejectedSpans > 0
        ? { rejectedSpans: outcome.rejectedSpans, errorMessage: outcome.reasons.join("; ").slice(0, 4000) }
        : null;
    const headers = new Headers({ "x-imported-runs": outcome.runIds.slice(0, 20).join(",") });
    if (encoding === "protobuf") {
      headers.set("content-type", "application/x-protobuf");
      return new Response(Buffer.from(encodeTraceResponse(partial)), { status: 200, headers });
    }
    headers.set("content-type", "application/json");
    return new Response(JSON.stringify(partial ? { partialSuccess: partial } : {}), { status: 200, headers });
  } catch (err) {
    // Next bundles each route with its own copy of AppError: judged by name, not instanceof.
    if (err instanceof Error && err.name === "AppError" && "code" in err)
      return statusResponse(err as AppError, encoding);
    console.error("otlp: receiving traces failed:", err);
    return statusResponse(new AppError("internal", "internal"), encoding);
  }
}
