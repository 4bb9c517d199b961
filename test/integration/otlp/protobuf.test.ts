/**
 * The app's own OTLP protobuf writer against protobufjs code generated from the official
 * opentelemetry-proto files: every value type, edge values included, decodes to what was written.
 */
import { describe, expect, it } from "vitest";
import type { OtlpTrace } from "@/lib/timeline/otlp";
import { encodeTraceProtobuf } from "@/lib/timeline/otlp-protobuf";
import { decodeTraceProtobuf } from "./collector";

const trace: OtlpTrace = {
  resourceSpans: [
    {
      resource: { attributes: [{ key: "service.name", value: { stringValue: "svc" } }] },
      scopeSpans: [
        {
          scope: { name: "reflect-inspector", version: "1" },
          spans: [
            {
              traceId: "0123456789abcdef0123456789abcdef",
              spanId: "0011223344556677",
              name: "root ✓ ünïcode 🚀",
              kind: 1,
              startTimeUnixNano: "1700000000123456789",
              endTimeUnixNano: "18446744073709551615",
              attributes: [
                { key: "s", value: { stringValue: "" } },
                { key: "long", value: { stringValue: "x".repeat(100_000) } },
                { key: "t", value: { boolValue: true } },
                { key: "f", value: { boolValue: false } },
                { key: "zero", value: { intValue: "0" } },
                { key: "neg", value: { intValue: "-42" } },
                { key: "max", value: { intValue: "9223372036854775807" } },
                { key: "one", value: { doubleValue: 1 } },
                { key: "half", value: { doubleValue: 0.5 } },
                { key: "dzero", value: { doubleValue: 0 } },
                { key: "list", value: { arrayValue: { values: [{ stringValue: "a" }, { stringValue: "" }] } } },
                { key: "empty", value: { arrayValue: { values: [] } } },
              ],
              events: [{ timeUnixNano: "5", name: "e", attributes: [{ key: "k", value: { intValue: "7" } }] }],
              status: { code: 2, message: "boom" },
            },
            {
              traceId: "0123456789abcdef0123456789abcdef",
              spanId: "8899aabbccddeeff",
              parentSpanId: "0011223344556677",
              name: "child",
              kind: 3,
              startTimeUnixNano: "0",
              endTimeUnixNano: "1",
              attributes: [],
              events: [],
              status: { code: 0 },
            },
          ],
        },
      ],
    },
  ],
};

describe("OTLP protobuf writer", () => {
  it("round-trips every value type through the official protos", () => {
    expect(decodeTraceProtobuf(encodeTraceProtobuf(trace))).toEqual(trace);
  });

  it("keeps a whole-number double a double (the JS SDK serializer would send an int)", () => {
    const decoded = decodeTraceProtobuf(encodeTraceProtobuf(trace));
    const one = decoded.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.attributes.find((a) => a.key === "one");
    expect(one?.value).toEqual({ doubleValue: 1 });
  });
});
