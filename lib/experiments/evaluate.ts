/**
 * Checks one run against its question's expectations (docs/experiments.md). Pure: no database, no framework.
 * Each expectation key is checked on its own, so a row can say which were met and which not, and
 * every unmet one says why in one line.
 */
import type { Failure, RetrievedMemory } from "@/lib/contracts/experiments";
import { EXPECTATION_KEYS, type Expectation, type ExpectationKey } from "@/lib/contracts/suites";
import { CITATION_KEYS, type Citations, type RunStatus } from "@/lib/reflect/domain";
import { saysNothingFound } from "@/lib/reflect/probe";
import { containsAnswer, multiPartF1, tokenF1 } from "./answer-score";

/** An LLM judge's verdict on the run's answer (recorded as a run of its own). */
export interface Judgement {
  correct: boolean;
  reason: string;
  runId: string;
}

/** What evaluation reads of a finished run. */
export interface RunOutcome {
  status: RunStatus;
  answer: string | null;
  citations: Citations | null;
  llmCalls: number;
  flags: readonly string[];
  /** What the run retrieved (null for runs stored before it was recorded). */
  retrieved?: readonly RetrievedMemory[] | null;
  /** The judge's verdict, when the question asks for one and a real model gave it. */
  judgement?: Judgement | null;
}

export interface Evaluation {
  passed: boolean;
  failures: Failure[];
  /** Each expectation the question sets, met or not (null: not judged), in key order. */
  checked: { expectation: ExpectationKey; met: boolean | null }[];
}

/** Every id the run cited, any tier (dropped citations are not citations). */
export function citedIds(citations: Citations | null): string[] {
  if (!citations) return [];
  return CITATION_KEYS.flatMap((k) => citations[k] ?? []);
}

const quote = (s: string) => JSON.stringify(s);
const list = (xs: readonly string[]) => xs.map(quote).join(", ");
const parts = (gold: string | readonly string[]) => (typeof gold === "string" ? [gold] : [...gold]);
const goldText = (gold: string | readonly string[]) => parts(gold).join(", ");

/** The line an answer leads with, without its citation markers: what a short-answer score reads. */
export function leadLine(answer: string): string {
  return (answer.split("\n").find((l) => l.trim()) ?? "").replace(/\[[^\]\n]*\]/g, " ").trim();
}

/** F1 of the answer's first line against the gold answer (its parts scored as LoCoMo's multi-hop). */
export function answerF1(answer: string, gold: string | readonly string[]): number {
  const lead = leadLine(answer);
  return typeof gold === "string" ? tokenF1(lead, gold) : multiPartF1(lead, gold.join(", "));
}

/** Whether the answer declines: says the memory does not hold it, and cites nothing. */
export function abstained(answer: string | null, cited: ReadonlySet<string>): boolean {
  return cited.size === 0 && saysNothingFound(answer ?? "");
}

function whereRetrieved(ids: readonly string[], run: RunOutcome): string {
  if (!run.retrieved) return "";
  const found = ids
    .map((id) => run.retrieved?.find((r) => r.id === id))
    .filter((r): r is RetrievedMemory => r !== undefined);
  if (found.length === 0) return ids.length === 1 ? "; it was never retrieved" : "; none was retrieved";
  return `; ${found.map((r) => `${r.id} was retrieved at rank ${r.rank}`).join(", ")}`;
}

