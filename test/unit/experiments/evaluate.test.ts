import { describe, expect, it } from "vitest";
import type { ExperimentRow } from "@/lib/contracts/experiments";
import { compareExperiments, comparisonCounts, notCompared, outcomeRank } from "@/lib/experiments/compare";
import { evaluate, type RunOutcome } from "@/lib/experiments/evaluate";
import { parseSuiteJsonl, toSuiteJsonl } from "@/lib/experiments/jsonl";
import { buildRow, totalsOf } from "@/lib/experiments/rows";

const run = (over: Partial<RunOutcome> = {}): RunOutcome => ({
  status: "done",
  answer: "The launch moved to March 3 [fact_1].",
  citations: { mental_model_ids: [], observation_ids: ["obs_2"], memory_ids: ["fact_1"] },
  llmCalls: 3,
  flags: [],
  ...over,
});

describe("evaluate", () => {
  it("passes a run that meets every expectation and lists each as met", () => {
    const v = evaluate(
      {
        expect: {
          status: ["done", "degraded"],
          mustCite: ["fact_1", "obs_2"],
          mustNotCite: ["fact_9"],
          contains: ["MARCH 3"],
          notContains: ["nothing found"],
          maxLlmCalls: 3,
        },
      },
      run(),
    );
    expect(v.passed).toBe(true);
    expect(v.failures).toEqual([]);
    expect(v.checked.map((c) => c.expectation)).toEqual([
      "status",
      "mustCite",
      "mustNotCite",
      "contains",
      "notContains",
      "maxLlmCalls",
    ]);
    expect(v.checked.every((c) => c.met)).toBe(true);
  });

  it("names each failed expectation with what the run did", () => {
    const v = evaluate(
      {
        expect: {
          status: ["done"],
          mustCite: ["fact_1", "fact_7"],
          mustNotCite: ["obs_2"],
          contains: ["april"],
          notContains: ["launch"],
          maxLlmCalls: 2,
        },
      },
      run({ status: "degraded" }),
    );
    expect(v.passed).toBe(false);
    expect(v.failures).toEqual([
      { expectation: "status", detail: "status is degraded, expected done" },
      { expectation: "mustCite", detail: 'did not cite "fact_7"' },
      { expectation: "mustNotCite", detail: 'cited "obs_2"' },
      { expectation: "contains", detail: 'the answer does not contain "april"' },
      { expectation: "notContains", detail: 'the answer contains "launch"' },
      { expectation: "maxLlmCalls", detail: "3 LLM calls, at most 2 expected" },
    ]);
  });

  it("a question without expectations passes when its run ends; a null answer or citations count as empty", () => {
    expect(evaluate({}, run({ status: "no_evidence" })).passed).toBe(true);
    // A run that broke fails its question unless a status expectation names that ending.
    for (const status of ["failed", "interrupted"] as const) {
      const broken = evaluate({ expect: { contains: [] } }, run({ status }));
      expect(broken.passed, status).toBe(false);
      expect(broken.failures[0]).toMatchObject({ expectation: "status" });
      expect(evaluate({ expect: { status: [status] } }, run({ status })).passed).toBe(true);
    }
    const v = evaluate({ expect: { mustCite: ["fact_1"], contains: ["x"] } }, run({ answer: null, citations: null }));
    expect(v.failures.map((f) => f.expectation)).toEqual(["mustCite", "contains"]);
  });
});

const row = (over: Partial<ExperimentRow> = {}): ExperimentRow => ({
  ...buildRow(
    0,
    { question: "When is the launch?", expect: { status: ["done"], mustCite: ["fact_1"] } },
    {
      ...run(),
      id: "run_a",
      inputTokens: 10,
      outputTokens: 5,
      durationMs: 12,
    },
  ),
  ...over,
});

describe("outcome order", () => {
  it("ranks done > degraded > ungrounded = no_evidence > halted > interrupted > failed", () => {
    const r = (status: ExperimentRow["status"], flags: string[] = []) => outcomeRank({ status, flags });
    expect(r("done")).toBeGreaterThan(r("degraded"));
    expect(r("degraded")).toBeGreaterThan(r("done", ["ungrounded"]));
    expect(r("done", ["ungrounded"])).toBe(r("no_evidence"));
    expect(r("no_evidence")).toBeGreaterThan(r("halted"));
    expect(r("halted")).toBeGreaterThan(r("interrupted"));
    expect(r("interrupted")).toBeGreaterThan(r("failed"));
  });
});

