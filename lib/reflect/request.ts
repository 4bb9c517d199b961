import { z } from "zod";
import {
  Budget,
  Citations,
  DroppedCitation,
  RunFlag,
  RunMode,
  RunStatus,
  Scope,
  SkillSnapshot,
  Tier,
  Usage,
} from "./domain";
import type { FactHit, ObservationHit } from "./ports";

export const DEFAULT_WALL_CLOCK_MS = 120_000;
export const DEFAULT_TOOL_RESULT_CAP_CHARS = 12_000;

/** Everything one reflect run needs besides its ports. */
export const ReflectRequest = z.object({
  runId: z.string().min(1),
  bankId: z.string().min(1),
  question: z.string().trim().min(1).max(4000),
  skill: SkillSnapshot,
  budget: Budget,
  mode: RunMode,
  scope: Scope,
  anchorEvery: z.number().int().min(1).max(50),
  /** Accepted for compatibility and ignored, with a deprecation warning. */
  responseSchema: z.unknown().optional(),
  wallClockMs: z.number().int().positive().default(DEFAULT_WALL_CLOCK_MS),
  toolResultCapChars: z.number().int().min(200).default(DEFAULT_TOOL_RESULT_CAP_CHARS),
  /** Tiers never offered in this run (a mental-model refresh excludes its own tier). */
  excludeTiers: z.array(Tier).default([]),
  parentRunId: z.string().nullable().default(null),
  forkedAtIteration: z.number().int().nonnegative().nullable().default(null),
});
export type ReflectRequest = z.input<typeof ReflectRequest>;
export type ParsedReflectRequest = z.output<typeof ReflectRequest>;

export interface FactsPayload {
  query: string;
  count: number;
  memories: FactHit[];
  observations: ObservationHit[];
}

/** A memory the missed-evidence probe found and the run never retrieved (see probe.ts). */
export const ProbeHit = z.object({
  id: z.string(),
  tier: Tier,
  /** 1-based place among the probe's hits (fused over every query and tier, retrieved ids dropped). */
  rank: z.number().int().positive(),
  /** Its best 1-based rank in any single search of the probe. */
  bestRank: z.number().int().positive(),
  /** The fused RRF score: Σ 1 / (60 + rank) over the searches that found it; higher is better. */
  score: z.number(),
  /** The store's own score in the search that ranked it best (higher is better), when it gives one. */
  searchScore: z.number().nullable(),
  /** The query of the search that ranked it best: the question, or a query the model issued. */
  query: z.string(),
  /** The memory's text (a mental model's name and content), cut short for display. */
  preview: z.string(),
  /** Top 3 in some search and holding enough of its terms (see probe.ts): strong enough to say the run missed it. */
  strong: z.boolean(),
});
export type ProbeHit = z.infer<typeof ProbeHit>;

/**
 * A memory the run read that answers the question strongly, while its answer is negative: "read but
 * not used" (probe.ts `readButUnused`).
 */
export const UnusedHit = z.object({
  id: z.string(),
  tier: Tier,
  /** Its best 1-based rank in one of the run's own searches. */
  rank: z.number().int().positive(),
  /** The memory's text, cut short for display. */
  preview: z.string(),
});
export type UnusedHit = z.infer<typeof UnusedHit>;

/** What the missed-evidence probe searched and found (docs/engine.md#the-missed-evidence-probe): the `probe.finished` event and `result.probe`. */
export const ProbeResult = z.object({
  /** Searched in this order: the question first, then each distinct query the model issued. */
  queries: z.array(z.string()),
  /** Distinct model queries past the probe's cap, not searched. */
  skippedQueries: z.number().int().nonnegative(),
  hits: z.array(ProbeHit),
  /** Some hit is strong. With a negative answer this flags the run `missed_evidence`. */
  strong: z.boolean(),
  durationMs: z.number().nonnegative(),
  /** Searches that failed (tier, query and why): the probe is partial when this is not empty. */
  errors: z.array(z.string()),
  /**
   * With a negative answer: memories the run did retrieve that match the question strongly (read
   * but not used). Absent when there are none, as in runs recorded before it existed.
   */
  unused: z.array(UnusedHit).optional(),
});
export type ProbeResult = z.infer<typeof ProbeResult>;

/**
 * A run's result: the one declaration. The `run.finished` event carries it, the run row stores it,
 * and lib/contracts derives the API and CLI run results from it.
 */
export const ReflectResultSchema = z.object({
  status: RunStatus,
  answer: z.string(),
  citations: Citations,
  dropped: z.array(DroppedCitation),
  flags: z.array(RunFlag),
  usage: Usage,
  llmCalls: z.number().int().nonnegative(),
  iterations: z.number().int().nonnegative(),
  warnings: z.array(z.string()),
  /** Failure receipt: what broke and in which phase. */
  error: z.object({ message: z.string(), phase: z.string() }).nullable(),
  /**
   * The missed-evidence probe; null in facts mode, for a run that failed or was interrupted, and
   * for runs recorded before the probe existed.
   */
  probe: ProbeResult.nullable().default(null),
});
export type ReflectResult = z.infer<typeof ReflectResultSchema> & { facts?: FactsPayload };
/** A result as written before parsing: `probe` may be absent (runs recorded before the probe). */
export type ReflectResultInput = z.input<typeof ReflectResultSchema>;

/** The result of a run that broke before the engine could finish it (e.g. the engine itself threw). */
export function failedRunResult(error: { message: string; phase: string }): ReflectResult {
  return {
    status: "failed",
    answer: "",
    citations: { memory_ids: [], observation_ids: [], mental_model_ids: [] },
    dropped: [],
    flags: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    llmCalls: 0,
    iterations: 0,
    warnings: [],
    error,
    probe: null,
  };
}