function check(key: ExpectationKey, expect: Expectation, run: RunOutcome, cited: Set<string>): string | null {
  const text = run.answer ?? "";
  const answer = text.toLowerCase();
  switch (key) {
    case "status": {
      const allowed = expect.status ?? [];
      return allowed.includes(run.status) ? null : `status is ${run.status}, expected ${allowed.join(" or ")}`;
    }
    case "mustCite": {
      const missing = (expect.mustCite ?? []).filter((id) => !cited.has(id));
      return missing.length ? `did not cite ${list(missing)}${whereRetrieved(missing, run)}` : null;
    }
    case "mustCiteAny": {
      const any = expect.mustCiteAny ?? [];
      return any.some((id) => cited.has(id)) ? null : `none of ${any.join(", ")} cited${whereRetrieved(any, run)}`;
    }
    case "mustNotCite": {
      const present = (expect.mustNotCite ?? []).filter((id) => cited.has(id));
      return present.length ? `cited ${list(present)}` : null;
    }
    case "contains": {
      const missing = (expect.contains ?? []).filter((p) => !answer.includes(p.toLowerCase()));
      return missing.length ? `the answer does not contain ${list(missing)}` : null;
    }
    case "notContains": {
      const present = (expect.notContains ?? []).filter((p) => answer.includes(p.toLowerCase()));
      return present.length ? `the answer contains ${list(present)}` : null;
    }
    case "minF1": {
      const gold = expect.answer ?? "";
      const f1 = answerF1(text, gold);
      const min = expect.minF1 ?? 0;
      return f1 >= min
        ? null
        : `F1 ${f1.toFixed(2)} of the first line ${quote(leadLine(text).slice(0, 80))} against ${quote(goldText(gold))}, at least ${min} expected`;
    }
    case "containsAnswer": {
      const gold = parts(expect.answer ?? "");
      const missing = gold.filter((g) => !containsAnswer(text, g));
      if (expect.containsAnswer) return missing.length ? `the answer does not contain ${list(missing)}` : null;
      const present = gold.filter((g) => !missing.includes(g));
      return present.length ? `the answer contains ${list(present)}` : null;
    }
    case "abstains": {
      const declined = abstained(run.answer, cited);
      if (expect.abstains === declined) return null;
      if (expect.abstains) {
        return saysNothingFound(text)
          ? `it declines but cites ${[...cited].join(", ")}`
          : "it answers instead of saying the memory does not hold it";
      }
      return "it declines (the memory does not hold it) where an answer was expected";
    }
    case "judge": {
      // Unjudged is reported apart (`met: null`): see `evaluate`.
      const j = run.judgement;
      return j && !j.correct ? `the judge found it wrong: ${j.reason} (judge run ${j.runId})` : null;
    }
    case "maxLlmCalls": {
      const max = expect.maxLlmCalls ?? 0;
      return run.llmCalls > max ? `${run.llmCalls} LLM calls, at most ${max} expected` : null;
    }
  }
}

/** Run endings whose answer is not an answer: it broke, or it is a digest of what was retrieved. */
const NOT_ANSWERED: Partial<Record<RunStatus, string>> = {
  failed: "the run failed",
  interrupted: "the run was interrupted",
  degraded: "the run was degraded: its answer is a digest of what it retrieved, not an answer",
};

export const NOT_JUDGED = "not judged: judging needs a real model (the offline model cannot grade an answer)";

/**
 * The run against the question's expectations. A run that failed, was interrupted or degraded
 * fails every expectation the question sets (and its status) unless a `status` expectation names
 * that ending: a gate must not pass on a digest or a broken run that happens to quote the right
 * words. A `judge` without a verdict is "not judged": it never passes. A question without
 * expectations passes when its run finishes with an answer.
 */
export function evaluate(question: { expect?: Expectation }, run: RunOutcome): Evaluation {
  const expect = question.expect ?? {};
  const cited = new Set(citedIds(run.citations));
  const failures: Failure[] = [];
  const checked: Evaluation["checked"] = [];
  const broken = NOT_ANSWERED[run.status];
  const allowed = expect.status?.includes(run.status) ?? false;
  if (broken && !allowed) {
    checked.push({ expectation: "status", met: false });
    failures.push({
      expectation: "status",
      detail: `${broken}; add "${run.status}" to the question's status expectation if that is intended`,
    });
  }
  for (const key of EXPECTATION_KEYS) {
    if (expect[key] === undefined || (key === "judge" && !expect.judge)) continue;
    if (key === "status" && broken && !allowed) continue;
    if (broken && !allowed) {
      checked.push({ expectation: key, met: false });
      failures.push({ expectation: key, detail: `not checked: ${broken}` });
      continue;
    }
    if (key === "judge" && expect.judge && !run.judgement) {
      checked.push({ expectation: key, met: null });
      failures.push({ expectation: key, detail: NOT_JUDGED });
      continue;
    }
    const detail = check(key, expect, run, cited);
    checked.push({ expectation: key, met: detail === null });
    if (detail !== null) failures.push({ expectation: key, detail });
  }
  return { passed: failures.length === 0, failures, checked };
}
