import { describe, expect, it } from "vitest";
import { type ExperimentRow, ExperimentTotals, Scorecard } from "@/lib/contracts/experiments";
import type { SuiteQuestion } from "@/lib/contracts/suites";
import { compareExperiments, comparisonCounts, configDiff } from "@/lib/experiments/compare";
import type { RunOutcome } from "@/lib/experiments/evaluate";
import { buildRow, type RowRun, scorecardOf, totalsOf } from "@/lib/experiments/rows";

const cites = (...ids: string[]) => ({ mental_model_ids: [], observation_ids: [], memory_ids: ids });
const rowRun = (over: Partial<RunOutcome & RowRun> = {}): RowRun => ({
  id: "run_x",
  status: "done",
  answer: "7 May 2023 [D1:3]",
  citations: cites("D1:3"),
  llmCalls: 2,
  flags: [],
  inputTokens: 1,
  outputTokens: 1,
  durationMs: 100,
  retrieved: [{ id: "D1:3", tier: "raw_facts", rank: 1 }],
  ...over,
});
const q = (over: Partial<SuiteQuestion> = {}): SuiteQuestion => ({
  question: "When did Caroline go to the support group?",
  tags: ["temporal"],
  expect: { answer: "7 May 2023", minF1: 0.5, containsAnswer: true, mustCiteAny: ["D1:3", "D1:4"] },
  ...over,
});

describe("scorecard", () => {
  it("scores each finished row and aggregates per tag and overall", () => {
    const rows = [
      buildRow(0, q(), rowRun({ durationMs: 100 })),
      // A miss: cites nothing, the evidence was read at rank 3, the answer declines.
      buildRow(
        1,
        q(),
        rowRun({
          answer: "It is not mentioned in the memory.",
          citations: cites(),
          retrieved: [{ id: "D1:4", tier: "raw_facts", rank: 3 }],
          durationMs: 300,
          llmCalls: 4,
        }),
      ),
      buildRow(2, q({ tags: ["single-hop"], expect: { answer: "Sweden" } }), rowRun({ answer: "Sweden [D1:3]" })),
      buildRow(3, q({ tags: ["single-hop"] }), null),
    ];
    expect(rows[0]?.scores).toEqual({
      f1: 1,
      goldContained: true,
      evidenceRetrieved: true,
      evidenceCited: true,
      abstained: false,
    });
    expect(rows[1]?.scores).toMatchObject({ f1: 0, evidenceRetrieved: true, evidenceCited: false, abstained: true });
    expect(rows[1]?.failures.find((f) => f.expectation === "mustCiteAny")?.detail).toBe(
      "none of D1:3, D1:4 cited; D1:4 was retrieved at rank 3",
    );
    const card = scorecardOf(rows);
    expect(card.byTag.map((l) => l.tag)).toEqual(["single-hop", "temporal"]);
    const temporal = card.byTag[1];
    expect(temporal).toMatchObject({
      questions: 2,
      finished: 2,
      passed: 1,
      passRate: 0.5,
      meanF1: 0.5,
      goldContained: 0.5,
      evidenceRetrieved: 1,
      evidenceCited: 0.5,
      abstention: 0.5,
      llmCalls: 6,
      latencyP50Ms: 100,
      latencyP95Ms: 300,
    });
    expect(card.byTag[0]).toMatchObject({ questions: 2, finished: 1, evidenceRetrieved: null, meanF1: 1 });
    expect(card.overall).toMatchObject({ tag: null, questions: 4, finished: 3, passed: 2 });
  });

  it("counts the judge's calls apart from the runs' own, one per judged question", () => {
    const judged = buildRow(0, q(), {
      ...rowRun({ llmCalls: 3 }),
      judgement: { correct: true, reason: "", runId: "run_judge" },
    });
    const plain = buildRow(1, q(), rowRun({ llmCalls: 2 }));
    const card = scorecardOf([judged, plain]);
    expect(card.overall).toMatchObject({ llmCalls: 5, judgeCalls: 1 });
    expect(totalsOf([judged, plain])).toMatchObject({ llmCalls: 5, judgeCalls: 1 });
  });

  it("a degraded run's digest scores 0 and contains nothing, even when it quotes the answer", () => {
    const r = buildRow(0, q(), rowRun({ status: "degraded" }));
    expect(r.scores).toMatchObject({ f1: 0, goldContained: false, evidenceCited: true, abstained: false });
    expect(r.passed).toBe(false);
  });
});

