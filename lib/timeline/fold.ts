/**
 * The run timeline: run events in, a render-ready view out, as a view over the run walk (walk.ts).
 * Pure and linear in the number of events; `createRunFolder` keeps the walk between pushes so a
 * live page only walks what is new.
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
import { TIER_REGISTRY, TIERS } from "@/lib/reflect/domain";
import type {
  EventPayload,
  IdsByTier,
  Injection,
  OutcomeClass,
  RunEvent,
  TextToolCallFormat,
  ToolName,
} from "@/lib/reflect/events";
import { badgesFromFlags, type RunBadge } from "./badges";
import { memoryTextFromContent } from "./memory-text";
import { outcomeWords } from "./outcome";
import {
  createRunWalker,
  type ModelStep,
  modelUsage,
  type ToolStep,
  type VerdictStep,
  type WalkIteration,
  type WalkStep,
} from "./walk";

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

export interface RunFolder {
  /** Folds new events; events at or below the last folded seq are ignored (poll overlap). */
  push(events: readonly RunEvent[]): void;
  view(): RunView;
  readonly lastSeq: number;
}

const EMPTY_IDS: ReadonlySet<string> = new Set();

const TRIGGER_LABEL: Record<EventPayload<"steering.nudge" | "steering.halt">["trigger"], string> = {
  identical_failure: "the same failing call repeated",
  failure_streak: "a streak of failing calls",
  repeated_empty: "the same empty search repeated",
  policy_reject: "the same call rejected by scope policy",
};

function triggerLabel(trigger: keyof typeof TRIGGER_LABEL, count: number, sinceIteration: number): string {
  return `${TRIGGER_LABEL[trigger]} (×${count}); no progress since iteration ${sinceIteration}`;
}

/** A tier row: a retrieval call with its result (`done` is the answer, not a row). */
function tierRow(step: ToolStep): TierRow {
  const p = step.result?.payload;
  return {
    id: `e${step.seq}`,
    kind: "tier",
    iteration: step.iteration,
    seqs: step.call && step.result ? [step.seq, step.result.seq] : [step.seq],
    at: step.at,
    tool: step.tool,
    tier: step.tier,
    callId: step.callId,
    query: step.call?.payload.query ?? null,
    reason: step.call?.payload.reason ?? null,
    result: p
      ? {
          outcome: p.outcome,
          count: p.count,
          ids: p.ids,
          chars: p.chars,
          cap: p.cap,
          truncated: p.truncated,
          durationMs: p.durationMs,
          error: p.error,
          observationFreshness: p.observationFreshness,
          mentalModels: p.mentalModels,
        }
      : null,
    citedIds: EMPTY_IDS,
  };
}

