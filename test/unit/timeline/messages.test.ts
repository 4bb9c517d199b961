import { describe, expect, it } from "vitest";
import { modelCalls } from "@/lib/timeline/messages";
import { degradedRun, haltedRun, NUDGE_TEXT, noEvidenceRun } from "@/test/fixtures/timeline/scenarios";

describe("messages view", () => {
  it("pairs every request with its response, one entry per model call", () => {
    const calls = modelCalls(haltedRun());
    expect(calls.map((c) => c.iteration)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(calls.every((c) => c.response !== null && c.requestSeq !== null)).toBe(true);
    expect(calls[0]).toMatchObject({ toolChoice: { type: "forced", tool: "search_observations" } });
  });

  it("marks request-scoped injections on exactly the injected messages", () => {
    const call = modelCalls(haltedRun())[4]!;
    const marked = call.messages.filter((m) => m.injection !== null);
    expect(marked.map((m) => [m.index, m.injection, m.role])).toEqual([
      [2, "nudge", "system"],
      [3, "anchor", "system"],
    ]);
    expect(marked[0]!.content).toBe(NUDGE_TEXT);
    expect(call.messages.filter((m) => m.injection === null).map((m) => m.role)).toEqual(["system", "user"]);
  });

  it("keeps the raw response including every tool call", () => {
    const call = modelCalls(degradedRun())[1]!;
    expect(call.response?.toolCalls.map((c) => c.name)).toEqual(["done", "recall"]);
  });

  it("has no calls for a run that never reached the model", () => {
    expect(modelCalls(noEvidenceRun())).toEqual([]);
  });
});
