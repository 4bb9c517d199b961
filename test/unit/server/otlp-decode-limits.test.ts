/** The protobuf decoder's limits (docs/tracing.md#receiving-traces): counted as messages are decoded. */
import { describe, expect, it } from "vitest";
import { DecodeLimitError, decodeTraceRequest } from "@/lib/server/http/otlp-decode";
import { toProtobuf } from "@/test/fixtures/otlp/protobuf";
import { type SpanSpec, trace } from "@/test/fixtures/otlp/traces";

const spec = (i: number, attributes: number, array = 0): SpanSpec => ({
  id: (0xa000000000000001n + BigInt(i)).toString(16),
  name: `s${i}`,
  start: 0,
  end: 1,
  attributes: {
    ...Object.fromEntries(Array.from({ length: attributes }, (_, k) => [`k${k}`, `v${k}`])),
    ...(array ? { list: Array.from({ length: array }, (_, k) => `x${k}`) } : {}),
  },
});
const body = (spans: SpanSpec[]) => toProtobuf(trace("0af7651916cd43dd8448eb211c80319c", {}, spans));

describe("decodeTraceRequest limits", () => {
  it("takes a body at the limits: each attribute counts once", () => {
    const decoded = decodeTraceRequest(body([spec(0, 40), spec(1, 40)]), { spans: 2, values: 80 });
    expect(decoded.resourceSpans).toHaveLength(1);
  });

  it("refuses one span past the span limit, and one attribute past the value limit", () => {
    expect(() => decodeTraceRequest(body([spec(0, 1), spec(1, 1), spec(2, 1)]), { spans: 2, values: 100 })).toThrow(
      new DecodeLimitError("more than 2 spans"),
    );
    expect(() => decodeTraceRequest(body([spec(0, 40), spec(1, 41)]), { spans: 2, values: 80 })).toThrow(
      new DecodeLimitError("more than 80 attribute values"),
    );
  });

  it("counts array items as values, and decodes without limits when none are given", () => {
    // One attribute holding a list of 10: 11 values.
    expect(() => decodeTraceRequest(body([spec(0, 0, 10)]), { spans: 1, values: 10 })).toThrow(DecodeLimitError);
    expect(() => decodeTraceRequest(body([spec(0, 0, 10)]), { spans: 1, values: 11 })).not.toThrow();
    expect(() => decodeTraceRequest(body([spec(0, 200), spec(1, 200), spec(2, 200)]))).not.toThrow();
  });
});
