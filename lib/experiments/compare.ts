/**
 * Compares two experiments question by question (docs/experiments.md). Pure.
 *
 * The changes between two runs of a question: an expectation newly failed or newly met, a worse or
 * better outcome (the order below), ids no longer or newly cited, more or fewer LLM calls. A
 * question is then **either** regressed **or** improved, never both, decided by the first of these
 * that differs: the outcome (a better status is never a regression, whatever else moved); passing
 * the question; its expectations (any newly failed is a regression, else any newly met an
 * improvement); its citations (any lost is a regression); its LLM calls. `reason` lists every
 * change, the deciding ones first.
 *
 * Outcome order, best first: `done` > `degraded` > `ungrounded` (a done run flagged ungrounded) =
 * `no_evidence` > `halted` > `interrupted` > `failed` (> `running`, not an outcome yet).
 *
 * Questions are aligned by their text and skill (the n-th occurrence with the n-th), so a suite
 * edited between the two experiments still lines up; a question in only one side is reported
 * as added or removed, neither regression nor improvement.
 */
import type { Change, ExperimentRow, ExperimentSummary, QuestionComparison } from "@/lib/contracts/experiments";

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

interface Diff {
  regressions: Change[];
  improvements: Change[];
}

function changes(base: ExperimentRow, head: ExperimentRow): Diff {
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

/** Regressed (-1), improved (1) or neither (0): the first criterion that differs decides (file comment). */
function verdictOf(base: ExperimentRow, head: ExperimentRow, diff: Diff): -1 | 0 | 1 {
  const sign = (n: number) => (n > 0 ? 1 : n < 0 ? -1 : 0);
  const byKind = (list: Change[], kind: Change["kind"]) => list.some((c) => c.kind === kind);
  const status = sign(outcomeRank(head) - outcomeRank(base));
  if (status !== 0) return status;
  if (base.passed !== head.passed) return head.passed ? 1 : -1;
  for (const kind of ["expectation", "citation", "llm_calls"] as const) {
    if (byKind(diff.regressions, kind)) return -1;
    if (byKind(diff.improvements, kind)) return 1;
  }
  return 0;
}

/** One line naming every change, the deciding direction first ("regressed: …; also improved: …"). */
export function reasonOf(verdict: -1 | 0 | 1, diff: Diff): string | null {
  if (verdict === 0) return null;
  const [first, other] = verdict < 0 ? [diff.regressions, diff.improvements] : [diff.improvements, diff.regressions];
  const line = (list: Change[]) => list.map((c) => c.detail).join("; ");
  const head = `${verdict < 0 ? "regressed" : "improved"}: ${line(first)}`;
  return other.length ? `${head}; but ${line(other)}` : head;
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
    const compared = b !== null && finished(b) && finished(h);
    const diff = compared ? changes(b, h) : { regressions: [] as Change[], improvements: [] as Change[] };
    const verdict = compared ? verdictOf(b, h, diff) : 0;
    out.push({
      question: h.question,
      skill: h.skill,
      base: b,
      head: h,
      regression: verdict < 0,
      improvement: verdict > 0,
      reason: reasonOf(verdict, diff),
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
        reason: null,
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

/** One line of what differs between two experiments' configurations. */
export interface ConfigChange {
  what: string;
  base: string;
  head: string;
}

type Setup = Pick<ExperimentSummary, "config" | "skillVersions" | "suiteVersion">;

/**
 * What differs between the two experiments' configurations, shown before their rows: the model,
 * the skill versions their runs ran, a skill draft (unsaved mission or disposition), mental-model
 * edits, the budget and the suite version. Empty when they ran the same configuration.
 */
export function configDiff(base: Setup, head: Setup): ConfigChange[] {
  const model = (s: Setup) => `${s.config.model.name} (${s.config.model.kind})`;
  const skills = (s: Setup) => s.skillVersions.join(", ") || "—";
  const skillDraft = (s: Setup) => {
    const d = s.config.skill;
    if (!d || (d.mission === undefined && d.disposition === undefined)) return "none";
    return `${d.name}: unsaved ${[d.mission !== undefined ? "mission" : null, d.disposition !== undefined ? "disposition" : null].filter(Boolean).join(" and ")}`;
  };
  const mentalModels = (s: Setup) =>
    s.config.mentalModels.length
      ? s.config.mentalModels
          .map(
            (m) =>
              `${m.id}${m.content !== undefined ? " edited" : ""}${m.staleOverride ? ` marked ${m.staleOverride}` : ""}`,
          )
          .join(", ")
      : "none";
  const rows: [string, (s: Setup) => string][] = [
    ["model", model],
    ["skill versions", skills],
    ["skill draft", skillDraft],
    ["mental-model drafts", mentalModels],
    ["budget", (s) => s.config.budget ?? "each question's"],
    ["suite version", (s) => `v${s.suiteVersion}`],
  ];
  return rows.map(([what, f]) => ({ what, base: f(base), head: f(head) })).filter((c) => c.base !== c.head);
}
