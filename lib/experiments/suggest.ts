/**
 * What "Add to suite" on a run page suggests (docs/experiments.md). A run that went right is pinned as it is:
 * its status, its citations, its LLM calls. A run that went wrong — degraded, ungrounded, or
 * flagged missed_evidence — is not pinned (that would guard the failure): the suggestion is what it
 * should have done: end `done`, cite one of the memories the missed-evidence probe named (read but
 * not used first, then the strong hits it never retrieved; when it named none, the memories the run
 * itself read at the top of its searches), and not decline.
 */
import type { RetrievedMemory } from "@/lib/contracts/experiments";
import type { Expectation } from "@/lib/contracts/suites";
import type { Citations, RunStatus } from "@/lib/reflect/domain";

/** What the suggestion reads of the missed-evidence probe (its `probe.finished` payload). */
export interface ProbeNamed {
  hits: readonly { id: string; strong: boolean }[];
  unused?: readonly { id: string; rank: number }[];
}

import { abstained, citedIds } from "./evaluate";

export interface Suggestion {
  suggested: Expectation;
  /** The expectations ticked at first. */
  ticked: (keyof Expectation)[];
  /** Why the suggestion is not the run as it is (null when it is). */
  why: string | null;
}

const NAMED_MAX = 5;

export function suggestExpectations(
  run: {
    status: RunStatus;
    flags: readonly string[];
    citations: Citations | null;
    llmCalls: number;
    retrieved?: readonly RetrievedMemory[] | null;
    /** The answer: a right run that declined ("not mentioned") is pinned as declining. */
    answer?: string | null;
  },
  probe: ProbeNamed | null,
): Suggestion {
  const wrongs = [
    run.status === "degraded" ? "degraded (its answer is a digest of what it retrieved)" : null,
    run.flags.includes("ungrounded") ? "ungrounded (its answer cites nothing it retrieved)" : null,
    run.flags.includes("missed_evidence") ? "flagged missed_evidence (it said not found while the bank held it)" : null,
  ].filter((w) => w !== null);
  if (wrongs.length === 0) {
    const cited = citedIds(run.citations);
    // A right decline cites nothing: pinning "cites nothing" guards nothing, pinning the decline does.
    if (run.answer !== undefined && abstained(run.answer, new Set(cited))) {
      return {
        suggested: { status: [run.status], abstains: true, maxLlmCalls: run.llmCalls },
        ticked: ["status", "abstains"],
        why: null,
      };
    }
    return {
      suggested: { status: [run.status], mustCite: cited, maxLlmCalls: run.llmCalls },
      ticked: ["status", "mustCite"],
      why: null,
    };
  }
  const named = [
    ...(probe?.unused ?? []).map((u) => ({ id: u.id, said: `read at rank ${u.rank}, not used` })),
    ...(probe?.hits ?? []).filter((h) => h.strong).map((h) => ({ id: h.id, said: "never retrieved" })),
  ].filter((m, i, all) => all.findIndex((o) => o.id === m.id) === i);
  const read = (run.retrieved ?? [])
    .filter((r) => r.rank <= 3)
    .sort((a, b) => a.rank - b.rank)
    .map((r) => ({ id: r.id, said: `read at rank ${r.rank}` }));
  const cite = (named.length ? named : read).slice(0, NAMED_MAX);
  const suggested: Expectation = {
    status: ["done"],
    ...(cite.length ? { mustCiteAny: cite.map((m) => m.id) } : {}),
    abstains: false,
    maxLlmCalls: run.llmCalls,
  };
  const memories = cite.length ? `; cite ${cite.map((m) => `${m.id} (${m.said})`).join(" or ")}` : "";
  return {
    suggested,
    ticked: ["status", "mustCiteAny", "abstains"],
    why: `This run was ${wrongs.join(" and ")}: the suggestions guard against that — end done and answer${memories}.`,
  };
}
