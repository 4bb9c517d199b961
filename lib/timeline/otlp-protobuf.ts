/**
 * A run's OTLP trace (the pure view in lib/timeline/otlp.ts) as the OTLP/HTTP protobuf body
 * (`ExportTraceServiceRequest`), written field by field from the published opentelemetry-proto
 * definitions (collector/trace/v1, trace/v1, common/v1, resource/v1). Our own writer rather than the
 * OpenTelemetry JS serializer: that one takes SDK spans whose attribute values are plain numbers, so
 * it sends every integral number as `int_value` and a document score of 1.0 would arrive as the int 1.
 * Here each value keeps the type the JSON export gives it. The tests decode these bytes with
 * protobufjs code generated from the official protos.
 */
import type { OtlpAnyValue, OtlpAttribute, OtlpEvent, OtlpSpan, OtlpTrace } from "@/lib/timeline/otlp";

/** Wire types (protobuf encoding). */
const VARINT = 0;
const I64 = 1;
const LEN = 2;

/**
 * Protobuf output as a list of byte chunks: small fields gather in a scratch array, strings are
 * appended as whole chunks and a nested message's chunks are spliced in after its length, so the
 * body is copied once, at the end.
 */
const UTF8 = new TextEncoder();

class Writer {
  private parts: Uint8Array[] = [];
  private pending: number[] = [];
  private size = 0;

  private flush(): void {
    if (this.pending.length === 0) return;
    this.parts.push(Uint8Array.from(this.pending));
    this.pending = [];
  }

  private push(byte: number): void {
    this.pending.push(byte);
    this.size++;
  }

  tag(field: number, wire: number): void {
    this.varint(BigInt((field << 3) | wire));
  }

  varint(value: bigint): void {
    // int64 is sent as its two's complement in 64 bits (10 bytes for a negative number).
    let v = BigInt.asUintN(64, value);
    while (v >= 0x80n) {
      this.push(Number((v & 0x7fn) | 0x80n));
      v >>= 7n;
    }
    this.push(Number(v));
  }

  fixed64(value: bigint): void {
    let v = BigInt.asUintN(64, value);
    for (let i = 0; i < 8; i++) {
      this.push(Number(v & 0xffn));
      v >>= 8n;
    }
  }

  double(value: number): void {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setFloat64(0, value, true);
    for (const b of bytes) this.push(b);
  }

  bytes(field: number, data: Uint8Array): void {
    this.tag(field, LEN);
    this.varint(BigInt(data.length));
    this.flush();
    this.parts.push(data);
    this.size += data.length;
  }

  string(field: number, text: string): void {
    this.bytes(field, UTF8.encode(text));
  }

  /** A nested message: written into its own writer, then length-prefixed and spliced in. */
  message(field: number, write: (w: Writer) => void): void {
    const inner = new Writer();
    write(inner);
    inner.flush();
    this.tag(field, LEN);
    this.varint(BigInt(inner.size));
    this.flush();
    // A loop, not a spread: a large trace has more chunks than a call takes arguments.
    for (const part of inner.parts) this.parts.push(part);
    this.size += inner.size;
  }

  finish(): Uint8Array {
    this.flush();
    if (this.parts.length === 1) return this.parts[0]!;
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const part of this.parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }
}

const hexBytes = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (h) => Number.parseInt(h, 16));

/** common.v1.AnyValue: string 1, bool 2, int 3, double 4, array 5. */
function anyValue(w: Writer, value: OtlpAnyValue): void {
  if ("stringValue" in value) w.string(1, value.stringValue);
  else if ("boolValue" in value) {
    w.tag(2, VARINT);
    w.varint(value.boolValue ? 1n : 0n);
  } else if ("intValue" in value) {
    w.tag(3, VARINT);
    w.varint(BigInt(value.intValue));
  } else if ("doubleValue" in value) {
    w.tag(4, I64);
    w.double(value.doubleValue);
  } else {
    // ArrayValue { repeated AnyValue values = 1 }
    w.message(5, (a) => {
      for (const v of value.arrayValue.values) a.message(1, (x) => anyValue(x, v));
    });
  }
}

/** repeated common.v1.KeyValue { key = 1; value = 2 } at `field`. */
function keyValues(w: Writer, field: number, list: OtlpAttribute[]): void {
  for (const a of list) {
    w.message(field, (kv) => {
      kv.string(1, a.key);
      kv.message(2, (v) => anyValue(v, a.value));
    });
  }
}

/** trace.v1.Span.Event: time_unix_nano 1 (fixed64), name 2, attributes 3. */
function event(w: Writer, e: OtlpEvent): void {
  w.tag(1, I64);
  w.fixed64(BigInt(e.timeUnixNano));
  w.string(2, e.name);
  keyValues(w, 3, e.attributes);
}

/**
 * trace.v1.Span: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, start 7, end 8,
 * attributes 9, events 11, status 15 (message 2, code 3).
 */
function span(w: Writer, s: OtlpSpan): void {
  w.bytes(1, hexBytes(s.traceId));
  w.bytes(2, hexBytes(s.spanId));
  if (s.parentSpanId) w.bytes(4, hexBytes(s.parentSpanId));
  w.string(5, s.name);
  w.tag(6, VARINT);
  w.varint(BigInt(s.kind));
  w.tag(7, I64);
  w.fixed64(BigInt(s.startTimeUnixNano));
  w.tag(8, I64);
  w.fixed64(BigInt(s.endTimeUnixNano));
  keyValues(w, 9, s.attributes);
  for (const e of s.events) w.message(11, (x) => event(x, e));
  w.message(15, (st) => {
    if (s.status.message) st.string(2, s.status.message);
    if (s.status.code !== 0) {
      st.tag(3, VARINT);
      st.varint(BigInt(s.status.code));
    }
  });
}

/** collector.trace.v1.ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1 }. */
export function encodeTraceProtobuf(trace: OtlpTrace): Uint8Array {
  const w = new Writer();
  for (const rs of trace.resourceSpans) {
    w.message(1, (r) => {
      // ResourceSpans: resource 1 (Resource { attributes 1 }), scope_spans 2.
      r.message(1, (res) => keyValues(res, 1, rs.resource.attributes));
      for (const ss of rs.scopeSpans) {
        // ScopeSpans: scope 1 (InstrumentationScope { name 1, version 2 }), spans 2.
        r.message(2, (scope) => {
          scope.message(1, (is) => {
            is.string(1, ss.scope.name);
            is.string(2, ss.scope.version);
          });
          for (const s of ss.spans) scope.message(2, (x) => span(x, s));
        });
      }
    });
  }
  return w.finish();
}
