/**
 * Compares two experiments question by question (docs/experiments.md). Pure.
 *
 * A **regression** is any of: an expectation that passed in the base and fails in the head; a
 * worse outcome (the order below); an id the base cited that the head does not; more LLM calls.
 * An **improvement** is the mirror: an expectation newly met, a better outcome, an id the head
 * cites that the base did not, fewer LLM calls. One question can be both (a citation swapped).
 *
 * Outcome order, best first: `done` > `degraded` > `ungrounded` (a done run flagged ungrounded) =
 * `no_evidence` > `halted` > `interrupted` > `failed` (> `running`, not an outcome yet).
 *
 * Questions are aligned by their text and skill (the n-th occurrence with the n-th), so a suite
 * edited between the two experiments still lines up; a question in only one side is reported
 * as added or removed, neither regression nor improvement.
 */
import type { Change, ExperimentRow, QuestionComparison } from "@/lib/contracts/experiments";

const OUTCOME_RANK: Record<string, number> = {
  done: 6,
  degraded: 5,
  ungrounded: 4,
  no_evidence: 4,
  halted: 3,
  interrupted: 2,
  failed: 1,
  running: 0,
  pending: 0,
  skipped: 0,
};

/** The outcome the order ranks: the status, except a done run flagged `ungrounded`. */
export function outcomeOf(row: Pick<ExperimentRow, "status" | "flags">): string {
  return row.status === "done" && row.flags.includes("ungrounded") ? "ungrounded" : row.status;
}

/** Higher is better; see the order above. */
export function outcomeRank(row: Pick<ExperimentRow, "status" | "flags">): number {
  return OUTCOME_RANK[outcomeOf(row)] ?? 0;
}

function changes(base: ExperimentRow, head: ExperimentRow): { regressions: Change[]; improvements: Change[] } {
  const regressions: Change[] = [];
  const improvements: Change[] = [];
  const metIn = (row: ExperimentRow) => new Map(row.expectations.map((e) => [e.expectation, e.met]));
  const baseMet = metIn(base);
  const headMet = metIn(head);
  const failureOf = (row: ExperimentRow, key: string) => row.failures.find((f) => f.expectation === key)?.detail;
  for (const [key, met] of headMet) {
    const before = baseMet.get(key);
    if (before === true && met === false) {
      regressions.push({ kind: "expectation", detail: `${key} newly failed: ${failureOf(head, key) ?? ""}`.trim() });
    } else if (before === false && met === true) {
      improvements.push({ kind: "expectation", detail: `${key} newly met` });
    }
  }
  const [b, h] = [outcomeRank(base), outcomeRank(head)];
  if (h < b) regressions.push({ kind: "status", detail: `${outcomeOf(base)} → ${outcomeOf(head)}` });
  if (h > b) improvements.push({ kind: "status", detail: `${outcomeOf(base)} → ${outcomeOf(head)}` });
  const headCites = new Set(head.citations);
  const baseCites = new Set(base.citations);
  const lost = base.citations.filter((id) => !headCites.has(id));
  const gained = head.citations.filter((id) => !baseCites.has(id));
  if (lost.length) regressions.push({ kind: "citation", detail: `no longer cites ${lost.join(", ")}` });
  if (gained.length) improvements.push({ kind: "citation", detail: `now also cites ${gained.join(", ")}` });
  if (head.llmCalls > base.llmCalls) {
    regressions.push({ kind: "llm_calls", detail: `${base.llmCalls} → ${head.llmCalls} LLM calls` });
  }
  if (head.llmCalls < base.llmCalls) {
    improvements.push({ kind: "llm_calls", detail: `${base.llmCalls} → ${head.llmCalls} LLM calls` });
  }
  return { regressions, improvements };
}

const keyOf = (row: Pick<ExperimentRow, "question" | "skill">) => `${row.skill ?? ""}\u0000${row.question}`;

/** Rows whose run has finished compare; a pending, running or skipped side is neither better nor worse. */
const finished = (row: ExperimentRow) => row.passed !== null;

/** Why an aligned question was not compared ("head skipped (never ran)"), or null when it was. */
export function notCompared(q: Pick<QuestionComparison, "base" | "head">): string | null {
  if (!q.base || !q.head) return null;
  const sides = [
    ["base", q.base],
    ["head", q.head],
  ] as const;
  const open = sides.filter(([, row]) => !finished(row));
  if (open.length === 0) return null;
  return open
    .map(([side, row]) => `${side} ${row.status === "skipped" ? "skipped (never ran)" : `${row.status}, not finished`}`)
    .join("; ");
}

export function compareExperiments(
  base: readonly ExperimentRow[],
  head: readonly ExperimentRow[],
): QuestionComparison[] {
  const pool = new Map<string, ExperimentRow[]>();
  for (const row of base) {
    const k = keyOf(row);
    pool.set(k, [...(pool.get(k) ?? []), row]);
  }
  const out: QuestionComparison[] = [];
  for (const h of head) {
    const b = pool.get(keyOf(h))?.shift() ?? null;
    const diff =
      b && finished(b) && finished(h) ? changes(b, h) : { regressions: [] as Change[], improvements: [] as Change[] };
    out.push({
      question: h.question,
      skill: h.skill,
      base: b,
      head: h,
      regression: diff.regressions.length > 0,
      improvement: diff.improvements.length > 0,
      ...diff,
    });
  }
  for (const rest of pool.values()) {
    for (const b of rest) {
      out.push({
        question: b.question,
        skill: b.skill,
        base: b,
        head: null,
        regression: false,
        improvement: false,
        regressions: [],
        improvements: [],
      });
    }
  }
  return out;
}

/**
 * The headline counts of a comparison. Only aligned questions can be unchanged: a question in one
 * experiment only is added or removed, never "unchanged" (two experiments of different suite
 * versions share fewer questions).
 */
export function comparisonCounts(questions: readonly QuestionComparison[]) {
  const aligned = questions.filter((q) => q.base && q.head);
  // A side that never finished (skipped by a cancelled experiment, still pending or running) was not
  // compared: it is neither a change nor "unchanged".
  const compared = aligned.filter((q) => !notCompared(q));
  return {
    regressed: aligned.filter((q) => q.regression).length,
    improved: aligned.filter((q) => q.improvement).length,
    unchanged: compared.filter((q) => !q.regression && !q.improvement).length,
    notCompared: aligned.length - compared.length,
    added: questions.filter((q) => !q.base).length,
    removed: questions.filter((q) => !q.head).length,
  };
}
