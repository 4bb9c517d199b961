/**
 * The run timeline: run events in, a render-ready view out, as a view over the run walk (walk.ts).
 * Pure and linear in the number of events; `createRunFolder` keeps the walk between pushes so a
 * live page only walks what is new.
 */
import type { Tier } from "@/lib/reflect/domain";
import { TIER_REGISTRY, TIERS } from "@/lib/reflect/domain";
import type { EventPayload, RunEvent } from "@/lib/reflect/events";
import { badgesFromFlags } from "./badges";
import { memoryTextFromContent } from "./memory-text";
import { outcomeWords } from "./outcome";
import type {
  ReasoningRow,
  RunHeader,
  RunView,
  TierRow,
  TimelineCitation,
  TimelineIteration,
  TimelineRow,
} from "./rows";
import {
  createRunWalker,
  type ModelStep,
  modelUsage,
  type ToolStep,
  type VerdictStep,
  type WalkIteration,
  type WalkStep,
} from "./walk";

export type {
  CitationsRow,
  FreshnessRow,
  GuardRow,
  ProbeView,
  ReasoningRow,
  RowKind,
  RunHeader,
  RunView,
  SteeringRow,
  TierResult,
  TierRow,
  TimelineCitation,
  TimelineIteration,
  TimelineRow,
} from "./rows";

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