describe("compare: one verdict per question", () => {
  const base = (over: Partial<RowRun> = {}, question = q()): ExperimentRow =>
    buildRow(0, question, rowRun({ id: "run_base", ...over }));

  it("a better status is never a regression, even when citations were lost and calls rose", () => {
    const degraded = base({ status: "degraded", citations: cites("D1:3", "D1:9", "D2:1"), llmCalls: 1 });
    const done = base({ citations: cites("D1:3"), llmCalls: 3 });
    const [c] = compareExperiments([degraded], [done]);
    expect(c).toMatchObject({ regression: false, improvement: true });
    expect(c?.reason).toMatch(/^improved: .*degraded → done.*; but no longer cites D1:9, D2:1; 1 → 3 LLM calls$/);
    expect(comparisonCounts([c!])).toMatchObject({ regressed: 0, improved: 1 });
  });

  it("a citation swapped with the expectations unchanged is one regression, and the reason names both changes", () => {
    const [c] = compareExperiments(
      [base({ citations: cites("D1:3", "D1:5") })],
      [base({ citations: cites("D1:3", "D1:6") })],
    );
    expect(c).toMatchObject({ regression: true, improvement: false });
    expect(c?.reason).toBe("regressed: no longer cites D1:5; but now also cites D1:6");
  });

  it("passing decides before individual expectations: failed → passed is an improvement whatever else moved", () => {
    const question = q({ expect: { mustCiteAny: ["D1:3"], maxLlmCalls: 3 } });
    const before = base({ citations: cites("D1:9"), llmCalls: 2 }, question);
    const after = base({ citations: cites("D1:3"), llmCalls: 3 }, question);
    expect(before.passed).toBe(false);
    const [c] = compareExperiments([before], [after]);
    expect(c).toMatchObject({ regression: false, improvement: true });
    expect(c?.reason).toContain("mustCiteAny newly met");
    expect(c?.reason).toContain("2 → 3 LLM calls");
  });
});

describe("configuration difference", () => {
  const setup = (over: Partial<Parameters<typeof configDiff>[0]> = {}): Parameters<typeof configDiff>[0] => ({
    config: { mentalModels: [], model: { kind: "offline", name: "offline" }, draft: false },
    skillVersions: ["qa v2"],
    suiteVersion: 1,
    ...over,
  });

  it("is empty for the same configuration and names each difference otherwise", () => {
    expect(configDiff(setup(), setup())).toEqual([]);
    const head = setup({
      config: {
        mentalModels: [{ id: "mm-1", content: "new text", staleOverride: "fresh" }],
        model: { kind: "openai", name: "gpt-x" },
        draft: true,
        skill: { name: "qa", version: 1, mission: "Answer briefly." },
        budget: "high",
      },
      skillVersions: ["qa v1 (draft)"],
      suiteVersion: 2,
    });
    expect(configDiff(setup(), head)).toEqual([
      { what: "model", base: "offline (offline)", head: "gpt-x (openai)" },
      { what: "skill versions", base: "qa v2", head: "qa v1 (draft)" },
      { what: "skill draft", base: "none", head: "qa: unsaved mission" },
      { what: "mental-model drafts", base: "none", head: "mm-1 edited marked fresh" },
      { what: "budget", base: "each question's", head: "high" },
      { what: "suite version", base: "v1", head: "v2" },
    ]);
  });
});

describe("scorecards and totals written before judge calls were counted", () => {
  it("still parse, with no judge calls", () => {
    const plain = buildRow(0, q(), rowRun({ llmCalls: 2 }));
    const strip = <T extends object>(o: T) =>
      JSON.parse(JSON.stringify(o, (k, v) => (k === "judgeCalls" ? undefined : v)));
    const oldTotals = strip(totalsOf([plain]));
    const oldCard = strip(scorecardOf([plain]));
    expect(JSON.stringify(oldTotals)).not.toContain("judgeCalls");
    expect(ExperimentTotals.parse(oldTotals)).toMatchObject({ llmCalls: 2, judgeCalls: 0 });
    expect(Scorecard.parse(oldCard).overall).toMatchObject({ llmCalls: 2, judgeCalls: 0 });
  });
});
