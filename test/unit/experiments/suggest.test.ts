import { describe, expect, it } from "vitest";
import { suggestExpectations } from "@/lib/experiments/suggest";
import type { ProbeResult } from "@/lib/reflect/request";

const none = { mental_model_ids: [], observation_ids: [], memory_ids: [] };
const probe: ProbeResult = {
  queries: ["q"],
  skippedQueries: 0,
  hits: [
    {
      id: "D4:20",
      tier: "raw_facts",
      rank: 1,
      bestRank: 1,
      score: 1,
      searchScore: null,
      query: "q",
      preview: "",
      strong: true,
    },
    {
      id: "D9:1",
      tier: "raw_facts",
      rank: 2,
      bestRank: 8,
      score: 0.5,
      searchScore: null,
      query: "q",
      preview: "",
      strong: false,
    },
  ],
  strong: true,
  durationMs: 1,
  errors: [],
  unused: [{ id: "D4:15", tier: "raw_facts", rank: 3, preview: "" }],
};

describe("Add to suite suggestions", () => {
  it("a run that went right is pinned as it is", () => {
    const s = suggestExpectations(
      { status: "done", flags: [], citations: { ...none, memory_ids: ["D1:1"] }, llmCalls: 3 },
      null,
    );
    expect(s).toEqual({
      suggested: { status: ["done"], mustCite: ["D1:1"], maxLlmCalls: 3 },
      ticked: ["status", "mustCite"],
      why: null,
    });
  });

  it("a right decline is pinned as declining, not as citing nothing", () => {
    const s = suggestExpectations(
      { status: "done", flags: [], citations: none, llmCalls: 3, answer: "Not mentioned in the conversation." },
      null,
    );
    expect(s).toEqual({
      suggested: { status: ["done"], abstains: true, maxLlmCalls: 3 },
      ticked: ["status", "abstains"],
      why: null,
    });
    // An answer that cites something is pinned by its citations, whatever it says.
    const cited = suggestExpectations(
      { status: "done", flags: [], citations: { ...none, memory_ids: ["D1:1"] }, llmCalls: 3, answer: "Biscuit" },
      null,
    );
    expect(cited.suggested).toEqual({ status: ["done"], mustCite: ["D1:1"], maxLlmCalls: 3 });
  });

  it("a missed_evidence run suggests done, citing what the probe named, and not declining", () => {
    const s = suggestExpectations(
      { status: "no_evidence", flags: ["missed_evidence"], citations: none, llmCalls: 4 },
      probe,
    );
    expect(s.suggested).toEqual({ status: ["done"], mustCiteAny: ["D4:15", "D4:20"], abstains: false, maxLlmCalls: 4 });
    expect(s.ticked).toEqual(["status", "mustCiteAny", "abstains"]);
    expect(s.why).toContain("D4:15 (read at rank 3, not used) or D4:20 (never retrieved)");
  });

  it("a degraded or ungrounded run never suggests its own status or its digest's citations", () => {
    const digest = { ...none, memory_ids: ["D1:1", "D1:2", "D1:3"] };
    for (const run of [
      { status: "degraded" as const, flags: [] },
      { status: "done" as const, flags: ["ungrounded"] },
    ]) {
      const s = suggestExpectations({ ...run, citations: digest, llmCalls: 2 }, null);
      expect(s.suggested.status).toEqual(["done"]);
      expect(s.suggested.mustCite).toBeUndefined();
      expect(s.suggested.mustCiteAny).toBeUndefined();
      expect(s.why).toMatch(/degraded|ungrounded/);
    }
    // Without a probe's named memory, the memories the run read first are the evidence to cite.
    const s = suggestExpectations(
      {
        status: "done",
        flags: ["ungrounded"],
        citations: none,
        llmCalls: 2,
        retrieved: [
          { id: "D2:9", tier: "raw_facts", rank: 7 },
          { id: "D2:4", tier: "raw_facts", rank: 2 },
        ],
      },
      null,
    );
    expect(s.suggested.mustCiteAny).toEqual(["D2:4"]);
  });
});
