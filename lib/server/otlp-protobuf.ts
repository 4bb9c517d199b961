/**
 * A run's OTLP trace (the pure view in lib/timeline/otlp.ts) as the OTLP/HTTP protobuf body
 * (`ExportTraceServiceRequest`), encoded by the OpenTelemetry JS project's own serializer so the
 * bytes follow the published opentelemetry-proto definitions. The serializer takes SDK spans: this
 * module only re-shapes our spans into that form (ids, times and attributes unchanged).
 */

import type { Attributes, AttributeValue, HrTime } from "@opentelemetry/api";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import type { OtlpAnyValue, OtlpAttribute, OtlpSpan, OtlpTrace } from "@/lib/timeline/otlp";

function rawValue(value: OtlpAnyValue): AttributeValue {
  if ("stringValue" in value) return value.stringValue;
  if ("boolValue" in value) return value.boolValue;
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return value.doubleValue;
  // Our arrays are homogeneous (string lists), as OpenTelemetry attribute arrays must be.
  return value.arrayValue.values.map(rawValue) as AttributeValue;
}

function attributes(list: OtlpAttribute[]): Attributes {
  return Object.fromEntries(list.map((a) => [a.key, rawValue(a.value)]));
}

/** `"1700000000123456789"` → `[1700000000, 123456789]` without losing nanoseconds to a double. */
function hrTime(unixNano: string): HrTime {
  const nanos = BigInt(unixNano);
  return [Number(nanos / 1_000_000_000n), Number(nanos % 1_000_000_000n)];
}

/** OTLP's SpanKind counts from UNSPECIFIED = 0; the JS API's enum from INTERNAL = 0. */
const apiKind = (kind: OtlpSpan["kind"]) => kind - 1;

export function encodeTraceProtobuf(trace: OtlpTrace): Uint8Array {
  const spans: ReadableSpan[] = [];
  for (const rs of trace.resourceSpans) {
    // The serializer groups spans by resource and scope identity: one object each.
    const resource = resourceFromAttributes(attributes(rs.resource.attributes));
    for (const ss of rs.scopeSpans) {
      const scope = { ...ss.scope };
      for (const s of ss.spans) {
        const startTime = hrTime(s.startTimeUnixNano);
        const endTime = hrTime(s.endTimeUnixNano);
        const durationNs = BigInt(s.endTimeUnixNano) - BigInt(s.startTimeUnixNano);
        spans.push({
          name: s.name,
          kind: apiKind(s.kind),
          spanContext: () => ({ traceId: s.traceId, spanId: s.spanId, traceFlags: 1 }),
          parentSpanContext: s.parentSpanId ? { traceId: s.traceId, spanId: s.parentSpanId, traceFlags: 1 } : undefined,
          startTime,
          endTime,
          duration: [Number(durationNs / 1_000_000_000n), Number(durationNs % 1_000_000_000n)],
          ended: true,
          status: { code: s.status.code, ...(s.status.message ? { message: s.status.message } : {}) },
          attributes: attributes(s.attributes),
          links: [],
          events: s.events.map((e) => ({
            name: e.name,
            time: hrTime(e.timeUnixNano),
            attributes: attributes(e.attributes),
            droppedAttributesCount: 0,
          })),
          resource,
          instrumentationScope: scope,
          droppedAttributesCount: 0,
          droppedEventsCount: 0,
          droppedLinksCount: 0,
        });
      }
    }
  }
  const body = ProtobufTraceSerializer.serializeRequest(spans);
  if (!body) throw new Error("the OTLP protobuf serializer returned nothing");
  return body;
}
