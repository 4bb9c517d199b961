/**
 * The one walk of a run's event log: events in, a normalized run out — iterations, each a list of
 * steps in log order (model calls with their request and response, tool calls with their result,
 * verdicts: freshness, steering, guards, citations), plus the run's start, finish and totals.
 * The timeline (fold.ts), the comparison (compare.ts), the OTLP export (otlp.ts) and the per-call
 * messages (messages.ts) are views over it, so a new event type is classified here once.
 *
 * Pure and incremental: `createRunWalker().push` takes only new events and stays linear. A step is
 * replaced, never changed, when its response or result arrives, so views may cache by step.
 */
import { perTier, RUN_FLAGS, type RunFlag, TIERS, type Tier } from "@/lib/reflect/domain";
import type { RunEvent, RunEventOf } from "@/lib/reflect/events";

/** Event types that are a verdict on the run so far rather than a call. */
export const VERDICT_TYPES = [
  "freshness.check",
  "steering.nudge",
  "steering.halt",
  "steering.anchor",
  "guard.output",
  "guard.done_rejected",
  "guard.calls_dropped",
  "citations.validated",
  "llm.warning",
  "llm.request_failed",
] as const;
export type VerdictType = (typeof VERDICT_TYPES)[number];
export type VerdictEvent = RunEventOf<VerdictType>;

interface StepBase {
  /** seq, `at` and iteration of the event that opened the step. */
  seq: number;
  at: number;
  iteration: number | null;
}

/** One model call: the request and the response that answered it (first in, first out per iteration). */
export interface ModelStep extends StepBase {
  kind: "model";
  /** null for a response logged without its request. */
  request: RunEventOf<"llm.request"> | null;
  /** null while the response is outstanding. */
  response: RunEventOf<"llm.response"> | null;
}

/** One tool call (a tier search or `done`) and its result, paired by call id. */
export interface ToolStep extends StepBase {
  kind: "tool";
  callId: string;
  tool: string;
  tier: Tier | null;
  /** null for a result logged without its call. */
  call: RunEventOf<"tool.call"> | null;
  /** null until the result arrives. */
  result: RunEventOf<"tool.result"> | null;
}

export interface VerdictStep extends StepBase {
  kind: "verdict";
  event: VerdictEvent;
}

/** The missed-evidence probe (after the answer, before the finish): what the run did not see. */
export interface ProbeStep extends StepBase {
  kind: "probe";
  event: RunEventOf<"probe.finished">;
}

export type WalkStep = ModelStep | ToolStep | VerdictStep | ProbeStep;

export interface WalkIteration {
  index: number;
  steps: WalkStep[];
  /** Grows whenever a step is added or replaced, so views can reuse what they built from it. */
  version: number;
}

export interface RunWalk {
  /** The run.started event's run id, else the first event's. */
  runId: string | null;
  started: RunEventOf<"run.started"> | null;
  finished: RunEventOf<"run.finished"> | null;
  /** The missed-evidence probe; null before it ran and for runs without one (facts mode, failed). */
  probe: RunEventOf<"probe.finished"> | null;
  /** The latest citation validation (a running run has no finish to state its citations yet). */
  lastValidation: RunEventOf<"citations.validated"> | null;
  /** Steps without an iteration before the first iteration (facts-mode retrieval). */
  before: WalkStep[];
  /** In index order. */
  iterations: WalkIteration[];
  /** Steps without an iteration once the loop has started (post-loop validation). */
  after: WalkStep[];
  lastSeq: number;
  /** The largest `at` seen. */
  lastAt: number;
  /** Model calls actually made: replayed responses are not calls. */
  llmCalls: number;
  /** Requests to the model server that failed (retries, downgrades, a call's last failed request). */
  failedRequests: number;
  tokensIn: number;
  tokensOut: number;
  /** Flags the events show so far (the finished run states its own). */
  flags: RunFlag[];
  /** What the provider changed to make requests work (llm.warning), in order, each once. */
  providerWarnings: string[];
  /** Per tier: id → the first tool step whose result returned it. */
  retrievedBy: Record<Tier, ReadonlyMap<string, ToolStep>>;
}

/** What an iteration's model steps add up to; the one place per-iteration calls are counted. */
export interface ModelUsage {
  /** Model calls actually made: a replayed response is not a call (the run's total agrees). */
  llmCalls: number;
  /** Responses replayed from a parent run. */
  replayedResponses: number;
  latencyMs: number;
  tokensIn: number;
  tokensOut: number;
  /** A request is still without its response: the model is working, or the run stopped first. */
  awaitingResponse: boolean;
}

