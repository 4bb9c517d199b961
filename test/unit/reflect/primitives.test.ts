import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { truncateCodePoints } from "@/lib/reflect/anchor";
import { callSignature, canonicalJson, fingerprint } from "@/lib/reflect/fingerprint";
import { sha256Hex } from "@/lib/reflect/sha256";
import { normalizeToolName } from "@/lib/reflect/tool-names";
import {
  capContent,
  clampMaxResults,
  mentalModelsPayload,
  observationsPayload,
  recallPayload,
} from "@/lib/reflect/tools";
import { fact, observation } from "@/test/fixtures/in-memory-memory";

describe("sha256", () => {
  it("matches the known vectors", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
  });
  it("hashes UTF-8 and multi-block input", () => {
    for (const text of ["é", "🚀 launch", "x".repeat(55), "x".repeat(56), "x".repeat(64)]) {
      expect(sha256Hex(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
    }
    expect(sha256Hex("a".repeat(1000))).toBe("41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
  });
});

describe("fingerprint", () => {
  it("ignores key order, nested too", () => {
    expect(fingerprint({ a: 1, b: { c: 2, d: [1, { x: 1, y: 2 }] } })).toBe(
      fingerprint({ b: { d: [1, { y: 2, x: 1 }], c: 2 }, a: 1 }),
    );
  });
  it("depends on array order, values and types", () => {
    const base = fingerprint({ q: [1, 2] });
    expect(fingerprint({ q: [2, 1] })).not.toBe(base);
    expect(fingerprint({ q: [1, 3] })).not.toBe(base);
    expect(fingerprint({ q: ["1", 2] })).not.toBe(base);
    expect(fingerprint({ n: 1 })).not.toBe(fingerprint({ n: "1" }));
  });
  it("is 16 hex chars and stable", () => {
    const fp = fingerprint({ query: "Atlas launch", reason: "date" });
    expect(fp).toMatch(/^[0-9a-f]{16}$/);
    expect(fp).toBe(sha256Hex('{"query":"Atlas launch","reason":"date"}').slice(0, 16));
    expect(canonicalJson({ b: 1, a: null })).toBe('{"a":null,"b":1}');
  });
  it("builds the ladder signature from tool, fingerprint and the first error line", () => {
    const sig = callSignature("recall", { query: "x" }, "db down\nstack trace");
    expect(sig).toBe(`recall:${fingerprint({ query: "x" })}:db down`);
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
