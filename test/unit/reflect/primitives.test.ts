import { describe, expect, it } from "vitest";
import { truncateCodePoints } from "@/lib/reflect/anchor";
import { callSignature, canonicalJson, signatureTool } from "@/lib/reflect/call-signature";
import { NothingToSearchError } from "@/lib/reflect/errors";
import { normalizeToolName } from "@/lib/reflect/tool-names";
import {
  capContent,
  clampMaxResults,
  mentalModelsPayload,
  observationsPayload,
  recallPayload,
} from "@/lib/reflect/tools";
import { fact, observation } from "@/test/fixtures/in-memory-memory";

describe("call signature", () => {
  it("ignores key order, nested too", () => {
    expect(canonicalJson({ a: 1, b: { c: 2, d: [1, { x: 1, y: 2 }] } })).toBe(
      canonicalJson({ b: { d: [1, { y: 2, x: 1 }], c: 2 }, a: 1 }),
    );
  });
  it("depends on array order, values and types", () => {
    const base = callSignature("recall", { q: [1, 2] }, null);
    expect(callSignature("recall", { q: [2, 1] }, null)).not.toBe(base);
    expect(callSignature("recall", { q: [1, 3] }, null)).not.toBe(base);
    expect(callSignature("recall", { q: ["1", 2] }, null)).not.toBe(base);
    expect(callSignature("recall", { n: 1 }, null)).not.toBe(callSignature("recall", { n: "1" }, null));
  });
  it("reads as the call itself: tool, canonical arguments, first error line", () => {
    expect(canonicalJson({ b: 1, a: null, c: undefined })).toBe('{"a":null,"b":1}');
    const sig = callSignature("recall", { reason: "date", query: " Atlas launch " }, "db down\nstack trace");
    // The free-text reason is left out and the query trimmed and case-folded (docs/engine.md#steering).
    expect(sig).toBe('recall:{"query":"atlas launch"}:db down');
    expect(callSignature("recall", { reason: "another wording", query: "ATLAS launch" }, "db down")).toBe(sig);
    expect(signatureTool(sig)).toBe("recall");
    expect(callSignature("done", "not json", null)).toBe('done:"not json":');
  });
});

describe("tool names", () => {
  it.each([
    ["functions.done", "done"],
    ["call=functions.done", "done"],
    ["done<|channel|>commentary", "done"],
    ["recall<|channel|>done", "recall"],
    ["  search_observations ", "search_observations"],
  ])("%s → %s", (raw, name) => {
    expect(normalizeToolName(raw)).toBe(name);
  });
});

describe("tool payloads", () => {
  it("use the exact snake_case shapes", () => {
    expect(recallPayload("q", [fact("f1", "t", { occurredAt: "2025-02-01" })])).toEqual({
      query: "q",
      count: 1,
      memories: [
        {
          id: "f1",
          text: "t",
          kind: "world",
          tags: [],
          scope: "personal",
          occurred_at: "2025-02-01",
          recorded_at: "2025-01-01T00:00:00.000Z",
        },
      ],
    });
    expect(
      observationsPayload("q", {
        observations: [observation("o1", "t")],
        pending: 2,
        freshness: "slightly_stale",
        isStale: true,
      }),
    ).toEqual({
      query: "q",
      count: 1,
      observations: [
        {
          id: "o1",
          text: "t",
          tags: [],
          scope: "personal",
          source_fact_ids: [],
          updated_at: "2025-01-02T00:00:00.000Z",
        },
      ],
      is_stale: true,
      freshness: "slightly_stale",
    });
    const mm = mentalModelsPayload("q", [
      {
        id: "mm1",
        name: "n",
        content: "c",
        tags: ["a"],
        version: 2,
        relevance: 1,
        refreshedAt: null,
        isStale: true,
        stalenessReason: "never refreshed",
        usable: true,
      },
    ]);
    expect(mm.mental_models[0]).toEqual({
      id: "mm1",
      name: "n",
      content: "c",
      tags: ["a"],
      relevance: 1,
      refreshed_at: null,
      is_stale: true,
      staleness_reason: "never refreshed",
    });
  });
  it("clamps max_results and applies per-tool defaults", () => {
    expect(clampMaxResults("raw_facts", undefined)).toBe(20);
    expect(clampMaxResults("observations", undefined)).toBe(10);
    expect(clampMaxResults("mental_models", undefined)).toBe(5);
    expect(clampMaxResults("raw_facts", 0)).toBe(1);
    expect(clampMaxResults("raw_facts", 99)).toBe(50);
  });
  it("caps content and reports the real size", () => {
    const capped = capContent({ text: "x".repeat(1000) }, 300);
    expect(capped.truncated).toBe(true);
    expect(capped.content.length).toBeLessThanOrEqual(300);
    expect(capped.chars).toBe(JSON.stringify({ text: "x".repeat(1000) }).length);
  });
});

describe("anchor truncation", () => {
  it("cuts at code points and appends an ellipsis", () => {
    expect(truncateCodePoints("😀".repeat(501), 500)).toBe(`${"😀".repeat(500)}…`);
    expect(truncateCodePoints("short", 500)).toBe("short");
  });
});

describe("NothingToSearchError", () => {
  it("names the common words it found, or says there are no letters or digits", () => {
    expect(new NothingToSearchError("What is it?").message).toContain(
      'has no words to search for (only common words: "what", "is", "it"), so nothing was searched',
    );
    expect(new NothingToSearchError("🚀 ?").message).toContain("has no letters or digits to search for");
  });
});