export function modelUsage(steps: readonly WalkStep[]): ModelUsage {
  const usage: ModelUsage = {
    llmCalls: 0,
    replayedResponses: 0,
    latencyMs: 0,
    tokensIn: 0,
    tokensOut: 0,
    awaitingResponse: false,
  };
  for (const step of steps) {
    if (step.kind !== "model") continue;
    const response = step.response?.payload;
    if (!response) {
      usage.awaitingResponse ||= step.request !== null;
      continue;
    }
    if (response.replayed) usage.replayedResponses += 1;
    else usage.llmCalls += 1;
    usage.latencyMs += response.latencyMs;
    usage.tokensIn += response.tokensIn;
    usage.tokensOut += response.tokensOut;
  }
  return usage;
}

export interface RunWalker {
  /** Walks new events; events at or below the last walked seq are ignored (overlapping fetches). */
  push(events: readonly RunEvent[]): void;
  /** The walk so far. Its lists grow with later pushes; its steps never change. */
  readonly walk: RunWalk;
}

/** Where a step starts: its opening event, or the step it replaces. */
type Opening = { seq: number; at: number; iteration?: number | null };

/** Where a step sits, so a later event can replace it in place. */
interface Slot {
  list: WalkStep[];
  index: number;
  /** null for run-level steps. */
  iteration: WalkIteration | null;
}

