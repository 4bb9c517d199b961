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
});
export type ReflectResult = z.infer<typeof ReflectResultSchema> & { facts?: FactsPayload };

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
  };
}