/** The row a verdict shows as. */
function verdictRow(step: VerdictStep): TimelineRow {
  const ev = step.event;
  // The common fields as shorthand in each literal, not spread from a helper: a large run has
  // thousands of these rows, and a spread then added fields costs several times a plain literal.
  const id = `e${step.seq}`;
  const { iteration, at } = step;
  const seqs = [step.seq];
  switch (ev.type) {
    case "freshness.check":
      return {
        id,
        kind: "freshness",
        iteration,
        seqs,
        at,
        budget: ev.payload.budget,
        models: ev.payload.models,
        verdict: ev.payload.verdict,
        why: ev.payload.why,
      };
    case "steering.nudge":
      return {
        id,
        kind: "steering",
        iteration,
        seqs,
        at,
        action: "nudge",
        text: ev.payload.text,
        trigger: ev.payload.trigger,
        triggerLabel: triggerLabel(ev.payload.trigger, ev.payload.count, ev.payload.sinceIteration),
        signature: ev.payload.signature,
      };
    case "steering.halt":
      return {
        id,
        kind: "steering",
        iteration,
        seqs,
        at,
        action: "halt",
        text: ev.payload.reason,
        trigger: ev.payload.trigger,
        triggerLabel: triggerLabel(ev.payload.trigger, ev.payload.count, ev.payload.sinceIteration),
        signature: ev.payload.signature,
      };
    case "steering.anchor":
      return {
        id,
        kind: "steering",
        iteration,
        seqs,
        at,
        action: "anchor",
        text: ev.payload.text,
        trigger: "every",
        triggerLabel: `goal anchor every ${ev.payload.every} iterations`,
        signature: null,
      };
    case "guard.output":
      return {
        id,
        kind: "guard",
        iteration,
        seqs,
        at,
        action: "output",
        pattern: ev.payload.pattern,
        outcome: ev.payload.action,
        detail: ev.payload.detail,
        ...(ev.payload.format ? { format: ev.payload.format } : {}),
      };
    case "guard.done_rejected":
      return {
        id,
        kind: "guard",
        iteration,
        seqs,
        at,
        action: "done_rejected",
        callId: ev.payload.callId,
        why: ev.payload.why,
        message: ev.payload.message,
      };
    case "guard.calls_dropped":
      return {
        id,
        kind: "guard",
        iteration,
        seqs,
        at,
        action: "calls_dropped",
        reason: ev.payload.reason,
        calls: ev.payload.calls,
      };
    case "llm.warning":
      return { id, kind: "guard", iteration, seqs, at, action: "provider_warning", message: ev.payload.message };
    case "llm.request_failed": {
      const p = ev.payload;
      const what =
        p.kind === "retry"
          ? "retried"
          : p.kind === "downgrade"
            ? "re-sent with another tool choice"
            : "the call failed";
      const message = `model request ${p.attempt} failed (${what}): ${p.error}`;
      return { id, kind: "guard", iteration, seqs, at, action: "provider_warning", message };
    }
    case "citations.validated":
      return {
        id,
        kind: "citations",
        iteration,
        seqs,
        at,
        kept: ev.payload.kept,
        dropped: ev.payload.dropped,
        ungrounded: ev.payload.ungrounded,
        declined: ev.payload.declined === true,
      };
    default: {
      const unknown: never = ev;
      throw new Error(`no timeline row for ${(unknown as RunEvent).type}`);
    }
  }
}

/** A list of steps and the rows last built from it, index for index (null: the step shows no row). */
interface BuiltRows {
  steps: readonly WalkStep[];
  rows: (TimelineRow | null)[];
}

const NOTHING_BUILT: BuiltRows = { steps: [], rows: [] };

/** A model call shows as a row only for its reasoning: the call itself is the iteration header. */
function reasoningRow(step: ModelStep): ReasoningRow | null {
  const response = step.response;
  const text = response?.payload.reasoning;
  if (!response || !text) return null;
  const chars = response.payload.reasoningChars ?? text.length;
  return {
    id: `e${response.seq}`,
    kind: "reasoning",
    iteration: response.iteration ?? null,
    seqs: [response.seq],
    at: response.at,
    text,
    chars,
    truncated: chars > text.length,
    tokens: response.payload.reasoningTokens ?? null,
  };
}

