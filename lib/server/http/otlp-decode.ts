/**
 * OTLP/HTTP protobuf bodies (`ExportTraceServiceRequest`, opentelemetry-proto
 * collector/trace/v1/trace_service.proto and trace/v1, common/v1, resource/v1) decoded into the
 * OTLP/JSON shape, so one reader (lib/timeline/otlp-import.ts) serves both encodings; and the
 * receiver's protobuf answers (`ExportTraceServiceResponse`, `google.rpc.Status`).
 *
 * A small wire-format reader, written for exactly these messages: the serializer the app encodes
 * with (@opentelemetry/otlp-transformer) exports no decoder. Unknown fields are skipped as proto3
 * requires; a truncated or malformed body, or values nested deeper than MAX_DEPTH, throw
 * `ProtobufError`. Field numbers follow the .proto files (tests cross-check against protobufjs code
 * generated from them).
 */

export class ProtobufError extends Error {}

/** A body that decodes but holds more than the receiver reads at once (an HTTP 413, not a 400). */
export class DecodeLimitError extends Error {}

/**
 * How much one request may unpack to: checked as each message is decoded, so a few kilobytes of
 * gzip that unpack to millions of empty spans or attributes stop at the limit instead of being
 * materialised first.
 */
export interface DecodeLimits {
  spans: number;
  /** Attributes, event attributes, array items and nested key-values, each counted once; and events. */
  values: number;
}

let budget: { spans: number; values: number; limits: DecodeLimits } | null = null;

function countSpan(): void {
  if (budget && ++budget.spans > budget.limits.spans) {
    throw new DecodeLimitError(`more than ${budget.limits.spans.toLocaleString("en-US")} spans`);
  }
}

function countValue(): void {
  if (budget && ++budget.values > budget.limits.values) {
    throw new DecodeLimitError(`more than ${budget.limits.values.toLocaleString("en-US")} attribute values`);
  }
}

/** Nested messages deeper than this are refused (an AnyValue can nest arrays and key-value lists). */
const MAX_DEPTH = 16;

class Reader {
  pos = 0;
  constructor(
    private readonly buf: Uint8Array,
    private readonly end = buf.length,
  ) {}

  atEnd(): boolean {
    return this.pos >= this.end;
  }

  /** A varint as a number: exact up to 2^53 (lengths, tags, enums, counts). */
  small(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufError("truncated varint");
      const b = this.buf[this.pos++] as number;
      result += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) {
        if (result > Number.MAX_SAFE_INTEGER) throw new ProtobufError("length out of range");
        return result;
      }
      mul *= 128;
    }
    throw new ProtobufError("varint longer than 10 bytes");
  }

  /** A varint as a 64-bit unsigned BigInt (int64 values). */
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufError("truncated varint");
      const b = this.buf[this.pos++] as number;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result & ((1n << 64n) - 1n);
      shift += 7n;
    }
    throw new ProtobufError("varint longer than 10 bytes");
  }

  fixed64(): bigint {
    if (this.pos + 8 > this.end) throw new ProtobufError("truncated fixed64");
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).getBigUint64(0, true);
    this.pos += 8;
    return v;
  }

  double(): number {
    if (this.pos + 8 > this.end) throw new ProtobufError("truncated double");
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).getFloat64(0, true);
    this.pos += 8;
    return v;
  }

  bytes(): Uint8Array {
    const len = this.small();
    if (this.pos + len > this.end) throw new ProtobufError("truncated length-delimited field");
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  string(): string {
    return utf8.decode(this.bytes());
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new ProtobufError(`unsupported wire type ${wire}`);
    if (this.pos > this.end) throw new ProtobufError("truncated field");
  }

  /** Each field of the message: `fn(field, wire)` reads it or returns false to have it skipped. */
  fields(fn: (field: number, wire: number) => boolean): void {
    while (!this.atEnd()) {
      const tag = this.small();
      const field = tag >>> 3;
      const wire = tag & 7;
      if (field === 0) throw new ProtobufError("field number 0");
      if (!fn(field, wire)) this.skip(wire);
    }
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: false });

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

function sub(r: Reader, depth: number): Reader {
  if (depth > MAX_DEPTH) throw new ProtobufError(`messages nested deeper than ${MAX_DEPTH}`);
  const bytes = r.bytes();
  return new Reader(bytes);
}

type Json = Record<string, unknown>;

function anyValue(r: Reader, depth: number): Json {
  let out: Json = {};
  r.fields((f, w) => {
    if (f === 1 && w === 2) out = { stringValue: r.string() };
    else if (f === 2 && w === 0) out = { boolValue: r.small() !== 0 };
    else if (f === 3 && w === 0) out = { intValue: BigInt.asIntN(64, r.varint()).toString() };
    else if (f === 4 && w === 1) out = { doubleValue: r.double() };
    else if (f === 5 && w === 2)
      out = {
        arrayValue: {
          values: repeated(sub(r, depth + 1), 1, (x) => {
            countValue();
            return anyValue(x, depth + 2);
          }),
        },
      };
    else if (f === 6 && w === 2)
      out = { kvlistValue: { values: repeated(sub(r, depth + 1), 1, (x) => keyValue(x, depth + 2)) } };
    else if (f === 7 && w === 2) out = { bytesValue: Buffer.from(r.bytes()).toString("base64") };
    else return false;
    return true;
  });
  return out;
}

/** The embedded messages of one repeated field of `r`, each read by `read`. */
function repeated(r: Reader, field: number, read: (x: Reader) => Json, depth = 0): Json[] {
  const out: Json[] = [];
  r.fields((f, w) => {
    if (f !== field || w !== 2) return false;
    out.push(read(sub(r, depth)));
    return true;
  });
  return out;
}

