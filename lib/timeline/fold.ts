/**
 * The run timeline fold: run events in, a render-ready view out. Pure and linear in the number of
 * events; `createRunFolder` keeps state between pushes so a live page only folds what is new.
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
import { perTier, TIER_REGISTRY, TIERS } from "@/lib/reflect/domain";
import type { EventPayload, IdsByTier, Injection, OutcomeClass, RunEvent, ToolName } from "@/lib/reflect/events";
import { badgesFromFlags, type RunBadge } from "./badges";
import { memoryTextFromContent } from "./memory-text";

export type RowKind = "tier" | "freshness" | "steering" | "guard" | "citations";

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
    | { action: "output"; pattern: string; outcome: EventPayload<"guard.output">["action"]; detail: string }
    | { action: "done_rejected"; callId: string; why: "no_evidence_yet" | "release_miss"; message: string }
    | { action: "calls_dropped"; reason: string; calls: { id: string; name: string }[] }
  );

export interface CitationsRow extends RowBase {
  kind: "citations";
  kept: Citations;
  dropped: DroppedCitation[];
  ungrounded: boolean;
}

export type TimelineRow = TierRow | FreshnessRow | SteeringRow | GuardRow | CitationsRow;

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
  /** Request-scoped injections sent with this iteration's requests. */
  injections: Injection["kind"][];
  /** Tool names the model called, in order. */
  toolCalls: string[];
  /** Text the model wrote beside its tool calls (last non-empty). */
  text: string | null;
  requestSeqs: number[];
  responseSeqs: number[];
  rows: TimelineRow[];
}

export interface RunHeader {
  runId: string | null;
  bankId: string | null;
  question: string;
  skill: Pick<SkillSnapshot, "name" | "version" | "mission" | "disposition"> | null;
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
  iterationCount: number;
  warnings: string[];
  error: { message: string; phase: string } | null;
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
  lastSeq: number;
}

export interface RunFolder {
  /** Folds new events; events at or below the last folded seq are ignored (poll overlap). */
  push(events: readonly RunEvent[]): void;
  view(): RunView;
  readonly lastSeq: number;
}

const EMPTY_IDS: ReadonlySet<string> = new Set();

const TRIGGER_LABEL: Record<string, string> = {
  identical_failure: "the same failing call repeated",
  failure_streak: "a streak of failing calls",
  repeated_empty: "the same empty search repeated",
  policy_reject: "the same call rejected by scope policy",
};

function triggerLabel(trigger: string, count: number, sinceIteration: number): string {
  return `${TRIGGER_LABEL[trigger] ?? trigger} (×${count}); no progress since iteration ${sinceIteration}`;
}

function emptyIteration(index: number): TimelineIteration {
  return {
    index,
    mode: "auto",
    forcedTool: null,
    llmCalls: 0,
    latencyMs: 0,
    tokensIn: 0,
    tokensOut: 0,
    replayed: false,
    injections: [],
    toolCalls: [],
    text: null,
    requestSeqs: [],
    responseSeqs: [],
    rows: [],
  };
}

/** Tier rows are the bulk of a large run: built as one literal (no spreads) to keep the fold fast. */
function tierRow(
  ev: RunEvent,
  p: { tool: string; tier: Tier | null; callId: string },
  query: string | null,
  reason: string | null,
  result: TierResult | null,
): TierRow {
  return {
    id: `e${ev.seq}`,
    kind: "tier",
    iteration: ev.iteration ?? null,
    seqs: [ev.seq],
    at: ev.at,
    tool: p.tool,
    tier: p.tier,
    callId: p.callId,
    query,
    reason,
    result,
    citedIds: EMPTY_IDS,
  };
}

