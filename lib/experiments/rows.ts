/** An experiment's rows and totals from its suite questions and their runs. Pure. */
import type { ExperimentRow, ExperimentTotals, RowScores, Scorecard, ScoreLine } from "@/lib/contracts/experiments";
import type { SuiteQuestion } from "@/lib/contracts/suites";
import { containsAnswer } from "./answer-score";
import { abstained, answerF1, citedIds, evaluate, type RunOutcome } from "./evaluate";

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
    tags: [...(question.tags ?? [])],
    runId: run?.id ?? null,
    judgeRunId: run?.judgement?.runId ?? null,
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
      scores: null,
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
    scores: scoresOf(question, run),
  };
}

/** Run endings whose text is not an answer: they score 0 and contain nothing. */
const NOT_AN_ANSWER = new Set(["failed", "interrupted", "degraded"]);

/** What a finished run scored (see RowScores). */
export function scoresOf(question: SuiteQuestion, run: RunOutcome): RowScores {
  const expect = question.expect ?? {};
  const answered = !NOT_AN_ANSWER.has(run.status);
  const text = answered ? (run.answer ?? "") : "";
  const gold = expect.answer;
  const goldParts = gold === undefined ? [] : typeof gold === "string" ? [gold] : gold;
  const evidence = [...(expect.mustCite ?? []), ...(expect.mustCiteAny ?? [])];
  const cited = new Set(citedIds(run.citations));
  const retrieved = new Set((run.retrieved ?? []).map((r) => r.id));
  return {
    f1: gold === undefined ? null : answered ? answerF1(text, gold) : 0,
    goldContained: gold === undefined ? null : answered && goldParts.every((g) => containsAnswer(text, g)),
    evidenceRetrieved: evidence.length === 0 || !run.retrieved ? null : evidence.some((id) => retrieved.has(id)),
    evidenceCited: evidence.length === 0 ? null : evidence.some((id) => cited.has(id)),
    abstained: answered && abstained(run.answer, cited),
  };
}

/** The nearest-rank percentile of `xs` (p in 0–100); null when empty. */
function percentile(xs: readonly number[], p: number): number | null {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? null;
}

function rate(values: readonly (boolean | null)[]): number | null {
  const known = values.filter((v): v is boolean => v !== null);
  return known.length ? known.filter(Boolean).length / known.length : null;
}

function mean(values: readonly (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length ? known.reduce((a, b) => a + b, 0) / known.length : null;
}

/** A judge run makes exactly one model call (lib/server/judge.ts), whether or not its reply could be read. */
const judgeCallsOf = (rows: readonly ExperimentRow[]) => rows.filter((r) => r.judgeRunId !== null).length;

function lineOf(tag: string | null, rows: readonly ExperimentRow[]): ScoreLine {
  const done = rows.filter((r) => r.passed !== null);
  const scores = done.map((r) => r.scores).filter((s): s is RowScores => s !== null);
  const passed = done.filter((r) => r.passed).length;
  const latencies = done.map((r) => r.durationMs).filter((d): d is number => d !== null);
  return {
    tag,
    questions: rows.length,
    finished: done.length,
    passed,
    passRate: done.length ? passed / done.length : null,
    meanF1: mean(scores.map((s) => s.f1)),
    goldContained: rate(scores.map((s) => s.goldContained)),
    evidenceRetrieved: rate(scores.map((s) => s.evidenceRetrieved)),
    evidenceCited: rate(scores.map((s) => s.evidenceCited)),
    abstention: rate(scores.map((s) => s.abstained)),
    llmCalls: rows.reduce((n, r) => n + r.llmCalls, 0),
    judgeCalls: judgeCallsOf(rows),
    latencyP50Ms: percentile(latencies, 50),
    latencyP95Ms: percentile(latencies, 95),
  };
}

/** The scorecard: one line overall and one per tag (sorted), each question counted under each of its tags. */
export function scorecardOf(rows: readonly ExperimentRow[]): Scorecard {
  const tags = [...new Set(rows.flatMap((r) => r.tags))].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  return {
    overall: lineOf(null, rows),
    byTag: tags.map((t) =>
      lineOf(
        t,
        rows.filter((r) => r.tags.includes(t)),
      ),
    ),
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
    judgeCalls: judgeCallsOf(rows),
    tokens: rows.reduce((n, r) => n + r.inputTokens + r.outputTokens, 0),
    flags,
  };
}
