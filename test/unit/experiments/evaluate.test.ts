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
      run({ status: "halted" }),
    );
    expect(v.passed).toBe(false);
    expect(v.failures).toEqual([
      { expectation: "status", detail: "status is halted, expected done" },
      { expectation: "mustCite", detail: 'did not cite "fact_7"' },
      { expectation: "mustNotCite", detail: 'cited "obs_2"' },
      { expectation: "contains", detail: 'the answer does not contain "april"' },
      { expectation: "notContains", detail: 'the answer contains "launch"' },
      { expectation: "maxLlmCalls", detail: "3 LLM calls, at most 2 expected" },
    ]);
  });

  it("a question without expectations passes when its run ends; a null answer or citations count as empty", () => {
    expect(evaluate({}, run({ status: "no_evidence" })).passed).toBe(true);
    // A run that broke or answered with a digest fails its question unless a status expectation names that ending.
    for (const status of ["failed", "interrupted", "degraded"] as const) {
      const broken = evaluate({ expect: { contains: [] } }, run({ status }));
      expect(broken.passed, status).toBe(false);
      expect(broken.failures[0]).toMatchObject({ expectation: "status" });
      expect(evaluate({ expect: { status: [status] } }, run({ status })).passed).toBe(true);
    }
    const v = evaluate({ expect: { mustCite: ["fact_1"], contains: ["x"] } }, run({ answer: null, citations: null }));
    expect(v.failures.map((f) => f.expectation)).toEqual(["mustCite", "contains"]);
  });
});

describe("benchmark expectations", () => {
  const answered = (answer: string, memory_ids: string[] = ["D1:3"]) =>
    run({ answer, citations: { mental_model_ids: [], observation_ids: [], memory_ids } });

  it("mustCiteAny: one of the evidence ids is enough; unmet, it says where the evidence was retrieved", () => {
    expect(evaluate({ expect: { mustCiteAny: ["D1:3", "D9:9"] } }, answered("x")).passed).toBe(true);
    const v = evaluate(
      { expect: { mustCiteAny: ["D4:15", "D4:16"] } },
      { ...answered("x"), retrieved: [{ id: "D4:15", tier: "raw_facts", rank: 3 }] },
    );
    expect(v.failures).toEqual([
      { expectation: "mustCiteAny", detail: "none of D4:15, D4:16 cited; D4:15 was retrieved at rank 3" },
    ]);
    expect(
      evaluate({ expect: { mustCiteAny: ["D4:15"] } }, { ...answered("x"), retrieved: [] }).failures[0]?.detail,
    ).toBe("none of D4:15 cited; it was never retrieved");
  });

  it("minF1 scores the first line as LoCoMo does; a date written another way still contains the answer", () => {
    const q = { expect: { answer: "7 May 2023", minF1: 0.8, containsAnswer: true } };
    expect(evaluate(q, answered("7 May 2023\n- Caroline: I went yesterday [D1:3]")).passed).toBe(true);
    const other = evaluate(q, answered("May 7, 2023 — the day before the talk [D1:3]"));
    expect(other.checked).toEqual([
      { expectation: "minF1", met: false },
      { expectation: "containsAnswer", met: true },
    ]);
    expect(other.failures[0]?.detail).toMatch(
      /^F1 0\.\d\d of the first line "May 7, 2023 — the day before the talk" against "7 May 2023", at least 0\.8 expected$/,
    );
  });

  it("a multi-part gold answer is scored part by part", () => {
    const q = { expect: { answer: ["Sweden", "Norway"], minF1: 0.9, containsAnswer: true } };
    expect(evaluate(q, answered("Norway, Sweden")).passed).toBe(true);
    const half = evaluate(q, answered("Sweden"));
    expect(half.failures.map((f) => f.detail)).toEqual([
      'F1 0.50 of the first line "Sweden" against "Sweden, Norway", at least 0.9 expected',
      'the answer does not contain "Norway"',
    ]);
  });

  it("abstains: declines and cites nothing; a declined answer that cites something fails", () => {
    const q = { expect: { abstains: true } };
    expect(evaluate(q, answered("Not mentioned in the conversation.", [])).passed).toBe(true);
    expect(evaluate(q, answered("Not mentioned in the conversation. [D1:3]")).failures[0]?.detail).toBe(
      "it declines but cites D1:3",
    );
    expect(evaluate(q, answered("Biscuit [D1:3]")).failures[0]?.detail).toBe(
      "it answers instead of saying the memory does not hold it",
    );
    expect(evaluate({ expect: { abstains: false } }, answered("Not mentioned in the conversation.", [])).passed).toBe(
      false,
    );
  });

  it("a judge without a verdict is not judged, never passed; with one it decides", () => {
    const q = { expect: { answer: "a bakery", judge: true } };
    const unjudged = evaluate(q, answered("At the bakery [D1:3]"));
    expect(unjudged.passed).toBe(false);
    expect(unjudged.checked).toEqual([{ expectation: "judge", met: null }]);
    expect(unjudged.failures[0]?.detail).toMatch(/^not judged: judging needs a real model/);
    const wrong = { correct: false, reason: "names a bank, not a bakery", runId: "run_j" };
    expect(evaluate(q, { ...answered("x"), judgement: wrong }).failures[0]?.detail).toBe(
      "the judge found it wrong: names a bank, not a bakery (judge run run_j)",
    );
    expect(evaluate(q, { ...answered("x"), judgement: { ...wrong, correct: true } }).passed).toBe(true);
  });

  it("a degraded run fails every expectation, even ones its digest happens to meet", () => {
    const q = { expect: { mustCiteAny: ["D1:3"], contains: ["may"] } };
    const v = evaluate(q, run({ status: "degraded", answer: "Digest: 7 May [D1:3]" }));
    expect(v.checked).toEqual([
      { expectation: "status", met: false },
      { expectation: "mustCiteAny", met: false },
      { expectation: "contains", met: false },
    ]);
    expect(v.failures[1]?.detail).toMatch(/^not checked: the run was degraded/);
    // A status expectation that allows the digest checks the rest as usual.
    expect(
      evaluate({ expect: { ...q, status: ["degraded"] } }, run({ status: "degraded", answer: "Digest: 7 May [D1:3]" }))
        .passed,
    ).toBe(true);
  });

  it("refuses an answer-scoring expectation without the gold answer", async () => {
    const { Expectation } = await import("@/lib/contracts/suites");
    expect(Expectation.safeParse({ minF1: 0.5 }).error?.issues[0]?.message).toBe(
      'minF1 needs the gold answer in "answer"',
    );
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
