/**
 * The engine's ports. Everything outside the engine (database, model SDKs, clocks) reaches it
 * through the one `ReflectDeps` object passed to `runReflect`.
 */
import type { ModelInfo, ScopeValue, Tier } from "./domain";
import type { RunEvent, TextToolCallFormat } from "./events";

// ---------- memory ----------

/**
 * Where the store's search placed a hit, when it knows: 1-based rank in that search's result and
 * its score, higher is better (the negated BM25 for lexical search, the RRF sum for hybrid).
 */
export interface SearchRank {
  rank?: number;
  score?: number;
}

export interface MentalModelHit extends SearchRank {
  id: string;
  name: string;
  content: string;
  tags: string[];
  version: number;
  /** Rank-derived relevance in (0, 1]; higher is better. */
  relevance: number;
  refreshedAt: string | null;
  isStale: boolean;
  stalenessReason: string;
  /** False for empty, whitespace or placeholder content, whatever the staleness. */
  usable: boolean;
}

export interface ObservationHit extends SearchRank {
  id: string;
  text: string;
  tags: string[];
  scope: ScopeValue;
  sourceFactIds: string[];
  updatedAt: string;
}

export interface FactHit extends SearchRank {
  id: string;
  text: string;
  kind: "world" | "experience";
  tags: string[];
  scope: ScopeValue;
  occurredAt: string | null;
  recordedAt: string;
  /** Who said or wrote it, when the memory is a conversation turn. */
  speaker?: string | null;
  /** The conversation session (or document) it belongs to, and its order there. */
  sessionId?: string | null;
  position?: number | null;
}

export type ObservationFreshness = "up_to_date" | "slightly_stale" | "stale";

export interface ObservationSearch {
  observations: ObservationHit[];
  /** Facts in scope recorded after the newest observation in scope. */
  pending: number;
  freshness: ObservationFreshness;
  isStale: boolean;
}

/** The hit each tier's search returns: a new tier adds its hit type here and its search to MemoryPort. */
export type HitOf<T extends Tier> = {
  mental_models: MentalModelHit;
  observations: ObservationHit;
  raw_facts: FactHit;
}[T];

/** What one tier search returned, tagged with its tier. */
export type Retrieved = { [T in Tier]: { tier: T; hits: HitOf<T>[] } }[Tier];

export interface TierQuery {
  bankId: string;
  query: string;
  limit: number;
  /** All-of tag filter, applied in SQL before the limit. Empty = no filter. */
  tags: string[];
  /** The run's scope. Reads `personal` memories plus, when the bank permits it, the team's. */
  scope: ScopeValue;
  /** Set on the missed-evidence probe's searches (probe.ts), which are not the run's own retrieval. */
  probe?: boolean;
}

/** One query's answer in `MemoryPort.probeSearchMany`: its hits, or why its search failed. */
export type ProbeSearched = { hits: ProbeHitText[] } | { error: unknown };

/** What the missed-evidence probe reads of a hit (probe.ts): a mental model's text is `name: content`. */
export interface ProbeHitText extends SearchRank {
  id: string;
  text: string;
  /** A conversation turn's speaker (raw facts), read as the probe reads a turn (probe.ts `matchText`). */
  speaker?: string | null;
}

/**
 * Memory port. Scope is enforced here: a `team:<id>` the bank does not permit makes
 * `searchObservations` and `recall` throw `ScopeNotPermittedError` (classified `policy_reject`).
 * A query with nothing to search for (see `NothingToSearchError`) makes every search throw rather
 * than answer "no hits": the bank was not read.
 * Mental models are bank-wide and carry no scope.
 */