/** The row a step shows as; model calls without reasoning and `done` show none (they are the iteration and the answer). */
function rowOf(step: WalkStep): TimelineRow | null {
  switch (step.kind) {
    case "model":
      return reasoningRow(step);
    case "tool":
      return step.tool === "done" ? null : tierRow(step);
    case "verdict":
      return verdictRow(step);
    case "probe":
      // Not a row: the run view carries it as its own section (`RunView.probe`).
      return null;
    default: {
      const unknown: never = step;
      throw new Error(`unknown step ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * The timeline's view of the run walk (walk.ts). A view reuses what earlier views built: an
 * unchanged iteration as a whole, an unchanged step's row, so a live page re-folds only what is new.
 */
export function createRunFolder(): RunFolder {
  const walker = createRunWalker();
  const { walk } = walker;
  const built = new Map<WalkIteration | "before" | "after", BuiltRows>();
  const iterationCache = new Map<WalkIteration, { version: number; view: TimelineIteration }>();

  function rowsOf(key: WalkIteration | "before" | "after", steps: readonly WalkStep[]): TimelineRow[] {
    const prev = built.get(key) ?? NOTHING_BUILT;
    const next: BuiltRows = { steps: steps.slice(), rows: [] };
    const rows: TimelineRow[] = [];
    for (let k = 0; k < steps.length; k++) {
      const step = steps[k]!;
      const row = prev.steps[k] === step ? (prev.rows[k] ?? null) : rowOf(step);
      next.rows.push(row);
      if (row) rows.push(row);
    }
    built.set(key, next);
    return rows;
  }

  function iterationOf(it: WalkIteration): TimelineIteration {
    const cached = iterationCache.get(it);
    if (cached?.version === it.version) return cached.view;
    const view = buildIteration(it);
    iterationCache.set(it, { version: it.version, view });
    return view;
  }

  function buildIteration(it: WalkIteration): TimelineIteration {
    const usage = modelUsage(it.steps);
    const out: TimelineIteration = {
      index: it.index,
      mode: "auto",
      forcedTool: null,
      llmCalls: usage.llmCalls,
      latencyMs: usage.latencyMs,
      tokensIn: usage.tokensIn,
      tokensOut: usage.tokensOut,
      replayed: usage.replayedResponses > 0,
      awaitingResponse: usage.awaitingResponse,
      injections: [],
      toolCalls: [],
      text: null,
      requestSeqs: [],
      responseSeqs: [],
      rows: rowsOf(it, it.steps),
      startAt: it.steps[0]?.at ?? 0,
      endAt: 0,
      toolMs: 0,
    };
    for (const step of it.steps) {
      out.startAt = Math.min(out.startAt, step.at);
      out.endAt = Math.max(out.endAt, step.at);
      if (step.kind === "tool" && step.result) {
        out.toolMs += step.result.payload.durationMs;
        out.endAt = Math.max(out.endAt, step.result.at);
      }
      if (step.kind === "model" && step.response) out.endAt = Math.max(out.endAt, step.response.at);
      if (step.kind !== "model") continue;
      const { request, response } = step;
      if (request) {
        if (out.requestSeqs.length === 0 && request.payload.toolChoice.type === "forced") {
          out.mode = "forced";
          out.forcedTool = request.payload.toolChoice.tool;
        }
        out.requestSeqs.push(request.seq);
        for (const inj of request.payload.injections) out.injections.push(inj.kind);
      }
      if (response) {
        const p = response.payload;
        out.responseSeqs.push(response.seq);
        for (const call of p.toolCalls) out.toolCalls.push(call.name);
        if (p.text?.trim()) out.text = p.text;
      }
    }
    return out;
  }

  function buildCitations(): TimelineCitation[] {
    const finished = walk.finished?.payload;
    const validation = walk.lastValidation?.payload;
    const kept = finished?.citations ?? validation?.kept;
    const dropped = finished?.dropped ?? validation?.dropped ?? [];
    const out: TimelineCitation[] = [];
    if (kept) {
      for (const { id: tier, citationKey } of TIER_REGISTRY) {
        for (const id of kept[citationKey]) {
          const step = walk.retrievedBy[tier].get(id);
          out.push(citation({ id, tier, status: "kept" }, step ? { step, tier } : undefined));
        }
      }
    }
    for (const d of dropped) {
      // A never_retrieved id links to nothing, even if some other tier happened to return it.
      const found = d.reason === "wrong_tier" ? retrievedInAnyTier(d.id) : undefined;
      out.push(citation({ id: d.id, tier: d.claimedTier, status: "dropped", reason: d.reason }, found));
    }
    return out;
  }

  function retrievedInAnyTier(id: string): { step: ToolStep; tier: Tier } | undefined {
    for (const tier of TIERS) {
      const step = walk.retrievedBy[tier].get(id);
      if (step) return { step, tier };
    }
    return undefined;
  }

  function citation(c: TimelineCitation, found: { step: ToolStep; tier: Tier } | undefined): TimelineCitation {
    if (!found) return c;
    const content = found.step.result?.payload.content;
    const text = content === undefined ? undefined : memoryTextFromContent(content, found.tier, c.id);
    return {
      ...c,
      retrievedByRowId: `e${found.step.seq}`,
      retrievedTier: found.tier,
      ...(text === undefined ? {} : { text }),
    };
  }

  /** `rows` with each cited tier row's ids; the same array when none of them is cited. */
  function withCitedIds(rows: TimelineRow[], cited: Map<string, Set<string>>): TimelineRow[] {
    if (cited.size === 0 || !rows.some((row) => row.kind === "tier" && cited.has(row.id))) return rows;
    return rows.map((row) => {
      const ids = row.kind === "tier" ? cited.get(row.id) : undefined;
      return ids ? { ...row, citedIds: ids } : row;
    });
  }

  return {
    get lastSeq() {
      return walk.lastSeq;
    },
    push(events) {
      walker.push(events);
    },
    view() {
      const citations = buildCitations();
      const cited = new Map<string, Set<string>>();
      for (const c of citations) {
        if (c.status !== "kept" || !c.retrievedByRowId) continue;
        let set = cited.get(c.retrievedByRowId);
        if (!set) {
          set = new Set();
          cited.set(c.retrievedByRowId, set);
        }
        set.add(c.id);
      }
      const s = walk.started?.payload;
      const f = walk.finished?.payload;
      const flags = f ? f.flags : walk.flags;
      const header: RunHeader = {
        runId: walk.runId,
        bankId: s?.bankId ?? null,
        question: s?.question ?? "",
        skill: s
          ? {
              name: s.skill.name,
              version: s.skill.version,
              mission: s.skill.mission,
              disposition: s.skill.disposition,
              draft: s.skill.draft ?? false,
              mentalModelDrafts: (s.skill.mentalModelDrafts ?? []).map(({ id, name, baseVersion }) => ({
                id,
                name,
                baseVersion,
              })),
            }
          : null,
        budget: s?.budget ?? null,
        mode: s?.mode ?? null,
        scope: s?.scope ?? null,
        model: s?.model ?? null,
        maxIterations: s?.maxIterations ?? null,
        enabledTiers: s?.enabledTiers ?? [],
        parentRunId: s?.parentRunId ?? null,
        forkedAtIteration: s?.forkedAtIteration ?? null,
        status: f?.status ?? "running",
        durationMs: walk.lastAt,
        tokensIn: f?.usage.inputTokens ?? walk.tokensIn,
        tokensOut: f?.usage.outputTokens ?? walk.tokensOut,
        llmCalls: f?.llmCalls ?? walk.llmCalls,
        // Runs recorded before requests were counted say nothing of retries: their calls stand in.
        modelRequests: f?.modelRequests ?? walk.llmCalls + walk.failedRequests,
        iterationCount: f?.iterations ?? walk.iterations.length,
        // A live run shows a provider warning as soon as it happens; the finished run lists them all.
        warnings: [...new Set([...(s?.warnings ?? []), ...walk.providerWarnings, ...(f?.warnings ?? [])])],
        error: f?.error ?? null,
        outcome: outcomeWords(walk),
      };
      const badges = badgesFromFlags(flags);
      return {
        header,
        badges,
        flags: badges.map((b) => b.flag),
        rowsBefore: withCitedIds(rowsOf("before", walk.before), cited),
        iterations: walk.iterations.map((it) => {
          const view = iterationOf(it);
          const rows = withCitedIds(view.rows, cited);
          return rows === view.rows ? view : { ...view, rows };
        }),
        rowsAfter: withCitedIds(rowsOf("after", walk.after), cited),
        answer: f?.answer ?? null,
        citations,
        probe: walk.probe
          ? {
              ...walk.probe.payload,
              id: `e${walk.probe.seq}`,
              seq: walk.probe.seq,
              at: walk.probe.at,
              missed: flags.includes("missed_evidence"),
            }
          : null,
        lastSeq: walk.lastSeq,
      };
    },
  };
}

/** Folds a whole event log (sorted by seq). */
export function foldRun(events: readonly RunEvent[]): RunView {
  const folder = createRunFolder();
  folder.push(events);
  return folder.view();
}

/** Identifies a citation among the run's citations (an id may be both kept in one tier and dropped in another). */
export function citationKey(c: TimelineCitation): string {
  return `${c.status}:${c.tier}:${c.id}`;
}

/** Every row of a view in timeline order, run-level rows included. */
export function allRows(view: RunView): TimelineRow[] {
  return [...view.rowsBefore, ...view.iterations.flatMap((it) => it.rows), ...view.rowsAfter];
}
