import { describe, expect, it } from "vitest";
import { runReflect } from "@/lib/reflect/engine";
import type { ReflectResult } from "@/lib/reflect/request";
import { harness, request } from "./harness";
import { SCENARIOS, type ScenarioName } from "./scenarios";

const EXPECTED: { scenario: ScenarioName; label: string; llmCalls: number; status: ReflectResult["status"] }[] = [
  { scenario: "fresh", label: "fresh mental model", llmCalls: 2, status: "done" },
  { scenario: "stale", label: "stale mental model", llmCalls: 4, status: "done" },
  { scenario: "noModels", label: "no mental models", llmCalls: 3, status: "done" },
  { scenario: "emptyBank", label: "empty bank", llmCalls: 0, status: "no_evidence" },
  { scenario: "facts", label: "facts mode", llmCalls: 0, status: "done" },
];

describe("LLM calls per scenario (low budget)", () => {
  it("matches the expected counts", async () => {
    const rows: { scenario: string; status: string; llmCalls: number; modelRequests: number }[] = [];
    for (const { scenario, label } of EXPECTED) {
      const { memory, model, overrides } = SCENARIOS[scenario]();
      const result = await runReflect(harness(memory, model).deps, request(overrides));
      rows.push({ scenario: label, status: result.status, llmCalls: result.llmCalls, modelRequests: model.calls });
      // Every request the model port received is counted in the result (issue 27).
      expect(result.modelRequests).toBe(model.calls);
    }
    console.log(
      [
        "| scenario | status | LLM calls |",
        "|---|---|---|",
        ...rows.map((r) => `| ${r.scenario} | ${r.status} | ${r.llmCalls} |`),
      ].join("\n"),
    );
    expect(rows).toEqual(
      EXPECTED.map((e) => ({ scenario: e.label, status: e.status, llmCalls: e.llmCalls, modelRequests: e.llmCalls })),
    );
  });
});