describe("compareExperiments", () => {
  it("counts a question in one experiment only as added or removed, never unchanged", () => {
    const other = row({ question: "Something else?" });
    const counts = comparisonCounts(compareExperiments([row()], [other]));
    expect(counts).toEqual({ regressed: 0, improved: 0, unchanged: 0, notCompared: 0, added: 1, removed: 1 });
    expect(comparisonCounts(compareExperiments([row()], [row()]))).toMatchObject({ unchanged: 1, added: 0 });
  });

  it("a question the head skipped (cancelled experiment) is not compared, not counted unchanged", () => {
    const skipped = buildRow(0, { question: "When is the launch?", expect: { status: ["done"] } }, null, true);
    expect(skipped.status).toBe("skipped");
    const questions = compareExperiments([row()], [skipped]);
    expect(comparisonCounts(questions)).toMatchObject({ regressed: 0, improved: 0, unchanged: 0, notCompared: 1 });
    const [first] = questions;
    expect(first && notCompared(first)).toBe("head skipped (never ran)");
    const [same] = compareExperiments([row()], [row()]);
    expect(same && notCompared(same)).toBeNull();
  });

  it("flags a regression for a newly failed expectation, a worse status, a lost citation and more LLM calls", () => {
    const worse = buildRow(
      0,
      { question: "When is the launch?", expect: { status: ["done"], mustCite: ["fact_1"] } },
      {
        ...run({
          status: "no_evidence",
          citations: { mental_model_ids: [], observation_ids: [], memory_ids: [] },
          llmCalls: 5,
        }),
        id: "run_b",
        inputTokens: 1,
        outputTokens: 1,
        durationMs: 1,
      },
    );
    const [q] = compareExperiments([row()], [worse]);
    expect(q?.regression).toBe(true);
    expect(q?.improvement).toBe(false);
    expect(q?.regressions.map((c) => c.kind)).toEqual([
      "expectation",
      "expectation",
      "status",
      "citation",
      "llm_calls",
    ]);
    expect(q?.regressions.find((c) => c.kind === "citation")?.detail).toContain("fact_1");
    expect(q?.regressions.find((c) => c.kind === "status")?.detail).toBe("done → no_evidence");
    // The mirror image is an improvement on every count.
    const [back] = compareExperiments([worse], [row()]);
    expect(back?.regression).toBe(false);
    expect(back?.improvements.map((c) => c.kind)).toEqual([
      "expectation",
      "expectation",
      "status",
      "citation",
      "llm_calls",
    ]);
  });

  it("identical rows are neither; a done run newly flagged ungrounded is a worse status", () => {
    expect(compareExperiments([row()], [row({ runId: "run_x" })])[0]).toMatchObject({
      regression: false,
      improvement: false,
    });
    const [q] = compareExperiments([row()], [row({ flags: ["ungrounded"] })]);
    expect(q?.regressions).toEqual([{ kind: "status", detail: "done → ungrounded" }]);
  });

  it("aligns by question and skill, whatever the order; unmatched questions are neither", () => {
    const a = row({ question: "A?" });
    const b = row({ question: "B?", llmCalls: 2 });
    const out = compareExperiments([a, b], [row({ question: "B?", llmCalls: 4 }), row({ question: "C?" })]);
    expect(out.map((q) => [q.question, q.base?.question ?? null, q.head?.question ?? null, q.regression])).toEqual([
      ["B?", "B?", "B?", true],
      ["C?", null, "C?", false],
      ["A?", "A?", null, false],
    ]);
  });

  it("a pending or running side is not compared yet", () => {
    const pending = buildRow(0, { question: "When is the launch?" }, null);
    expect(pending.status).toBe("pending");
    expect(compareExperiments([row()], [pending])[0]).toMatchObject({ regression: false, improvement: false });
  });
});

describe("totals", () => {
  it("counts passed, failed, pending and every flag generically", () => {
    const rows = [
      row(),
      row({ passed: false, flags: ["missed_evidence", "nudged"] }),
      row({ flags: ["missed_evidence"] }),
      buildRow(3, { question: "later" }, null),
    ];
    const t = totalsOf(rows);
    expect(t).toMatchObject({ questions: 4, finished: 3, passed: 2, failed: 1 });
    expect(t.passRate).toBeCloseTo(2 / 3);
    expect(t.flags).toEqual({ missed_evidence: 2, nudged: 1 });
  });
});

describe("suite JSONL", () => {
  it("round-trips questions and skips blank lines", () => {
    const text = `${JSON.stringify({ question: "A?", skill: "recap", expect: { status: ["done"] } })}\n\n${JSON.stringify({ question: "B?", budget: "low" })}\n`;
    const qs = parseSuiteJsonl(text);
    expect(qs).toHaveLength(2);
    expect(parseSuiteJsonl(toSuiteJsonl(qs))).toEqual(qs);
  });

  it.each([
    ['{"question":"A?"}\n{"question":"B?",\n', /^line 2: not JSON/],
    ['{"question":"A?"}\n\n{"question":"B?","expect":{"status":["great"]}}\n', /^line 3: expect\.status\.0:/],
    ['{"question":"A?","colour":"red"}\n', /^line 1: .*colour/],
    ['{"question":"  "}\n', /^line 1: question: ask a question/],
    ['{"question":"A?","expect":{"maxLlmCalls":-1}}\n', /^line 1: expect\.maxLlmCalls/],
    ['{"question":"A?"}\n{"question":"a\\u0000b"}\n', /^line 2: question: contains a NUL/],
    ['{"question":"A?","expect":{"contains":["x\\ud800"]}}\n', /^line 1: expect\.contains.*lone surrogate/],
  ])("refuses %j naming the line", (text, message) => {
    expect(() => parseSuiteJsonl(text)).toThrow(message);
  });
});