export function createRunFolder(): RunFolder {
  let lastSeq = -1;
  let lastAt = 0;
  let runId: string | null = null;
  let started: EventPayload<"run.started"> | null = null;
  let finished: EventPayload<"run.finished"> | null = null;
  let lastValidation: EventPayload<"citations.validated"> | null = null;
  let tokensIn = 0;
  let tokensOut = 0;
  let llmCalls = 0;
  const derivedFlags = new Set<RunFlag>();
  const iterations: TimelineIteration[] = [];
  const iterationByIndex = new Map<number, TimelineIteration>();
  const rowsBefore: TimelineRow[] = [];
  const rowsAfter: TimelineRow[] = [];
  /** Where each open tier row lives, so its result replaces it in place. */
  const tierRowSlot = new Map<string, { list: TimelineRow[]; index: number }>();
  /** Per tier: id → first row that retrieved it. */
  const retrievedBy = perTier(() => new Map<string, string>());
  const resultContent = new Map<string, string>();

  function listFor(ev: RunEvent): { list: TimelineRow[]; iteration: number | null } {
    if (ev.iteration === undefined) return { list: iterations.length === 0 ? rowsBefore : rowsAfter, iteration: null };
    return { list: iterationFor(ev.iteration).rows, iteration: ev.iteration };
  }

  function iterationFor(index: number): TimelineIteration {
    let it = iterationByIndex.get(index);
    if (!it) {
      it = emptyIteration(index);
      iterationByIndex.set(index, it);
      iterations.push(it);
      // Iterations normally arrive in order; keep the list sorted if a log interleaves them.
      const prev = iterations[iterations.length - 2];
      if (prev && prev.index > index) iterations.sort((a, b) => a.index - b.index);
    }
    return it;
  }

  function addRow(ev: RunEvent, row: TimelineRow): void {
    listFor(ev).list.push(row);
  }

  function base<K extends RowKind>(ev: RunEvent, kind: K): RowBase & { kind: K } {
    return { id: `e${ev.seq}`, kind, iteration: ev.iteration ?? null, seqs: [ev.seq], at: ev.at };
  }

  function recordRetrieval(rowId: string, ids: IdsByTier): void {
    for (const tier of TIERS) {
      const byId = retrievedBy[tier];
      for (const id of ids[tier]) if (!byId.has(id)) byId.set(id, rowId);
    }
  }

  function apply(ev: RunEvent): void {
    switch (ev.type) {
      case "run.started":
        started = ev.payload;
        runId = ev.runId;
        return;
      case "llm.request": {
        const it = iterationFor(ev.iteration ?? 0);
        if (it.requestSeqs.length === 0 && ev.payload.toolChoice.type === "forced") {
          it.mode = "forced";
          it.forcedTool = ev.payload.toolChoice.tool;
        }
        it.requestSeqs.push(ev.seq);
        for (const inj of ev.payload.injections) it.injections.push(inj.kind);
        return;
      }
      case "llm.response": {
        const it = iterationFor(ev.iteration ?? 0);
        const p = ev.payload;
        it.llmCalls += 1;
        it.latencyMs += p.latencyMs;
        it.tokensIn += p.tokensIn;
        it.tokensOut += p.tokensOut;
        it.responseSeqs.push(ev.seq);
        for (const call of p.toolCalls) it.toolCalls.push(call.name);
        if (p.text?.trim()) it.text = p.text;
        if (p.replayed) {
          it.replayed = true;
          derivedFlags.add("replayed");
        }
        tokensIn += p.tokensIn;
        tokensOut += p.tokensOut;
        llmCalls += 1;
        return;
      }
      case "tool.call": {
        const p = ev.payload;
        if (p.tool === "done") return;
        const { list } = listFor(ev);
        const row = tierRow(ev, p, p.query, p.reason, null);
        tierRowSlot.set(p.callId, { list, index: list.length });
        list.push(row);
        return;
      }
      case "tool.result": {
        const p = ev.payload;
        if (p.tool === "done") return;
        const result: TierResult = {
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
        };
        const slot = tierRowSlot.get(p.callId);
        const open = slot?.list[slot.index];
        let rowId: string;
        if (slot && open?.kind === "tier") {
          // Replace rather than mutate, so views handed out earlier stay unchanged.
          slot.list[slot.index] = { ...open, result, seqs: [open.seqs[0]!, ev.seq] };
          tierRowSlot.delete(p.callId);
          rowId = open.id;
        } else {
          const row = tierRow(ev, p, null, null, result);
          addRow(ev, row);
          rowId = row.id;
        }
        recordRetrieval(rowId, p.ids);
        resultContent.set(rowId, p.content);
        return;
      }
      case "freshness.check":
        if (ev.payload.verdict === "release") derivedFlags.add("short_circuited");
        addRow(ev, {
          ...base(ev, "freshness"),
          budget: ev.payload.budget,
          models: ev.payload.models,
          verdict: ev.payload.verdict,
          why: ev.payload.why,
        });
        return;
      case "steering.nudge":
        derivedFlags.add("nudged");
        addRow(ev, {
          ...base(ev, "steering"),
          action: "nudge",
          text: ev.payload.text,
          trigger: ev.payload.trigger,
          triggerLabel: triggerLabel(ev.payload.trigger, ev.payload.count, ev.payload.sinceIteration),
          signature: ev.payload.signature,
        });
        return;
      case "steering.halt":
        derivedFlags.add("halted");
        addRow(ev, {
          ...base(ev, "steering"),
          action: "halt",
          text: ev.payload.reason,
          trigger: ev.payload.trigger,
          triggerLabel: triggerLabel(ev.payload.trigger, ev.payload.count, ev.payload.sinceIteration),
          signature: ev.payload.signature,
        });
        return;
      case "steering.anchor":
        derivedFlags.add("anchored");
        addRow(ev, {
          ...base(ev, "steering"),
          action: "anchor",
          text: ev.payload.text,
          trigger: "every",
          triggerLabel: `goal anchor every ${ev.payload.every} iterations`,
          signature: null,
        });
        return;
      case "guard.output":
        if (ev.payload.action === "degraded") derivedFlags.add("degraded");
        addRow(ev, {
          ...base(ev, "guard"),
          action: "output",
          pattern: ev.payload.pattern,
          outcome: ev.payload.action,
          detail: ev.payload.detail,
        });
        return;
      case "guard.done_rejected":
        if (ev.payload.why === "release_miss") derivedFlags.add("release_miss");
        addRow(ev, {
          ...base(ev, "guard"),
          action: "done_rejected",
          callId: ev.payload.callId,
          why: ev.payload.why,
          message: ev.payload.message,
        });
        return;
      case "guard.calls_dropped":
        addRow(ev, {
          ...base(ev, "guard"),
          action: "calls_dropped",
          reason: ev.payload.reason,
          calls: ev.payload.calls,
        });
        return;
      case "citations.validated":
        lastValidation = ev.payload;
        if (ev.payload.ungrounded) derivedFlags.add("ungrounded");
        addRow(ev, {
          ...base(ev, "citations"),
          kept: ev.payload.kept,
          dropped: ev.payload.dropped,
          ungrounded: ev.payload.ungrounded,
        });
        return;
      case "run.finished":
        finished = ev.payload;
        return;
    }
  }

  function buildCitations(): TimelineCitation[] {
    const kept = finished?.citations ?? lastValidation?.kept;
    const dropped = finished?.dropped ?? lastValidation?.dropped ?? [];
    const out: TimelineCitation[] = [];
    if (kept) {
      for (const { id: tier, citationKey } of TIER_REGISTRY) {
        for (const id of kept[citationKey]) {
          const rowId = retrievedBy[tier].get(id);
          out.push(citation({ id, tier, status: "kept" }, rowId ? { rowId, tier } : undefined));
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

  function retrievedInAnyTier(id: string): { rowId: string; tier: Tier } | undefined {
    for (const tier of TIERS) {
      const rowId = retrievedBy[tier].get(id);
      if (rowId) return { rowId, tier };
    }
    return undefined;
  }

  function citation(c: TimelineCitation, found: { rowId: string; tier: Tier } | undefined): TimelineCitation {
    if (!found) return c;
    const content = resultContent.get(found.rowId);
    const text = content === undefined ? undefined : memoryTextFromContent(content, found.tier, c.id);
    return { ...c, retrievedByRowId: found.rowId, retrievedTier: found.tier, ...(text === undefined ? {} : { text }) };
  }

  function withCitedIds(rows: TimelineRow[], cited: Map<string, Set<string>>): TimelineRow[] {
    if (cited.size === 0) return rows.slice();
    return rows.map((row) => {
      const ids = row.kind === "tier" ? cited.get(row.id) : undefined;
      return ids ? { ...row, citedIds: ids } : row;
    });
  }

  return {
    get lastSeq() {
      return lastSeq;
    },
    push(events) {
      for (const ev of events) {
        if (ev.seq <= lastSeq) continue;
        lastSeq = ev.seq;
        lastAt = Math.max(lastAt, ev.at);
        runId ??= ev.runId;
        apply(ev);
      }
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
      const s = started;
      const f = finished;
      const flags = f ? f.flags : [...derivedFlags];
      const header: RunHeader = {
        runId,
        bankId: s?.bankId ?? null,
        question: s?.question ?? "",
        skill: s
          ? {
              name: s.skill.name,
              version: s.skill.version,
              mission: s.skill.mission,
              disposition: s.skill.disposition,
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
        durationMs: lastAt,
        tokensIn: f?.usage.inputTokens ?? tokensIn,
        tokensOut: f?.usage.outputTokens ?? tokensOut,
        llmCalls: f?.llmCalls ?? llmCalls,
        iterationCount: f?.iterations ?? iterations.length,
        warnings: [...(s?.warnings ?? []), ...(f?.warnings ?? [])],
        error: f?.error ?? null,
      };
      return {
        header,
        badges: badgesFromFlags(flags),
        flags: badgesFromFlags(flags).map((b) => b.flag),
        rowsBefore: withCitedIds(rowsBefore, cited),
        iterations: iterations.map((it) => ({
          ...it,
          injections: it.injections.slice(),
          toolCalls: it.toolCalls.slice(),
          requestSeqs: it.requestSeqs.slice(),
          responseSeqs: it.responseSeqs.slice(),
          rows: withCitedIds(it.rows, cited),
        })),
        rowsAfter: withCitedIds(rowsAfter, cited),
        answer: f?.answer ?? null,
        citations,
        lastSeq,
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
