/** Runs one tier tool call against the memory port and classifies the outcome for the ladder. */
import type { z } from "zod";
import { callSignature } from "./call-signature";
import { isTierTool, type ScopeValue, type Tier, tierForTool } from "./domain";
import { NothingToSearchError, ScopeNotPermittedError } from "./errors";
import { type IdsByTier, noTierIds, type OutcomeClass } from "./events";
import type { Clock, HitOf, MemoryPort, ObservationSearch, Retrieved, TierQuery, ToolCall } from "./ports";
import {
  capContent,
  clampMaxResults,
  hitsSeen,
  mentalModelsPayload,
  observationsPayload,
  recallPayload,
  SearchArgs,
} from "./tools";

export interface ModelCall {
  id: string;
  /** Normalized name. */
  name: string;
  rawName: string;
  arguments: string;
}

/** A call with its arguments decoded; `problem` is set when it cannot run at all. */
export interface PreparedCall {
  call: ModelCall;
  tier: Tier | null;
  /** Parsed JSON arguments, or the raw string when they are not JSON. */
  args: unknown;
  query: string | null;
  reason: string | null;
  search: SearchArgs | null;
  problem: { outcome: Extract<OutcomeClass, "error" | "unknown_tool">; message: string } | null;
}

export interface ExecutedCall {
  prepared: PreparedCall;
  outcome: OutcomeClass;
  error: string | null;
  signature: string;
  ids: IdsByTier;
  count: number;
  content: string;
  chars: number;
  truncated: boolean;
  durationMs: number;
  /** The search reached the memory store (well-formed arguments, an offered tier tool). */
  searched: boolean;
  /** The store answered (with hits or none); false when it threw or the call never reached it. */
  answered: boolean;
  /** The hits the model saw (inside the capped result), when the search ran and it saw any. */
  retrieved?: Retrieved;
  /** Every hit the store returned, seen or cut off by the cap (freshness judges them all). */
  returned?: Retrieved;
  observationFreshness?: Omit<ObservationSearch, "observations">;
}

export interface ExecContext {
  memory: MemoryPort;
  clock: Clock;
  bankId: string;
  scope: ScopeValue;
  tags: string[];
  cap: number;
  /** Tier tools this run offers; anything else is an unknown tool. */
  available: readonly string[];
}

/** A run's search of one tier: its bank and scope, and the skill's tags where they apply. */
export function tierQuery(
  run: { bankId: string; scope: ScopeValue; tags: string[] },
  tier: Tier,
  query: string,
  limit: number,
): TierQuery {
  return {
    bankId: run.bankId,
    query,
    limit,
    // The skill's tags narrow observations and raw facts; mental models are curated summaries
    // chosen by relevance, and a topic tag like "launch" rarely carries a skill tag like "decision".
    tags: tier === "mental_models" ? [] : run.tags,
    scope: run.scope,
  };
}