export function createRunWalker(): RunWalker {
  const flags = new Set<RunFlag>();
  const retrievedBy = perTier(() => new Map<string, ToolStep>());
  const walk: RunWalk = {
    runId: null,
    started: null,
    finished: null,
    probe: null,
    lastValidation: null,
    before: [],
    iterations: [],
    after: [],
    lastSeq: -1,
    lastAt: 0,
    llmCalls: 0,
    failedRequests: 0,
    tokensIn: 0,
    tokensOut: 0,
    flags: [],
    providerWarnings: [],
    retrievedBy,
  };
  const iterationByIndex = new Map<number, WalkIteration>();
  /** Requests awaiting their response, per iteration (null: run-level). */
  const awaiting = new Map<number | null, Slot[]>();
  const openCalls = new Map<string, Slot>();

  function iterationFor(ev: RunEvent): WalkIteration | null {
    if (ev.iteration === undefined) return null;
    let it = iterationByIndex.get(ev.iteration);
    if (!it) {
      it = { index: ev.iteration, steps: [], version: 0 };
      iterationByIndex.set(ev.iteration, it);
      walk.iterations.push(it);
      // Iterations normally arrive in order; keep the list sorted if a log interleaves them.
      const prev = walk.iterations[walk.iterations.length - 2];
      if (prev && prev.index > ev.iteration) walk.iterations.sort((a, b) => a.index - b.index);
    }
    return it;
  }

  function listFor(iteration: WalkIteration | null): WalkStep[] {
    return iteration ? iteration.steps : walk.iterations.length === 0 ? walk.before : walk.after;
  }

  /** Adds a step that no later event replaces (a verdict, the probe). */
  function open(ev: RunEvent, step: WalkStep): void {
    const iteration = iterationFor(ev);
    listFor(iteration).push(step);
    if (iteration) iteration.version += 1;
  }

  /** Adds a step a later event replaces (a request its response, a call its result): where it sits. */
  function openSlot(ev: RunEvent, step: WalkStep): Slot {
    const iteration = iterationFor(ev);
    const list = listFor(iteration);
    list.push(step);
    if (iteration) iteration.version += 1;
    return { list, index: list.length - 1, iteration };
  }

  function replace(slot: Slot, step: WalkStep): void {
    slot.list[slot.index] = step;
    if (slot.iteration) slot.iteration.version += 1;
  }

  // Steps are the bulk of a large run: built as literals (no spreads) to keep the walk fast.
  const modelStep = (ev: Opening, request: ModelStep["request"], response: ModelStep["response"]): ModelStep => ({
    kind: "model",
    seq: ev.seq,
    at: ev.at,
    iteration: ev.iteration ?? null,
    request,
    response,
  });
  const toolStep = (
    ev: Opening,
    p: { callId: string; tool: string; tier: Tier | null },
    call: ToolStep["call"],
    result: ToolStep["result"],
  ): ToolStep => ({
    kind: "tool",
    seq: ev.seq,
    at: ev.at,
    iteration: ev.iteration ?? null,
    callId: p.callId,
    tool: p.tool,
    tier: p.tier,
    call,
    result,
  });

  function flag(f: RunFlag): void {
    if (flags.has(f)) return;
    flags.add(f);
    walk.flags = RUN_FLAGS.filter((x) => flags.has(x));
  }

  function apply(ev: RunEvent): void {
    switch (ev.type) {
      case "run.started":
        walk.started = ev;
        walk.runId = ev.runId;
        return;
      case "run.finished":
        walk.finished = ev;
        return;
      case "probe.finished":
        walk.probe = ev;
        open(ev, { kind: "probe", seq: ev.seq, at: ev.at, iteration: ev.iteration ?? null, event: ev });
        return;
      case "llm.request": {
        const slot = openSlot(ev, modelStep(ev, ev, null));
        const key = ev.iteration ?? null;
        const queue = awaiting.get(key);
        if (queue) queue.push(slot);
        else awaiting.set(key, [slot]);
        return;
      }
      case "llm.response": {
        const p = ev.payload;
        if (!p.replayed) walk.llmCalls += 1;
        walk.tokensIn += p.tokensIn;
        walk.tokensOut += p.tokensOut;
        if (p.replayed) flag("replayed");
        const slot = awaiting.get(ev.iteration ?? null)?.shift();
        const pending = slot?.list[slot.index];
        if (slot && pending?.kind === "model") replace(slot, modelStep(pending, pending.request, ev));
        else open(ev, modelStep(ev, null, ev));
        return;
      }
      case "tool.call": {
        const p = ev.payload;
        openCalls.set(p.callId, openSlot(ev, toolStep(ev, p, ev, null)));
        return;
      }
      case "tool.result": {
        const p = ev.payload;
        const slot = openCalls.get(p.callId);
        const pending = slot?.list[slot.index];
        let step: ToolStep;
        if (slot && pending?.kind === "tool") {
          step = toolStep(pending, pending, pending.call, ev);
          replace(slot, step);
          openCalls.delete(p.callId);
        } else {
          step = toolStep(ev, p, null, ev);
          open(ev, step);
        }
        for (const tier of TIERS) {
          for (const id of p.ids[tier]) if (!retrievedBy[tier].has(id)) retrievedBy[tier].set(id, step);
        }
        return;
      }
      case "freshness.check":
        if (ev.payload.verdict === "release") flag("short_circuited");
        break;
      case "steering.nudge":
        flag("nudged");
        break;
      case "steering.halt":
        flag("halted");
        break;
      case "steering.anchor":
        flag("anchored");
        break;
      case "guard.output":
        if (ev.payload.action === "degraded") flag("degraded");
        break;
      case "guard.done_rejected":
        if (ev.payload.why === "release_miss") flag("release_miss");
        break;
      case "guard.calls_dropped":
        break;
      case "llm.warning":
        if (!walk.providerWarnings.includes(ev.payload.message)) {
          walk.providerWarnings = [...walk.providerWarnings, ev.payload.message];
        }
        break;
      case "llm.request_failed":
        walk.failedRequests += 1;
        break;
      case "citations.validated":
        walk.lastValidation = ev;
        if (ev.payload.ungrounded) flag("ungrounded");
        break;
      default: {
        // Every type is handled above; a log from a newer engine may still carry one we do not know.
        const _unknown: never = ev;
        return;
      }
    }
    open(ev, { kind: "verdict", seq: ev.seq, at: ev.at, iteration: ev.iteration ?? null, event: ev });
  }

  return {
    walk,
    push(events) {
      for (const ev of events) {
        if (ev.seq <= walk.lastSeq) continue;
        walk.lastSeq = ev.seq;
        walk.lastAt = Math.max(walk.lastAt, ev.at);
        walk.runId ??= ev.runId;
        apply(ev);
      }
    },
  };
}

/** Walks a whole event log (sorted by seq). */
export function walkRun(events: readonly RunEvent[]): RunWalk {
  const walker = createRunWalker();
  walker.push(events);
  return walker.walk;
}

/** Every step in log order: run-level steps before the loop, the iterations, run-level steps after. */
export function walkSteps(walk: RunWalk): WalkStep[] {
  return [...walk.before, ...walk.iterations.flatMap((it) => it.steps), ...walk.after];
}
