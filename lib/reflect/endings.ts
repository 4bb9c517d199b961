/** How a synthesize run ends: every ending emits one `run.finished` with the same result shape. */
import { type RunStop, withinDeadline } from "./deadline";
import { NO_EVIDENCE_ANSWER } from "./digest";
import {
  type Citations,
  citationCount,
  type DroppedCitation,
  emptyCitations,
  RUN_FLAGS,
  type RunStatus,
  TIER_INFO,
  type Tier,
} from "./domain";
import type { ModelCall } from "./execute";
import { isNegativeAnswer, isProbedStatus, probeWithinDeadline, readButUnused } from "./probe";
import type { ReflectResult } from "./request";
import type { RunContext } from "./run-context";

export async function finishRun(
  run: RunContext,
  status: RunStatus,
  answer: string,
  citations: Citations,
  dropped: DroppedCitation[],
  error: { message: string; phase: string } | null,
): Promise<ReflectResult> {
  const speakers = isProbedStatus(status) ? await bankSpeakers(run) : [];
  const searched = isProbedStatus(status) ? await probeRun(run, speakers) : null;
  const negative = isNegativeAnswer(status, answer, run.flags, citationCount(citations));
  // v2: a negative answer with a strong match in hand is a miss too, named with its rank.
  const unused = searched && negative ? readButUnused(run.req.question, run.evidence, citations, speakers) : [];
  const probe = searched && unused.length > 0 ? { ...searched, unused } : searched;
  if (probe && negative && (probe.strong || unused.length > 0)) run.flags.add("missed_evidence");
  if (probe) await run.log.emit("probe.finished", probe);
  const result: ReflectResult = {
    status,
    answer,
    citations,
    dropped,
    flags: RUN_FLAGS.filter((f) => run.flags.has(f)),
    usage: { ...run.usage },
    llmCalls: run.llmCalls,
    modelRequests: run.modelRequests,
    iterations: run.iterations,
    warnings: [...run.warnings],
    error,
    probe,
  };
  await run.log.emit("run.finished", result);
  return result;
}

/**
 * The bank's conversation speakers, for the probe, inside the run's wall clock. Unknown (none)
 * when the store cannot say; the probe then knows the speakers of the turns it read.
 */
async function bankSpeakers(run: RunContext): Promise<string[]> {
  const { memory } = run.deps;
  if (!memory.speakers) return [];
  try {
    const list: unknown = await withinDeadline(run.deadline, () => memory.speakers!(run.req.bankId));
    // A port is outside the engine: what is not a list of names is no speakers, not a failed run.
    return Array.isArray(list) ? list.filter((s): s is string => typeof s === "string") : [];
  } catch {
    return [];
  }
}

/** The missed-evidence probe over this run's own retrieval rules and evidence (probe.ts). */
function probeRun(run: RunContext, speakers: readonly string[]) {
  const { req, deps } = run;
  return probeWithinDeadline(run.deadline, {
    memory: deps.memory,
    clock: deps.clock,
    bankId: req.bankId,
    scope: req.scope,
    tags: req.skill.retrieval.tags,
    enabledTiers: run.enabledTiers,
    question: req.question,
    modelQueries: run.modelQueries,
    evidence: run.evidence,
    seenInFull: run.seenInFull,
    runSearches: run.runSearches,
    questionSearches: run.questionSearches,
    speakers,
  });
}

export function failRun(run: RunContext, message: string, phase: string): Promise<ReflectResult> {
  return finishRun(run, "failed", "", emptyCitations(), [], { message, phase });
}

/** The run stopped early (see RunStop): no answer, the receipt says why. */
export function stopRun(run: RunContext, stop: RunStop): Promise<ReflectResult> {
  if (stop.wallClock || stop.status === "interrupted") run.log.markStopped();
  return finishRun(run, stop.status, "", emptyCitations(), [], { message: stop.message, phase: stop.phase });
}

/**
 * The enabled tiers this run never read: no search of them was answered by the store, or the
 * latest one failed. `no_evidence` needs none (issue 27).
 */
export function unreadTiers(run: RunContext): Tier[] {
  return run.enabledTiers.filter((t) => !run.searchedTiers.has(t) || run.failedSearches.has(t));
}

/**
 * Nothing was found to answer from. `no_evidence` only when every enabled tier was searched and
 * came back empty (docs/engine.md#never-a-misleading-result, issue 27), or when nothing in the scope can be read at all (answered
 * before any model call); otherwise the run fails, naming the tiers it never read.
 */
export function endWithoutEvidence(
  run: RunContext,
  options: { nothingInScope?: boolean } = {},
): Promise<ReflectResult> {
  if (!options.nothingInScope) {
    const unread = unreadTiers(run);
    if (run.llmCalls > 0 && run.searchesCompleted === 0) {
      return failRun(run, `${noSearchMessage(run)} (never read: ${tierList(unread)})`, run.phase);
    }
    // A tier whose search failed was never read: "nothing relevant" would be a guess.
    if (run.failedSearches.size > 0) return failRun(run, failedSearchMessage(run), run.phase);
    if (unread.length > 0) return failRun(run, unreadMessage(run, unread), run.phase);
  }
  return finishRun(run, "no_evidence", NO_EVIDENCE_ANSWER, emptyCitations(), [], null);
}

const tierList = (tiers: Tier[]) => tiers.map((t) => TIER_INFO[t].label).join(", ") || "none";

function unreadMessage(run: RunContext, unread: Tier[]): string {
  const read = run.enabledTiers.filter((t) => !unread.includes(t));
  return (
    `the run ended without evidence but never read ${tierList(unread)} ` +
    `(searched and empty: ${tierList(read)}), so whether the bank holds relevant memories is unknown`
  );
}

function noSearchMessage(run: RunContext): string {
  const model = `model "${run.deps.model.info.name}"`;
  const calls = `${run.llmCalls} call(s)`;
  // A model that ignored every forced tool choice found nothing because it never searched.
  if (run.toolCallsSeen === 0) {
    return `${model} never called a tool in ${calls}; it may not support function calling (try REFLECT_FORCED_TOOL_CHOICE=required or omit)`;
  }
  if (run.lastSearchError) {
    return `no search of the bank succeeded in ${calls} of ${model}, so nothing can be said about the bank: ${run.lastSearchError}`;
  }
  return `${model} never produced a valid search in ${calls}: every retrieval call was malformed, refused or unknown, so the bank was never searched`;
}

function failedSearchMessage(run: RunContext): string {
  const failed = [...run.failedSearches].map(
    ([tier, error]) => `the ${TIER_INFO[tier].label} search failed (${error})`,
  );
  const never = unreadTiers(run).filter((t) => !run.failedSearches.has(t));
  const also = never.length > 0 ? `; ${tierList(never)} never searched` : "";
  return `${failed.join("; ")}${also}, and the searches that ran found nothing, so whether the bank holds relevant memories is unknown`;
}

export function noToolCallMessage(run: RunContext): string {
  return `model "${run.deps.model.info.name}" returned no tool call on the forced final turn`;
}

export function noDoneMessage(run: RunContext, calls: ModelCall[]): string {
  return `model "${run.deps.model.info.name}" did not call done on the forced final turn (called ${calls.map((c) => c.name || "a tool without a name").join(", ")})`;
}