export function zodProblem(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "arguments"}: ${i.message}`).join("; ");
}

export function parseJsonArgs(raw: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(raw.trim() === "" ? "{}" : raw) };
  } catch (e) {
    return { ok: false, message: `arguments are not valid JSON: ${(e as Error).message}` };
  }
}

const field = (args: unknown, key: string): string | null => {
  const v = args && typeof args === "object" ? (args as Record<string, unknown>)[key] : undefined;
  return typeof v === "string" ? v : null;
};

/**
 * Decodes one call of a tool turn. On a forced turn only the forced tool is accepted (docs/engine.md#forced-retrieval-and-the-freshness-short-circuit): a
 * `done` or another tier's tool is refused with a tool error, and the forced tier stays pending.
 */
export function prepareCall(call: ModelCall, available: readonly string[], forced: string | null): PreparedCall {
  const json = parseJsonArgs(call.arguments);
  const args = json.ok ? json.value : call.arguments;
  const base = {
    call,
    tier: tierForTool(call.name),
    args,
    query: field(args, "query"),
    reason: field(args, "reason"),
    search: null,
  };
  if (!call.rawName.trim()) {
    return { ...base, tier: null, problem: { outcome: "error", message: "malformed tool call: no function name" } };
  }
  if (forced !== null && call.name !== forced && (call.name === "done" || isTierTool(call.name))) {
    const message = `${call.name} refused: this turn accepts only ${forced}; call ${forced} first`;
    return { ...base, tier: null, problem: { outcome: "error", message } };
  }
  if (call.name === "done") {
    return { ...base, problem: { outcome: "error", message: "done refused: call done once per turn" } };
  }
  if (!isTierTool(call.name) || !available.includes(call.name)) {
    const offered = [...available, "done"].join(", ");
    return {
      ...base,
      tier: null,
      problem: { outcome: "unknown_tool", message: `unknown tool "${call.rawName}"; available tools: ${offered}` },
    };
  }
  if (!json.ok) return { ...base, problem: { outcome: "error", message: json.message } };
  const parsed = SearchArgs.safeParse(args);
  if (!parsed.success) {
    return { ...base, problem: { outcome: "error", message: `invalid arguments: ${zodProblem(parsed.error)}` } };
  }
  return { ...base, search: parsed.data, problem: null };
}

export async function executeCall(ctx: ExecContext, prepared: PreparedCall): Promise<ExecutedCall> {
  const started = ctx.clock.now();
  const { call, search, tier } = prepared;
  const finish = (
    result: Omit<ExecutedCall, "prepared" | "signature" | "durationMs" | "searched" | "answered">,
  ): ExecutedCall => ({
    prepared,
    searched: prepared.problem === null,
    answered: result.retrieved !== undefined,
    signature: callSignature(call.name, prepared.args, result.error),
    durationMs: Math.max(0, ctx.clock.now() - started),
    ...result,
  });
  const failure = (outcome: OutcomeClass, message: string) =>
    finish({ outcome, error: message, ids: noTierIds(), count: 0, ...capContent({ error: message }, ctx.cap) });

  if (prepared.problem || !search || !tier)
    return failure(prepared.problem?.outcome ?? "error", prepared.problem?.message ?? "");
  const q = tierQuery(ctx, tier, search.query, clampMaxResults(tier, search.max_results));
  const found = (returned: Retrieved, payload: unknown, extra: Pick<ExecutedCall, "observationFreshness"> = {}) => {
    const capped = capContent(payload, ctx.cap);
    const seen = { tier: returned.tier, hits: hitsSeen<HitOf<Tier>>(returned.hits, capped) } as Retrieved;
    const count = returned.hits.length;
    if (count > 0 && seen.hits.length === 0) {
      // The store found matches but the cap cut off every one: the model saw nothing it could use
      // or cite, so this is no success, and the tier was not read (docs/engine.md#never-a-misleading-result).
      const message = `${call.name} found ${count} match(es) but the ${ctx.cap}-character result cap hid all of them; use a shorter query or fewer max_results`;
      const shown = capContent({ error: message }, ctx.cap);
      return finish({
        outcome: "error",
        error: message,
        ids: noTierIds(),
        count,
        ...shown,
        chars: capped.chars,
        truncated: true,
        returned,
        ...extra,
      });
    }
    const ids = noTierIds();
    ids[seen.tier] = seen.hits.map((h) => h.id);
    return finish({ ...classified(count), ids, ...capped, retrieved: seen, returned, ...extra });
  };
  try {
    switch (tier) {
      case "mental_models": {
        const hits = await ctx.memory.searchMentalModels(q);
        return found({ tier, hits }, mentalModelsPayload(search.query, hits));
      }
      case "observations": {
        const { observations, ...observationFreshness } = await ctx.memory.searchObservations(q);
        const payload = observationsPayload(search.query, { observations, ...observationFreshness });
        return found({ tier, hits: observations }, payload, { observationFreshness });
      }
      case "raw_facts": {
        const hits = await ctx.memory.recall(q);
        return found({ tier, hits }, recallPayload(search.query, hits));
      }
      default: {
        const unknown: never = tier;
        return failure("unknown_tool", `no search for tier ${String(unknown)}`);
      }
    }
  } catch (e) {
    if (e instanceof ScopeNotPermittedError) return failure("policy_reject", e.message);
    // An error, not "empty": the tier was not read (the run cannot end no_evidence on it).
    if (e instanceof NothingToSearchError) return failure("error", `${call.name}: ${e.message}`);
    return failure("error", `${call.name} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function classified(count: number): { outcome: OutcomeClass; error: null; count: number } {
  return { outcome: count > 0 ? "success" : "empty", error: null, count };
}

/** The tool message every tool call gets back, so the conversation stays valid for the next request. */
export function toolMessage(call: Pick<ToolCall, "id">, content: string) {
  return { role: "tool" as const, tool_call_id: call.id, content };
}
