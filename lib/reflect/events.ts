/**
 * The run event log: append-only, the single source of the timeline. Every payload is validated
 * by this discriminated union; `seq` starts at 0 and `at` is milliseconds since the run started.
 */
import { z } from "zod";
import {
  Budget,
  Citations,
  DroppedCitation,
  ModelInfo,
  perTier,
  RunMode,
  Scope,
  SkillSnapshot,
  TIER_TOOLS,
  Tier,
} from "./domain";
import { ProbeResult, ReflectResultSchema } from "./request";

const TOOL_NAMES = [...TIER_TOOLS, "done"] as const;
export const ToolName = z.enum(TOOL_NAMES);
export type ToolName = z.infer<typeof ToolName>;

/** The text forms a provider reads tool calls from when a response has no structured ones (lib/llm/text-tool-calls.ts). */
export const TextToolCallFormat = z.enum(["hermes", "mistral", "bare_json", "harmony"]);
export type TextToolCallFormat = z.infer<typeof TextToolCallFormat>;

export const OutcomeClass = z.enum(["success", "empty", "error", "policy_reject", "unknown_tool"]);
export type OutcomeClass = z.infer<typeof OutcomeClass>;

const Message = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    tool_calls: z
      .array(
        z.object({
          id: z.string(),
          type: z.literal("function"),
          function: z.object({ name: z.string(), arguments: z.string() }),
        }),
      )
      .optional(),
  }),
  z.object({ role: z.literal("tool"), tool_call_id: z.string(), content: z.string() }),
]);

/** A request-scoped system message: sent with one request only, never persisted in the conversation. */
export const Injection = z.object({
  kind: z.enum(["nudge", "anchor", "guard_retry", "prose_hint"]),
  text: z.string(),
  /** Index into `messages` where it was placed. */
  index: z.number().int().nonnegative(),
});
export type Injection = z.infer<typeof Injection>;

const IdsByTier = z.object(perTier(() => z.array(z.string())));
export type IdsByTier = z.infer<typeof IdsByTier>;

export function noTierIds(): IdsByTier {
  return perTier(() => []);
}