function keyValue(r: Reader, depth: number): Json {
  countValue();
  const out: Json = { key: "", value: {} };
  r.fields((f, w) => {
    if (f === 1 && w === 2) out.key = r.string();
    else if (f === 2 && w === 2) out.value = anyValue(sub(r, depth), depth + 1);
    else return false;
    return true;
  });
  return out;
}

function span(r: Reader): Json {
  const out: Json = { attributes: [], events: [] };
  const attributes: Json[] = [];
  const events: Json[] = [];
  r.fields((f, w) => {
    if (f === 1 && w === 2) out.traceId = hex(r.bytes());
    else if (f === 2 && w === 2) out.spanId = hex(r.bytes());
    else if (f === 4 && w === 2) out.parentSpanId = hex(r.bytes());
    else if (f === 5 && w === 2) out.name = r.string();
    else if (f === 6 && w === 0) out.kind = r.small();
    else if (f === 7 && w === 1) out.startTimeUnixNano = r.fixed64().toString();
    else if (f === 8 && w === 1) out.endTimeUnixNano = r.fixed64().toString();
    else if (f === 9 && w === 2) attributes.push(keyValue(sub(r, 1), 2));
    else if (f === 11 && w === 2) {
      countValue();
      const e: Json = {};
      const eventAttributes: Json[] = [];
      const er = sub(r, 1);
      er.fields((ef, ew) => {
        if (ef === 1 && ew === 1) e.timeUnixNano = er.fixed64().toString();
        else if (ef === 2 && ew === 2) e.name = er.string();
        else if (ef === 3 && ew === 2) eventAttributes.push(keyValue(sub(er, 2), 3));
        else return false;
        return true;
      });
      e.attributes = eventAttributes;
      events.push(e);
    } else if (f === 15 && w === 2) {
      const st: Json = {};
      const sr = sub(r, 1);
      sr.fields((sf, sw) => {
        if (sf === 2 && sw === 2) st.message = sr.string();
        else if (sf === 3 && sw === 0) st.code = sr.small();
        else return false;
        return true;
      });
      out.status = st;
    } else return false;
    return true;
  });
  out.attributes = attributes;
  out.events = events;
  return out;
}

/**
 * An `ExportTraceServiceRequest` as the OTLP/JSON object it stands for. With `limits`, a body
 * holding more spans or values throws `DecodeLimitError` as soon as the count is passed.
 */
export function decodeTraceRequest(bytes: Uint8Array, limits?: DecodeLimits): { resourceSpans: Json[] } {
  budget = limits ? { spans: 0, values: 0, limits } : null;
  try {
    return decodeRequest(bytes);
  } finally {
    budget = null;
  }
}

function decodeRequest(bytes: Uint8Array): { resourceSpans: Json[] } {
  const root = new Reader(bytes);
  const resourceSpans = repeated(root, 1, (rs) => {
    const out: Json = { resource: { attributes: [] }, scopeSpans: [] };
    const scopeSpans: Json[] = [];
    rs.fields((f, w) => {
      if (f === 1 && w === 2) {
        out.resource = { attributes: repeated(sub(rs, 1), 1, (kv) => keyValue(kv, 2)) };
      } else if (f === 2 && w === 2) {
        const ss = sub(rs, 1);
        const scope: Json = {};
        const spans: Json[] = [];
        ss.fields((sf, sw) => {
          if (sf === 1 && sw === 2) {
            const sc = sub(ss, 2);
            sc.fields((cf, cw) => {
              if (cf === 1 && cw === 2) scope.name = sc.string();
              else if (cf === 2 && cw === 2) scope.version = sc.string();
              else return false;
              return true;
            });
          } else if (sf === 2 && sw === 2) {
            countSpan();
            spans.push(span(sub(ss, 2)));
          } else return false;
          return true;
        });
        scopeSpans.push({ scope, spans });
      } else return false;
      return true;
    });
    out.scopeSpans = scopeSpans;
    return out;
  });
  return { resourceSpans };
}

// ---------- answers ----------

function varintBytes(n: bigint): number[] {
  const out: number[] = [];
  let v = n;
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return out;
}

function lengthDelimited(field: number, bytes: Uint8Array | number[]): number[] {
  return [...varintBytes(BigInt((field << 3) | 2)), ...varintBytes(BigInt(bytes.length)), ...bytes];
}

/**
 * `ExportTraceServiceResponse`: empty on full success; with `partial_success` (rejected_spans,
 * error_message) when some spans were rejected.
 */
export function encodeTraceResponse(partial: { rejectedSpans: number; errorMessage: string } | null): Uint8Array {
  if (!partial) return new Uint8Array(0);
  const inner = [
    ...(partial.rejectedSpans > 0
      ? [...varintBytes(BigInt((1 << 3) | 0)), ...varintBytes(BigInt(partial.rejectedSpans))]
      : []),
    ...(partial.errorMessage ? lengthDelimited(2, new TextEncoder().encode(partial.errorMessage)) : []),
  ];
  return Uint8Array.from(lengthDelimited(1, inner));
}

/** `google.rpc.Status` (code, message): OTLP/HTTP's error body for a protobuf request. */
export function encodeRpcStatus(code: number, message: string): Uint8Array {
  return Uint8Array.from([
    ...varintBytes(BigInt((1 << 3) | 0)),
    ...varintBytes(BigInt(code)),
    ...lengthDelimited(2, new TextEncoder().encode(message)),
  ]);
}
