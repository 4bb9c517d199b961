/** An experiment's rows and totals from its suite questions and their runs. Pure. */
import type { ExperimentRow, ExperimentTotals } from "@/lib/contracts/experiments";
import type { SuiteQuestion } from "@/lib/contracts/suites";
import { citedIds, evaluate, type RunOutcome } from "./evaluate";

/** What a row reads of the question's run (null: not started). */
export interface RowRun extends RunOutcome {
  id: string;
  inputTokens: number;
  outputTokens: number;
  durationMs: number | null;
}

/** `ended`: the experiment is over, so a question with no run never will have one (skipped). */
export function buildRow(index: number, question: SuiteQuestion, run: RowRun | null, ended = false): ExperimentRow {
  const keys = Object.keys(question.expect ?? {}) as ExperimentRow["expectations"][number]["expectation"][];
  const base = {
    index,
    question: question.question,
    skill: question.skill ?? null,
    runId: run?.id ?? null,
  };
  if (!run || run.status === "running") {
    return {
      ...base,
      status: run ? "running" : ended ? "skipped" : "pending",
      llmCalls: run?.llmCalls ?? 0,
      inputTokens: run?.inputTokens ?? 0,
      outputTokens: run?.outputTokens ?? 0,
      durationMs: null,
      citations: [],
      flags: [...(run?.flags ?? [])],
      passed: null,
      failures: [],
      expectations: keys.map((expectation) => ({ expectation, met: null })),
    };
  }
  const verdict = evaluate(question, run);
  return {
    ...base,
    status: run.status,
    llmCalls: run.llmCalls,
    inputTokens: run.inputTokens,
    outputTokens: run.outputTokens,
    durationMs: run.durationMs,
    citations: citedIds(run.citations),
    flags: [...run.flags],
    passed: verdict.passed,
    failures: verdict.failures,
    expectations: verdict.checked,
  };
}

export function totalsOf(rows: readonly ExperimentRow[]): ExperimentTotals {
  const done = rows.filter((r) => r.passed !== null);
  const passed = done.filter((r) => r.passed).length;
  const flags: Record<string, number> = {};
  for (const r of rows) for (const f of r.flags) flags[f] = (flags[f] ?? 0) + 1;
  return {
    questions: rows.length,
    finished: done.length,
    passed,
    failed: done.length - passed,
    skipped: rows.filter((r) => r.status === "skipped").length,
    passRate: done.length ? passed / done.length : null,
    llmCalls: rows.reduce((n, r) => n + r.llmCalls, 0),
    tokens: rows.reduce((n, r) => n + r.inputTokens + r.outputTokens, 0),
    flags,
  };
}