export interface MemoryPort {
  /**
   * Facts + observations + mental models the scope can read (personal only when the team is not
   * permitted); the engine only asks whether it is 0, so a store may stop counting past a cap.
   */
  countInScope(q: { bankId: string; scope: ScopeValue }): Promise<number>;
  countMentalModels(bankId: string): Promise<number>;
  /** Whether the bank lets a run read this scope (`personal` always; a team only when the bank lists it). */
  permitsScope(q: { bankId: string; scope: ScopeValue }): Promise<boolean>;
  searchMentalModels(q: TierQuery): Promise<MentalModelHit[]>;
  searchObservations(q: TierQuery): Promise<ObservationSearch>;
  recall(q: TierQuery): Promise<FactHit[]>;
  /**
   * The missed-evidence probe's search of one tier (probe.ts): the tier search's ranking and its
   * bank, scope and tag rules, returning only what the probe reads — not mental models' staleness
   * or observations' freshness, which on a large bank cost more than the search. Optional: without
   * it the probe calls the tier searches.
   */
  probeSearch?(tier: Tier, q: TierQuery): Promise<ProbeHitText[]>;
  /**
   * The probe's searches of one tier for several queries at once: for each query, what
   * `probeSearch` would give (its hits, or the error it would fail with), in order. A store may
   * share work between them (one statement for all the mental-model queries). Optional: without it
   * the probe searches each query on its own. A rejection fails every query of the call.
   */
  probeSearchMany?(tier: Tier, queries: readonly string[], q: Omit<TierQuery, "query">): Promise<ProbeSearched[]>;
  /**
   * The speakers of the bank's conversation turns (none for a bank of plain facts): the probe reads
   * a turn as its speaker's (probe.ts `participantsOf`). Optional: without it the probe knows the
   * speakers of the turns it and the run retrieved.
   */
  speakers?(bankId: string): Promise<string[]>;
}

// ---------- model (OpenAI chat-completions shapes) ----------

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ToolDefinition {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** `auto`, or a named tool the model must call (the provider may downgrade the wire form). */
export type ToolChoice = "auto" | { type: "function"; function: { name: string } };

export interface ModelRequest {
  messages: ChatMessage[];
  tools: ToolDefinition[];
  toolChoice: ToolChoice;
  signal?: AbortSignal;
}

/**
 * A request to the model server that failed before the port answered (or gave up): an SDK retry
 * after a 5xx, a 429 or a time-out, or a forced tool-choice form the server rejected (issue 27).
 */
export interface FailedModelRequest {
  /** `retry`: the same request was sent again; `downgrade`: it was re-sent with another tool-choice form. */
  kind: "retry" | "downgrade";
  /** One line, key-free: "HTTP 503: overloaded", "timed out after 1000 ms". */
  error: string;
  /** The HTTP status, when the server answered. */
  status?: number | null;
}

export interface ModelResponse {
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: string;
  usage: { inputTokens: number; outputTokens: number };
  /**
   * What the provider changed to make this request work, in words for the run's warnings (e.g.
   * "forced_tool_choice_downgraded: named → required"). Repeated on every response it applies to.
   */
  warnings?: string[];
  /**
   * What the model thought before answering (reasoning fields or a leading <think> block), already
   * taken out of `content`: it never reaches an answer or the conversation sent back.
   */
  reasoning?: string;
  /** Reasoning tokens, when the server counts them (`usage.completion_tokens_details.reasoning_tokens`). */
  reasoningTokens?: number;
  /** The requests that failed before this answer (retries, downgrades): each one was a request too. */
  failedRequests?: FailedModelRequest[];
  /** Set when `toolCalls` were read from text the model wrote (no structured calls came back). */
  textToolCall?: { format: TextToolCallFormat; calls: number };
}

export interface ModelPort {
  readonly info: ModelInfo;
  complete(request: ModelRequest): Promise<ModelResponse>;
}

// ---------- run sink, clock, ids ----------

/**
 * Where a run's events go. Events arrive in `seq` order. A sink may buffer: then `append` only
 * takes the event in order and `flush` makes everything appended so far durable. The engine
 * flushes before each model call and before it returns (run-log.ts), so no event is acted on or
 * reported before it is stored. A sink without `flush` makes each event durable in `append`.
 */
export interface RunSink {
  append(event: RunEvent): Promise<void>;
  /** Resolves once every event appended so far is durable; rejects when they cannot be stored. */
  flush?(): Promise<void>;
}

export interface Clock {
  /** Milliseconds (epoch or any monotonic origin). */
  now(): number;
}

export interface IdSource {
  next(prefix: string): string;
}

export interface ReflectDeps {
  memory: MemoryPort;
  model: ModelPort;
  sink: RunSink;
  clock: Clock;
  ids: IdSource;
}