const payloads = {
  "run.started": z.object({
    bankId: z.string(),
    question: z.string(),
    skill: SkillSnapshot,
    budget: Budget,
    mode: RunMode,
    scope: Scope,
    model: ModelInfo,
    maxIterations: z.number().int(),
    anchorEvery: z.number().int(),
    enabledTiers: z.array(Tier),
    toolResultCapChars: z.number().int(),
    wallClockMs: z.number().int(),
    parentRunId: z.string().nullable(),
    forkedAtIteration: z.number().int().nullable(),
    warnings: z.array(z.string()),
  }),
  "llm.request": z.object({
    messages: z.array(Message),
    tools: z.array(ToolName),
    toolChoice: z.union([
      z.object({ type: z.literal("auto") }),
      z.object({ type: z.literal("forced"), tool: ToolName }),
    ]),
    injections: z.array(Injection),
  }),
  "llm.response": z.object({
    text: z.string().nullable(),
    toolCalls: z.array(
      z.object({
        id: z.string(),
        /** Normalized name (see tool-names). */
        name: z.string(),
        rawName: z.string(),
        arguments: z.string(),
      }),
    ),
    finishReason: z.string(),
    tokensIn: z.number().int().nonnegative(),
    tokensOut: z.number().int().nonnegative(),
    latencyMs: z.number().nonnegative(),
    /** True when the response was replayed from a parent run (fork), not requested from the model. */
    replayed: z.boolean(),
    /** What the model thought before answering, capped (REASONING_CAP_CHARS); absent when it sent none. */
    reasoning: z.string().optional(),
    /** The reasoning's length before the cap. */
    reasoningChars: z.number().int().nonnegative().optional(),
    /** Reasoning tokens, when the server counted them. */
    reasoningTokens: z.number().int().nonnegative().optional(),
  }),
  /** Something the provider layer changed to make a request work (e.g. the forced tool-choice form). */
  "llm.warning": z.object({ message: z.string() }),
  /**
   * One request to the model server that failed (issue 27): an SDK retry, a tool-choice downgrade,
   * or the last request of a call that failed. Every request is counted in `modelRequests`.
   */
  "llm.request_failed": z.object({
    /** 1-based, among the requests of this iteration's model call. */
    attempt: z.number().int().positive(),
    kind: z.enum(["retry", "downgrade", "final"]),
    error: z.string(),
    status: z.number().int().nullable(),
  }),
  "tool.call": z.object({
    callId: z.string(),
    tool: z.string(),
    tier: Tier.nullable(),
    query: z.string().nullable(),
    reason: z.string().nullable(),
    args: z.unknown(),
  }),
  "tool.result": z.object({
    callId: z.string(),
    tool: z.string(),
    tier: Tier.nullable(),
    outcome: OutcomeClass,
    ids: IdsByTier,
    count: z.number().int().nonnegative(),
    chars: z.number().int().nonnegative(),
    cap: z.number().int().positive(),
    truncated: z.boolean(),
    durationMs: z.number().nonnegative(),
    error: z.string().nullable(),
    /** Ladder signature: tool, canonical arguments and first error line (see call-signature.ts). */
    signature: z.string(),
    /** The content sent back to the model (after the size cap). */
    content: z.string(),
    /** Mental-model versions returned, for "which memory each step read". */
    mentalModels: z.array(z.object({ id: z.string(), version: z.number().int(), isStale: z.boolean() })).optional(),
    observationFreshness: z
      .object({ pending: z.number().int(), freshness: z.string(), isStale: z.boolean() })
      .optional(),
  }),
  "freshness.check": z.object({
    budget: Budget,
    models: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        version: z.number().int().nullable(),
        isStale: z.boolean(),
        reason: z.string(),
        usable: z.boolean(),
      }),
    ),
    verdict: z.enum(["release", "keep_forcing"]),
    why: z.string(),
  }),
  "steering.nudge": z.object({
    text: z.string(),
    trigger: z.enum(["identical_failure", "failure_streak", "repeated_empty"]),
    signature: z.string().nullable(),
    count: z.number().int(),
    sinceIteration: z.number().int(),
  }),
  "steering.halt": z.object({
    reason: z.string(),
    trigger: z.enum(["identical_failure", "failure_streak", "policy_reject"]),
    signature: z.string().nullable(),
    count: z.number().int(),
    sinceIteration: z.number().int(),
  }),
  "steering.anchor": z.object({
    text: z.string(),
    every: z.number().int(),
    progressText: z.string().nullable(),
  }),
  "guard.output": z.object({
    pattern: z.string(),
    action: z.enum(["recovered", "unwrapped", "retry", "degraded"]),
    detail: z.string(),
    /** Pattern `text_tool_call`: the text form the tool calls were read from. */
    format: TextToolCallFormat.optional(),
  }),
  "guard.done_rejected": z.object({
    callId: z.string(),
    why: z.enum(["no_evidence_yet", "release_miss"]),
    message: z.string(),
  }),
  "guard.calls_dropped": z.object({
    reason: z.literal("done_wins"),
    calls: z.array(z.object({ id: z.string(), name: z.string() })),
  }),
  "citations.validated": z.object({
    kept: Citations,
    dropped: z.array(DroppedCitation),
    ungrounded: z.boolean(),
    /** The answer declined with evidence in hand and cites nothing: an abstention, not ungrounded (citations.ts). */
    declined: z.literal(true).optional(),
  }),
  /** The missed-evidence probe (probe.ts): after the answer, before `run.finished`; no LLM call. */
  "probe.finished": ProbeResult,
  "run.finished": ReflectResultSchema,
} as const;

export const EVENT_TYPES = Object.keys(payloads) as (keyof typeof payloads)[];
export type EventType = keyof typeof payloads;
export type EventPayload<T extends EventType> = z.infer<(typeof payloads)[T]>;

const envelope = {
  runId: z.string(),
  seq: z.number().int().nonnegative(),
  at: z.number().nonnegative(),
  /** The loop iteration (0-based) the event belongs to; absent for run-level events. */
  iteration: z.number().int().nonnegative().optional(),
};

function variant<T extends EventType>(type: T) {
  return z.object({ ...envelope, type: z.literal(type), payload: payloads[type] });
}

export const RunEvent = z.discriminatedUnion("type", [
  variant("run.started"),
  variant("llm.request"),
  variant("llm.response"),
  variant("llm.warning"),
  variant("llm.request_failed"),
  variant("tool.call"),
  variant("tool.result"),
  variant("freshness.check"),
  variant("steering.nudge"),
  variant("steering.halt"),
  variant("steering.anchor"),
  variant("guard.output"),
  variant("guard.done_rejected"),
  variant("guard.calls_dropped"),
  variant("citations.validated"),
  variant("probe.finished"),
  variant("run.finished"),
]);
export type RunEvent = z.infer<typeof RunEvent>;
export type RunEventOf<T extends EventType> = Extract<RunEvent, { type: T }>;
