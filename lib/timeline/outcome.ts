/**
 * A run's outcome in words for its header: "answered from mental models only", "2 scope
 * rejections", "halted: same empty search 3 times". Derived from the one walk (walk.ts), so the
 * words agree with the timeline rows they summarize.
 */
import { TIER_INFO } from "@/lib/reflect/domain";
import type { RunWalk, ToolStep, WalkStep } from "./walk";
import { walkSteps } from "./walk";

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** How the halt rule that fired reads: what repeated, and how often. */
function haltWords(walk: RunWalk): string | null {
  // The walk flags `halted` on the first steering.halt: without it there is no halt step to read.
  if (!walk.flags.includes("halted")) return walk.finished?.payload.status === "halted" ? "halted" : null;
  const bySignature = new Map<string, ToolStep>();
  let lastTool: ToolStep | null = null;
  for (const step of walkSteps(walk)) {
    if (step.kind === "tool" && step.result) {
      bySignature.set(step.result.payload.signature, step);
      lastTool = step;
    }
    if (step.kind !== "verdict" || step.event.type !== "steering.halt") continue;
    const { trigger, count, signature } = step.event.payload;
    if (trigger === "identical_failure") {
      const repeated = (signature !== null ? bySignature.get(signature) : undefined) ?? lastTool;
      const how = repeated?.result?.payload.outcome === "empty" ? "empty" : "failing";
      const what = repeated?.tier ? "search" : (repeated?.tool ?? "call");
      return `halted: same ${how} ${what} ${plural(count, "time")}`;
    }
    if (trigger === "failure_streak") return `halted: ${count} failed or empty searches in a row`;
    return `halted: ${plural(count, "scope rejection")} in a row`;
  }
  return walk.finished?.payload.status === "halted" ? "halted" : null;
}

/**
 * The run's outcome as short phrases, most telling first; empty while nothing notable happened
 * (an ordinary answer from searched memories needs no words beyond its status).
 */
export function outcomeWords(walk: RunWalk): string[] {
  const words: string[] = [];
  const finished = walk.finished?.payload ?? null;

  const halt = haltWords(walk);
  if (halt) words.push(halt);

  // One pass over the tool steps with results, counting in place: this runs on every fold of a
  // run of tens of thousands of steps.
  let searches = 0;
  let onlyMentalModels = true;
  let rejections = 0;
  let emptySearches = 0;
  let errors = 0;
  const count = (steps: readonly WalkStep[]) => {
    for (const s of steps) {
      if (s.kind !== "tool" || s.result === null) continue;
      const outcome = s.result.payload.outcome;
      if (outcome === "policy_reject") rejections += 1;
      if (outcome === "error") errors += 1;
      if (s.tier === null) continue;
      searches += 1;
      if (s.tier !== "mental_models") onlyMentalModels = false;
      if (outcome === "empty") emptySearches += 1;
    }
  };
  count(walk.before);
  for (const it of walk.iterations) count(it.steps);
  count(walk.after);

  const answered = finished !== null && (finished.status === "done" || finished.status === "degraded");
  if (answered && searches > 0 && onlyMentalModels) {
    words.push(`answered from ${TIER_INFO.mental_models.label} only`);
  }
  if (rejections > 0) words.push(plural(rejections, "scope rejection"));
  if (emptySearches > 0 && finished?.status === "no_evidence")
    words.push(`no evidence: ${plural(emptySearches, "empty search", "empty searches")}`);
  if (errors > 0) words.push(plural(errors, "tool error"));
  return words;
}
