/**
 * The timeline's row and view types: what the fold (fold.ts) makes of a run's events and the run
 * page renders — one row kind per thing a reader looks at (a tier search, a freshness check,
 * steering, a guard, the citations, the model's reasoning), the iterations that hold them, the
 * run's header, its citations and the probe's view. Types only (docs/architecture.md says where
 * a new row kind goes).
 */
import type {
  Budget,
  Citations,
  DroppedCitation,
  ModelInfo,
  RunFlag,
  RunMode,
  RunStatus,
  SkillSnapshot,
  Tier,
} from "@/lib/reflect/domain";
import type {
  EventPayload,
  IdsByTier,
  Injection,
  OutcomeClass,
  TextToolCallFormat,
  ToolName,
} from "@/lib/reflect/events";
import type { RunBadge } from "./badges";

export type RowKind = "tier" | "freshness" | "steering" | "guard" | "citations" | "reasoning";

interface RowBase {
  /** Stable across refolds: `e<seq>` of the event that opened the row. */
  id: string;
  kind: RowKind;
  /** null for run-level rows (facts mode retrieval, post-loop validation). */
  iteration: number | null;
  /** Source events, for loading the full payload lazily. */
  seqs: number[];
  /** ms since run start of the opening event. */
  at: number;
}

export interface TierResult {
  outcome: OutcomeClass;
  count: number;
  ids: IdsByTier;
  chars: number;
  cap: number;
  truncated: boolean;
  durationMs: number;
  error: string | null;
  observationFreshness?: { pending: number; freshness: string; isStale: boolean };
  mentalModels?: { id: string; version: number; isStale: boolean }[];
}

export interface TierRow extends RowBase {
  kind: "tier";
  tool: string;
  /** null when the model called a tool that is not a tier (unknown tool). */
  tier: Tier | null;
  callId: string;
  query: string | null;
  reason: string | null;
  /** null until the tool result arrives. */
  result: TierResult | null;
  /** Ids this row returned that the final answer cites (kept citations traced to this row). */
  citedIds: ReadonlySet<string>;
}

export interface FreshnessRow extends RowBase {
  kind: "freshness";
  budget: Budget;
  models: EventPayload<"freshness.check">["models"];
  verdict: "release" | "keep_forcing";
  why: string;
}

export interface SteeringRow extends RowBase {
  kind: "steering";
  action: "nudge" | "halt" | "anchor";
  /** Exactly what was injected (nudge, anchor) or the halt reason. */
  text: string;
  trigger: string;
  /** What triggered it, in words. */
  triggerLabel: string;
  signature: string | null;
}

export type GuardRow = RowBase & { kind: "guard" } & (
    | {
        action: "output";
        pattern: string;
        outcome: EventPayload<"guard.output">["action"];
        detail: string;
        /** Pattern `text_tool_call`: the text form the calls were read from. */
        format?: TextToolCallFormat;
      }
    | { action: "done_rejected"; callId: string; why: "no_evidence_yet" | "release_miss"; message: string }
    | { action: "calls_dropped"; reason: string; calls: { id: string; name: string }[] }
    /** The provider changed a request to make it work (e.g. the forced tool-choice form). */
    | { action: "provider_warning"; message: string }
  );

export interface CitationsRow extends RowBase {
  kind: "citations";
  kept: Citations;
  dropped: DroppedCitation[];
  ungrounded: boolean;
  /** The answer declined with evidence in hand and cited nothing: an abstention (not ungrounded). */
  declined: boolean;
}

/** What the model thought before one response (its reasoning fields or a leading <think> block). */
export interface ReasoningRow extends RowBase {
  kind: "reasoning";
  /** The reasoning as recorded (capped); a text filter over rows sees it. */
  text: string;
  /** Its length before the cap. */
  chars: number;
  /** The recorded text is the first part only. */
  truncated: boolean;
  /** Reasoning tokens, when the server counted them. */
  tokens: number | null;
}

export type TimelineRow = TierRow | FreshnessRow | SteeringRow | GuardRow | CitationsRow | ReasoningRow;

export interface TimelineIteration {
  index: number;
  /** Forced when the (first) request of the iteration named a tool; auto otherwise or without a call. */
  mode: "forced" | "auto";
  forcedTool: ToolName | null;
  llmCalls: number;
  latencyMs: number;
  tokensIn: number;
  tokensOut: number;
  replayed: boolean;
  /** A request is still without its response (the model is working, or the run stopped first). */
  awaitingResponse: boolean;
  /** Request-scoped injections sent with this iteration's requests. */
  injections: Injection["kind"][];
  /** Tool names the model called, in order. */
  toolCalls: string[];
  /** Text the model wrote beside its tool calls (last non-empty). */
  text: string | null;
  requestSeqs: number[];
  responseSeqs: number[];
  rows: TimelineRow[];
  /** ms since run start: the iteration's first event, and its last (a response or result included). */
  startAt: number;
  endAt: number;
  /** Time the tools took (sum of the results' durations). */
  toolMs: number;
}

export interface RunHeader {
  runId: string | null;
  bankId: string | null;
  question: string;
  skill:
    | (Pick<SkillSnapshot, "name" | "version" | "mission" | "disposition" | "draft"> & {
        /** Mental models the run read as unsaved drafts: which, on which saved version. */
        mentalModelDrafts: { id: string; name: string; baseVersion: number }[];
      })
    | null;
  budget: Budget | null;
  mode: RunMode | null;
  scope: string | null;
  model: ModelInfo | null;
  maxIterations: number | null;
  enabledTiers: Tier[];
  parentRunId: string | null;
  forkedAtIteration: number | null;
  status: RunStatus;
  /** `at` of the last event. */
  durationMs: number;
  tokensIn: number;
  tokensOut: number;
  llmCalls: number;
  /** Every request sent to the model server: answered calls, retries, downgrades (issue 27). */
  modelRequests: number;
  iterationCount: number;
  warnings: string[];
  error: { message: string; phase: string } | null;
  /** The outcome in words ("answered from mental models only", "2 scope rejections"); see outcome.ts. */
  outcome: string[];
}

export interface TimelineCitation {
  id: string;
  /** The tier it was cited under (the `done` list it was placed in). */
  tier: Tier;
  status: "kept" | "dropped";
  reason?: DroppedCitation["reason"];
  /** Row that first returned this id; absent when never retrieved. */
  retrievedByRowId?: string;
  /** Tier the id was actually retrieved from (differs from `tier` for wrong_tier drops). */
  retrievedTier?: Tier;
  /** The memory's text as the retrieving tool result carried it. */
  text?: string;
}

export interface RunView {
  header: RunHeader;
  badges: RunBadge[];
  flags: RunFlag[];
  /** Run-level rows before the first iteration (facts mode retrieval). */
  rowsBefore: TimelineRow[];
  iterations: TimelineIteration[];
  /** Run-level rows after the loop (final validation, guard). */
  rowsAfter: TimelineRow[];
  answer: string | null;
  citations: TimelineCitation[];
  /** The missed-evidence probe's section; null before it ran and for runs without one. */
  probe: ProbeView | null;
  lastSeq: number;
}

/** "What the run didn't see": the probe's hits, and whether the run was flagged for missing them. */
export interface ProbeView extends EventPayload<"probe.finished"> {
  /** `e<seq>` of the probe event. */
  id: string;
  seq: number;
  at: number;
  /** The run was flagged `missed_evidence`: a negative answer while strong hits were left unseen. */
  missed: boolean;
}
