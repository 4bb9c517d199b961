/**
 * A run's outcome in words for its header: "answered from mental models only", "2 scope
 * rejections", "halted: same empty search 3 times". Derived from the one walk (walk.ts), so the
 * words agree with the timeline rows they summarize.
 */
import { TIER_INFO } from "@/lib/reflect/domain";
import type { RunWalk, ToolStep } from "./walk";
import { walkSteps } from "./walk";

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** How the halt rule that fired reads: what repeated, and how often. */
function haltWords(walk: RunWalk): string | null {
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
  const tools = walkSteps(walk).filter((s): s is ToolStep => s.kind === "tool" && s.result !== null);
  const searches = tools.filter((s) => s.tier !== null);
  const finished = walk.finished?.payload ?? null;

  const halt = haltWords(walk);
  if (halt) words.push(halt);

  const answered = finished !== null && (finished.status === "done" || finished.status === "degraded");
  if (answered && searches.length > 0 && searches.every((s) => s.tier === "mental_models")) {
    words.push(`answered from ${TIER_INFO.mental_models.label} only`);
  }

  const rejections = tools.filter((s) => s.result?.payload.outcome === "policy_reject").length;
  if (rejections > 0) words.push(plural(rejections, "scope rejection"));

  const empty = searches.filter((s) => s.result?.payload.outcome === "empty").length;
  if (empty > 0 && finished?.status === "no_evidence")
    words.push(`no evidence: ${plural(empty, "empty search", "empty searches")}`);

  const errors = tools.filter((s) => s.result?.payload.outcome === "error").length;
  if (errors > 0) words.push(plural(errors, "tool error"));
  return words;
}
