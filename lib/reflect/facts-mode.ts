/**
 * Facts mode (docs/engine.md#facts-mode): no LLM call. Runs the skill's retrieval directive with the question as
 * the query and answers with a readable digest of what came back.
 */

import { capAnswer } from "./answer-limit";
import { callSignature } from "./call-signature";
import { type DeadlineScope, errorMessage, RunStop, withinDeadline } from "./deadline";
import { digestCitations, factsDigest, NO_EVIDENCE_ANSWER } from "./digest";
import { emptyCitations, TIER_INFO, TIER_REGISTRY, type Tier } from "./domain";
import { ScopeNotPermittedError } from "./errors";
import { noTierIds, type OutcomeClass } from "./events";
import { Evidence } from "./evidence";
import type { ReflectDeps } from "./ports";
import type { FactsPayload, ParsedReflectRequest, ReflectResult } from "./request";
import type { RunLog } from "./run-log";
import { capContent, observationsPayload, recallPayload } from "./tools";

/** The lowest tier the skill's retrieval types enable: raw facts for episodic, else observations. */
export function factsTier(req: ParsedReflectRequest): Tier {
  const { types } = req.skill.retrieval;
  const tier = TIER_REGISTRY.findLast((t) => t.retrievalType !== null && types.includes(t.retrievalType));
  return tier?.id ?? "observations";
}

export async function runFactsMode(
  deps: ReflectDeps,
  req: ParsedReflectRequest,
  log: RunLog,
  warnings: string[],
  runStarted: (enabledTiers: Tier[], maxIterations: number) => Promise<void>,
  signal?: AbortSignal,
): Promise<ReflectResult> {
  const tier = factsTier(req);
  let phase = "memory.countInScope";
  // The wall clock and the caller's signal cover facts mode too (docs/engine.md#never-a-misleading-result).
  const deadline: DeadlineScope = {
    wallClockMs: req.wallClockMs,
    elapsed: () => log.elapsed(),
    signal,
    phase: () => phase,
  };
  const { tool, defaultMaxResults } = TIER_INFO[tier];
  await runStarted([tier], 0);
  const base = {
    dropped: [],
    flags: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    llmCalls: 0,
    iterations: 0,
    warnings,
    probe: null,
  };
  const finish = async (result: ReflectResult): Promise<ReflectResult> => {
    const { facts: _facts, ...recorded } = result;
    await log.emit("run.finished", recorded);
    return result;
  };
  const fail = (message: string, where: string, status: "failed" | "interrupted" = "failed") =>
    finish({ ...base, status, answer: "", citations: emptyCitations(), error: { message, phase: where } });
  const stopped = (e: unknown) =>
    e instanceof RunStop ? fail(e.message, e.phase, e.status) : fail(errorMessage(e), phase);

  let inScope: number;
  try {
    inScope = await withinDeadline(deadline, () => deps.memory.countInScope({ bankId: req.bankId, scope: req.scope }));
  } catch (e) {
    return stopped(e);
  }
  if (inScope === 0) {
    return finish({
      ...base,
      status: "no_evidence",
      answer: NO_EVIDENCE_ANSWER,
      citations: emptyCitations(),
      error: null,
    });
  }

  const callId = deps.ids.next("call");
  const args = { reason: "facts mode: the skill's retrieval directive", query: req.question };
  await log.emit("tool.call", { callId, tool, tier, query: req.question, reason: args.reason, args }, 0);
  const started = deps.clock.now();
  const q = {
    bankId: req.bankId,
    query: req.question,
    limit: defaultMaxResults,
    tags: req.skill.retrieval.tags,
    scope: req.scope,
  };
  const payload: FactsPayload = { query: req.question, count: 0, memories: [], observations: [] };
  let content: unknown;
  let error: string | null = null;
  let outcome: OutcomeClass = "success";
  phase = `tool.call (${tool})`;
  // Set when the store threw (whatever it threw, null included) or answered with no list.
  let storeError = null as { thrown: unknown } | null;
  try {
    // Store errors are the search's outcome; only the wall clock or the signal stop the run here.
    await withinDeadline(deadline, async () => {
      try {
        if (tier === "raw_facts") {
          const memories = await deps.memory.recall(q);
          if (!Array.isArray(memories)) throw new Error(`${tool} returned no list of memories`);
          payload.memories = memories;
          content = recallPayload(req.question, memories);
        } else {
          const search = await deps.memory.searchObservations(q);
          if (!Array.isArray(search?.observations)) throw new Error(`${tool} returned no list of observations`);
          payload.observations = search.observations;
          content = observationsPayload(req.question, search);
        }
      } catch (e) {
        storeError = { thrown: e };
      }
    });
  } catch (e) {
    return stopped(e);
  }
  if (storeError !== null) {
    const { thrown } = storeError;
    error = thrown === null || thrown === undefined ? `${tool} failed without an error message` : errorMessage(thrown);
    outcome = thrown instanceof ScopeNotPermittedError ? "policy_reject" : "error";
    content = { error };
  }
  payload.count = payload.memories.length + payload.observations.length;
  if (!error && payload.count === 0) outcome = "empty";
  const capped = capContent(content, req.toolResultCapChars);
  await log.emit(
    "tool.result",
    {
      callId,
      tool,
      tier,
      outcome,
      ids: {
        ...noTierIds(),
        observations: payload.observations.map((o) => o.id),
        raw_facts: payload.memories.map((m) => m.id),
      },
      count: payload.count,
      ...capped,
      cap: req.toolResultCapChars,
      durationMs: Math.max(0, deps.clock.now() - started),
      error,
      signature: callSignature(tool, args, error),
    },
    0,
  );
  if (error) return fail(error, `tool.call (${tool})`);

  const evidence = new Evidence();
  evidence.add({ tier: "raw_facts", hits: payload.memories });
  evidence.add({ tier: "observations", hits: payload.observations });
  const answer = capAnswer(factsDigest(req.question, { facts: payload.memories, observations: payload.observations }));
  // The digest's quoted ids are its citations: after the answer cap, only the ones still quoted.
  const citations = digestCitations(answer.text, evidence);
  await log.emit("citations.validated", { kept: citations, dropped: [], ungrounded: false }, 0);
  return finish({
    ...base,
    flags: answer.truncated ? ["truncated"] : [],
    status: payload.count > 0 ? "done" : "no_evidence",
    answer: answer.text,
    citations,
    error: null,
    facts: payload,
  });
}
