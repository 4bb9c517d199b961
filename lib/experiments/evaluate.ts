/**
 * Checks one run against its question's expectations (SPEC §7). Pure: no database, no framework.
 * Each expectation key is checked on its own, so a row can say which were met and which not.
 */
import type { Failure } from "@/lib/contracts/experiments";
import { EXPECTATION_KEYS, type Expectation, type ExpectationKey } from "@/lib/contracts/suites";
import { CITATION_KEYS, type Citations, type RunStatus } from "@/lib/reflect/domain";

/** What evaluation reads of a finished run. */
export interface RunOutcome {
  status: RunStatus;
  answer: string | null;
  citations: Citations | null;
  llmCalls: number;
  flags: readonly string[];
}

export interface Evaluation {
  passed: boolean;
  failures: Failure[];
  /** Each expectation the question sets, met or not, in key order. */
  checked: { expectation: ExpectationKey; met: boolean }[];
}

/** Every id the run cited, any tier (dropped citations are not citations). */
export function citedIds(citations: Citations | null): string[] {
  if (!citations) return [];
  return CITATION_KEYS.flatMap((k) => citations[k] ?? []);
}

const quote = (s: string) => JSON.stringify(s);
const list = (xs: readonly string[]) => xs.map(quote).join(", ");

function check(key: ExpectationKey, expect: Expectation, run: RunOutcome, cited: Set<string>): string | null {
  const answer = (run.answer ?? "").toLowerCase();
  switch (key) {
    case "status": {
      const allowed = expect.status ?? [];
      return allowed.includes(run.status) ? null : `status is ${run.status}, expected ${allowed.join(" or ")}`;
    }
    case "mustCite": {
      const missing = (expect.mustCite ?? []).filter((id) => !cited.has(id));
      return missing.length ? `did not cite ${list(missing)}` : null;
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
    case "maxLlmCalls": {
      const max = expect.maxLlmCalls ?? 0;
      return run.llmCalls > max ? `${run.llmCalls} LLM calls, at most ${max} expected` : null;
    }
  }
}

/** Run endings that produced no answer because something broke (SPEC §3.5b). */
const BROKEN: readonly RunStatus[] = ["failed", "interrupted"];

/**
 * The run against the question's expectations. A run that failed or was interrupted fails its
 * question unless a `status` expectation names that ending: a gate must not pass on runs that broke
 * (a model server down, a search that could not run). Otherwise a question without expectations
 * passes when its run finishes.
 */
export function evaluate(question: { expect?: Expectation }, run: RunOutcome): Evaluation {
  const expect = question.expect ?? {};
  const cited = new Set(citedIds(run.citations));
  const failures: Failure[] = [];
  const checked: Evaluation["checked"] = [];
  if (expect.status === undefined && BROKEN.includes(run.status)) {
    checked.push({ expectation: "status", met: false });
    failures.push({
      expectation: "status",
      detail: `the run ${run.status === "failed" ? "failed" : "was interrupted"}; add "${run.status}" to the question's status expectation if that is intended`,
    });
  }
  for (const key of EXPECTATION_KEYS) {
    if (expect[key] === undefined) continue;
    const detail = check(key, expect, run, cited);
    checked.push({ expectation: key, met: detail === null });
    if (detail !== null) failures.push({ expectation: key, detail });
  }
  return { passed: failures.length === 0, failures, checked };
}
