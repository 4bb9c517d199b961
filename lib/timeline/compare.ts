/**
 * Run-to-run comparison: two event logs in, a step-aligned diff out, as a view over each run's
 * walk (walk.ts). Iterations align by index
 * (both runs follow the same loop), tool calls inside an iteration by position. The first step
 * with any difference is the first divergence; its aspect says what diverged first.
 */
import {
  type Budget,
  type Citations,
  emptyCitations,
  type RunMode,
  type RunStatus,
  type SkillSnapshot,
  TIER_INFO,
  TIER_REGISTRY,
  TIERS,
  type Tier,
} from "@/lib/reflect/domain";
import { type IdsByTier, noTierIds, type OutcomeClass, type RunEvent } from "@/lib/reflect/events";
import { type DiffOp, diffLines, diffWords, hasChanges, readsInline } from "../text/text-diff";
import { plural, skillLabel } from "./format";
import { modelUsage, type RunWalk, type VerdictEvent, type WalkIteration, walkRun, walkSteps } from "./walk";

export interface StepCall {
  tool: string;
  tier: Tier | null;
  query: string | null;
  /** null until (or unless) the tool result arrived. */
  outcome: OutcomeClass | null;
  ids: IdsByTier;
}

export interface StepFreshness {
  verdict: "release" | "keep_forcing";
  why: string;
  models: { id: string; version: number | null; isStale: boolean; reason: string; usable: boolean }[];
}

/** One iteration of one run, reduced to what a comparison looks at. */
export interface StepSide {
  iteration: number;
  /** "forced" names the tool the request forced; "auto" lets the model choose. */
  toolChoice: "auto" | `forced:${string}`;
  /** The tools the step's first request offered, in request order. */
  offeredTools: string[];
  replayed: boolean;
  llmCalls: number;
  tokensIn: number;
  tokensOut: number;
  calls: StepCall[];
  freshness: StepFreshness | null;
  /** Steering and guard actions, in order: "nudge: …", "halt: …", "anchor", "done rejected: …". */
  steering: string[];
}

export type DiffAspect = "presence" | "tool_choice" | "tool" | "query" | "ids" | "outcome" | "freshness" | "steering";

/** Aspects in the order a reader reasons about a step: what was asked, then what came back. */
export const ASPECT_ORDER: DiffAspect[] = [
  "presence",
  "tool_choice",
  "tool",
  "query",
  "ids",
  "outcome",
  "freshness",
  "steering",
];

export interface StepDifference {
  aspect: DiffAspect;
  /** Which call of the step, in words ("call 1 (recall)"); empty for step-level aspects. */
  where: string;
  a: string;
  b: string;
}

export interface AlignedStep {
  iteration: number;
  a: StepSide | null;
  b: StepSide | null;
  differences: StepDifference[];
}

export interface CitationDiff {
  tier: Tier;
  added: string[];
  removed: string[];
  kept: string[];
}

export interface InputChange {
  field:
    | "question"
    | "skill"
    | "mission"
    | "disposition"
    | "budget"
    | "mode"
    | "scope"
    | "model"
    | "output_format"
    | "answer_format";
  a: string;
  b: string;
  /** Word diff for prose fields (mission, question). */
  diff?: DiffOp[];
}

/** A mental model as one run saw it: from its search results and the freshness check. */
export interface SeenMentalModel {
  id: string;
  name: string | null;
  version: number | null;
  content: string | null;
  isStale: boolean | null;
  reason: string | null;
}

export interface MentalModelChange {
  id: string;
  name: string | null;
  a: SeenMentalModel | null;
  b: SeenMentalModel | null;
  contentChanged: boolean;
  stalenessChanged: boolean;
  /** Line diff of the content when both runs saw it. */
  contentDiff: DiffOp[] | null;
}

export interface RunSummary {
  runId: string | null;
  question: string;
  status: RunStatus | "running";
  llmCalls: number;
  tokensIn: number;
  tokensOut: number;
  iterations: number;
  answer: string | null;
  citations: Citations;
  parentRunId: string | null;
  forkedAtIteration: number | null;
  /** Read from an OTLP trace (docs/tracing.md#receiving-traces), not run by this engine. */
  imported: boolean;
  skill: SkillSnapshot | null;
  budget: Budget | null;
  mode: RunMode | null;
  scope: string | null;
}

export interface RunComparison {
  a: RunSummary;
  b: RunSummary;
  steps: AlignedStep[];
  firstDivergence: { iteration: number; aspect: DiffAspect } | null;
  answerDiff: DiffOp[];
  answerChanged: boolean;
  citations: CitationDiff[];
  inputs: InputChange[];
  mentalModels: MentalModelChange[];
}

interface Extracted {
  summary: RunSummary;
  steps: Map<number, StepSide>;
  models: Map<string, SeenMentalModel>;
  /** "kind:name" of the model that ran. */
  model: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Mental models in a search result's content (skipped when the size cap cut the JSON). */
function modelsInContent(content: string): SeenMentalModel[] {
  try {
    const parsed: unknown = JSON.parse(content);
    const list = isRecord(parsed) ? parsed[TIER_INFO.mental_models.resultKey] : null;
    if (!Array.isArray(list)) return [];
    return list.filter(isRecord).map((m) => ({
      id: String(m.id),
      name: typeof m.name === "string" ? m.name : null,
      version: null,
      content: typeof m.content === "string" ? m.content : null,
      isStale: typeof m.is_stale === "boolean" ? m.is_stale : null,
      reason: typeof m.staleness_reason === "string" ? m.staleness_reason : null,
    }));
  } catch {
    return [];
  }
}

/** One iteration of the walk, reduced to what a comparison looks at. */
function stepSide(it: WalkIteration): StepSide {
  const usage = modelUsage(it.steps);
  const side: StepSide = {
    iteration: it.index,
    toolChoice: "auto",
    offeredTools: [],
    replayed: usage.replayedResponses > 0,
    llmCalls: usage.llmCalls,
    tokensIn: usage.tokensIn,
    tokensOut: usage.tokensOut,
    calls: [],
    freshness: null,
    steering: [],
  };
  let sawRequest = false;
  for (const step of it.steps) {
    switch (step.kind) {
      case "model": {
        const { request } = step;
        if (request && !sawRequest) {
          if (request.payload.toolChoice.type === "forced")
            side.toolChoice = `forced:${request.payload.toolChoice.tool}`;
          side.offeredTools = [...request.payload.tools];
        }
        sawRequest ||= request !== null;
        break;
      }
      case "tool":
        if (!step.call) break;
        side.calls.push({
          tool: step.tool,
          tier: step.tier,
          query: step.call.payload.query,
          outcome: step.result?.payload.outcome ?? null,
          ids: step.result?.payload.ids ?? noTierIds(),
        });
        break;
      case "verdict": {
        const ev = step.event;
        if (ev.type === "freshness.check") {
          side.freshness = {
            verdict: ev.payload.verdict,
            why: ev.payload.why,
            models: ev.payload.models.map((m) => ({
              id: m.id,
              version: m.version,
              isStale: m.isStale,
              reason: m.reason,
              usable: m.usable,
            })),
          };
        }
        const action = steeringAction(ev);
        if (action) side.steering.push(action);
        break;
      }
      case "probe":
        // Run-level, after the loop: the comparison sees it through the runs' flags.
        break;
      default: {
        const unknown: never = step;
        throw new Error(`unknown step ${JSON.stringify(unknown)}`);
      }
    }
  }
  return side;
}

/** How a verdict reads in a step's steering list; null for verdicts compared elsewhere. */
function steeringAction(ev: VerdictEvent): string | null {
  switch (ev.type) {
    case "steering.nudge":
      return `nudge: ${ev.payload.trigger}`;
    case "steering.halt":
      return `halt: ${ev.payload.trigger}`;
    case "steering.anchor":
      return "anchor";
    case "guard.done_rejected":
      return `done rejected: ${ev.payload.why}`;
    case "freshness.check":
    case "guard.output":
    case "guard.calls_dropped":
    case "citations.validated":
    case "llm.warning":
    case "llm.request_failed":
      return null;
    default: {
      const unknown: never = ev;
      throw new Error(`unknown verdict ${JSON.stringify(unknown)}`);
    }
  }
}

/** Every mental model the run saw: from its search results and its freshness checks, in log order. */
function seenModels(walk: RunWalk): Map<string, SeenMentalModel> {
  const models = new Map<string, SeenMentalModel>();
  const see = (m: SeenMentalModel) => {
    const prev = models.get(m.id);
    // Later sightings fill in what earlier ones lacked (content from search, version from the check).
    models.set(m.id, {
      id: m.id,
      name: m.name ?? prev?.name ?? null,
      version: m.version ?? prev?.version ?? null,
      content: m.content ?? prev?.content ?? null,
      isStale: m.isStale ?? prev?.isStale ?? null,
      reason: m.reason ?? prev?.reason ?? null,
    });
  };
  for (const step of walkSteps(walk)) {
    if (step.kind === "tool" && step.result?.payload.tier === "mental_models") {
      const { payload } = step.result;
      const versions = new Map((payload.mentalModels ?? []).map((m) => [m.id, m]));
      for (const m of modelsInContent(payload.content)) {
        const v = versions.get(m.id);
        see(v ? { ...m, version: v.version, isStale: v.isStale } : m);
      }
    }
    if (step.kind === "verdict" && step.event.type === "freshness.check") {
      for (const m of step.event.payload.models) {
        see({ id: m.id, name: m.name, version: m.version, content: null, isStale: m.isStale, reason: m.reason });
      }
    }
  }
  return models;
}

function extract(events: readonly RunEvent[]): Extracted {
  const walk = walkRun(events);
  const s = walk.started?.payload;
  const f = walk.finished?.payload;
  return {
    steps: new Map(walk.iterations.map((it) => [it.index, stepSide(it)])),
    models: seenModels(walk),
    model: s ? `${s.model.kind}:${s.model.name}` : "—",
    summary: {
      runId: walk.runId,
      question: s?.question ?? "",
      status: f?.status ?? "running",
      llmCalls: f?.llmCalls ?? walk.llmCalls,
      tokensIn: f?.usage.inputTokens ?? walk.tokensIn,
      tokensOut: f?.usage.outputTokens ?? walk.tokensOut,
      iterations: f?.iterations ?? walk.iterations.length,
      answer: f?.answer ?? null,
      citations: f?.citations ?? emptyCitations(),
      parentRunId: s?.parentRunId ?? null,
      forkedAtIteration: s?.forkedAtIteration ?? null,
      imported: s?.model.kind === "imported",
      skill: s?.skill ?? null,
      budget: s?.budget ?? null,
      mode: s?.mode ?? null,
      scope: s?.scope ?? null,
    },
  };
}

const idsText = (ids: IdsByTier) =>
  TIERS.flatMap((t) => ids[t])
    .slice()
    .sort()
    .join(", ") || "none";

const freshnessText = (f: StepFreshness | null) =>
  f
    ? `${f.verdict} (${
        [...f.models]
          .sort((x, y) => x.id.localeCompare(y.id))
          .map((m) => `${m.id} ${m.isStale ? "stale" : "fresh"}${m.usable ? "" : ", unusable"}`)
          .join("; ") || "no models"
      })`
    : "no check";

/** The differences of one aligned step, in ASPECT_ORDER. */
export function diffStep(a: StepSide | null, b: StepSide | null): StepDifference[] {
  if (!a || !b) {
    return [{ aspect: "presence", where: "", a: a ? "ran" : "did not run", b: b ? "ran" : "did not run" }];
  }
  const out: StepDifference[] = [];
  if (a.toolChoice !== b.toolChoice) {
    out.push({ aspect: "tool_choice", where: "", a: a.toolChoice, b: b.toolChoice });
  }
  const n = Math.max(a.calls.length, b.calls.length);
  for (let k = 0; k < n; k++) {
    const ca = a.calls[k];
    const cb = b.calls[k];
    const where = `call ${k + 1} (${ca?.tool ?? cb?.tool ?? "?"})`;
    if (!ca || !cb || ca.tool !== cb.tool) {
      out.push({ aspect: "tool", where, a: ca?.tool ?? "no call", b: cb?.tool ?? "no call" });
      continue;
    }
    if ((ca.query ?? "") !== (cb.query ?? "")) {
      out.push({ aspect: "query", where, a: ca.query ?? "—", b: cb.query ?? "—" });
    }
    if (idsText(ca.ids) !== idsText(cb.ids)) out.push({ aspect: "ids", where, a: idsText(ca.ids), b: idsText(cb.ids) });
    if (ca.outcome !== cb.outcome) {
      out.push({ aspect: "outcome", where, a: ca.outcome ?? "pending", b: cb.outcome ?? "pending" });
    }
  }
  const fa = freshnessText(a.freshness);
  const fb = freshnessText(b.freshness);
  if (fa !== fb) out.push({ aspect: "freshness", where: "", a: fa, b: fb });
  const sa = a.steering.join("; ") || "none";
  const sb = b.steering.join("; ") || "none";
  if (sa !== sb) out.push({ aspect: "steering", where: "", a: sa, b: sb });
  return out.sort((x, y) => ASPECT_ORDER.indexOf(x.aspect) - ASPECT_ORDER.indexOf(y.aspect));
}

function diffCitations(a: Citations, b: Citations): CitationDiff[] {
  return TIER_REGISTRY.map(({ id: tier, citationKey }) => {
    const la = a[citationKey];
    const lb = b[citationKey];
    const setA = new Set(la);
    const setB = new Set(lb);
    return {
      tier,
      added: lb.filter((id) => !setA.has(id)),
      removed: la.filter((id) => !setB.has(id)),
      kept: la.filter((id) => setB.has(id)),
    };
  });
}

function diffInputs(a: RunSummary, b: RunSummary, modelA: string, modelB: string): InputChange[] {
  const out: InputChange[] = [];
  const push = (field: InputChange["field"], va: string, vb: string, prose = false) => {
    if (va === vb) return;
    // A rewrite (little in common) is shown as both texts: an interleaved word diff is unreadable.
    const diff = prose ? diffWords(va, vb) : null;
    out.push({ field, a: va, b: vb, ...(diff && readsInline(diff) ? { diff } : {}) });
  };
  push("question", a.question, b.question, true);
  push("skill", skillLabel(a.skill), skillLabel(b.skill));
  push("mission", a.skill?.mission ?? "", b.skill?.mission ?? "", true);
  push("disposition", (a.skill?.disposition ?? []).join(", "), (b.skill?.disposition ?? []).join(", "));
  push("output_format", a.skill?.outputFormat ?? "", b.skill?.outputFormat ?? "");
  // Snapshots recorded before the field existed are prose.
  push("answer_format", a.skill?.answerFormat ?? "prose", b.skill?.answerFormat ?? "prose");
  push("budget", a.budget ?? "—", b.budget ?? "—");
  push("mode", a.mode ?? "—", b.mode ?? "—");
  push("scope", a.scope ?? "—", b.scope ?? "—");
  push("model", modelA, modelB);
  return out;
}

function diffModels(a: Map<string, SeenMentalModel>, b: Map<string, SeenMentalModel>): MentalModelChange[] {
  const ids = [...new Set([...a.keys(), ...b.keys()])].sort();
  const out: MentalModelChange[] = [];
  for (const id of ids) {
    const ma = a.get(id) ?? null;
    const mb = b.get(id) ?? null;
    // Content read by only one run is a difference only if that run saw it; unknown content is not.
    const contentChanged = ma?.content && mb?.content ? ma.content !== mb.content : ma === null || mb === null;
    const stalenessChanged = ma?.isStale !== mb?.isStale || ma?.reason !== mb?.reason;
    const versionChanged = ma?.version !== mb?.version;
    if (!contentChanged && !stalenessChanged && !versionChanged) continue;
    out.push({
      id,
      name: mb?.name ?? ma?.name ?? null,
      a: ma,
      b: mb,
      contentChanged,
      stalenessChanged,
      contentDiff: ma?.content != null && mb?.content != null ? diffLines(ma.content, mb.content) : null,
    });
  }
  return out;
}

/** Compares run `a` (usually the parent) with run `b` (the child). */
export function compareRuns(eventsA: readonly RunEvent[], eventsB: readonly RunEvent[]): RunComparison {
  const a = extract(eventsA);
  const b = extract(eventsB);
  const last = Math.max(-1, ...a.steps.keys(), ...b.steps.keys());
  const steps: AlignedStep[] = [];
  for (let i = 0; i <= last; i++) {
    const sa = a.steps.get(i) ?? null;
    const sb = b.steps.get(i) ?? null;
    if (!sa && !sb) continue;
    steps.push({ iteration: i, a: sa, b: sb, differences: diffStep(sa, sb) });
  }
  const first = steps.find((s) => s.differences.length > 0);
  const answerDiff = diffWords(a.summary.answer ?? "", b.summary.answer ?? "");
  return {
    a: a.summary,
    b: b.summary,
    steps,
    firstDivergence: first?.differences[0] ? { iteration: first.iteration, aspect: first.differences[0].aspect } : null,
    answerDiff,
    answerChanged: hasChanges(answerDiff),
    citations: diffCitations(a.summary.citations, b.summary.citations),
    inputs: diffInputs(a.summary, b.summary, a.model, b.model),
    mentalModels: diffModels(a.models, b.models),
  };
}

export interface ReplayDivergence {
  iteration: number;
  /** What differs: a call's results, the freshness verdict, the tools offered or the tool choice. */
  aspect: "results" | "freshness" | "offered_tools" | "tool_choice";
  /** "call 1 (recall)", "freshness check", "offered tools", "tool choice" */
  where: string;
  parent: string;
  fork: string;
}

const freshnessDrift = (f: StepFreshness | null) =>
  f
    ? `${f.verdict.replace("_", " ")} (${
        [...f.models]
          .sort((x, y) => x.id.localeCompare(y.id))
          .map((m) => `${m.id}${m.version !== null ? ` v${m.version}` : ""} ${m.isStale ? "stale" : "fresh"}`)
          .join("; ") || "no models"
      })`
    : "no check";

/**
 * For a fork: replayed steps that did not replay as the parent ran them, because the tools re-ran
 * against today's memory. Per replayed iteration (aligned by index, as the comparison aligns
 * them): each call's returned ids and outcome, the freshness verdict (with the model versions it
 * judged), the tools the request offered and its tool choice.
 */
export function replayDivergence(
  parentEvents: readonly RunEvent[],
  forkEvents: readonly RunEvent[],
): ReplayDivergence[] {
  const parent = extract(parentEvents);
  const fork = extract(forkEvents);
  const out: ReplayDivergence[] = [];
  for (const [i, step] of [...fork.steps].sort(([x], [y]) => x - y)) {
    if (!step.replayed) continue;
    const before = parent.steps.get(i);
    const push = (aspect: ReplayDivergence["aspect"], where: string, p: string, f: string) => {
      if (p !== f) out.push({ iteration: i, aspect, where, parent: p, fork: f });
    };
    if (before) {
      push("tool_choice", "tool choice", before.toolChoice, step.toolChoice);
      push("offered_tools", "offered tools", before.offeredTools.join(", "), step.offeredTools.join(", "));
    }
    step.calls.forEach((call, k) => {
      const prev = before?.calls[k];
      const where = `call ${k + 1} (${call.tool})`;
      if (!prev) {
        out.push({ iteration: i, aspect: "results", where, parent: "no call", fork: idsText(call.ids) });
        return;
      }
      push(
        "results",
        where,
        `${prev.outcome ?? "pending"}: ${idsText(prev.ids)}`,
        `${call.outcome ?? "pending"}: ${idsText(call.ids)}`,
      );
    });
    if (before) push("freshness", "freshness check", freshnessDrift(before.freshness), freshnessDrift(step.freshness));
  }
  return out;
}

/** How many replayed steps (iterations) differ from the parent's. */
export function driftedSteps(divergences: readonly ReplayDivergence[]): number {
  return new Set(divergences.map((d) => d.iteration)).size;
}

/** What each kind of step difference is called in the compare view. */
export const ASPECT_LABEL: Record<DiffAspect, string> = {
  presence: "only one run got here",
  tool_choice: "tool choice",
  tool: "tool",
  query: "query",
  ids: "returned ids",
  outcome: "outcome",
  freshness: "freshness verdict",
  steering: "steering",
};

/**
 * The one sentence over the aligned steps. "No divergence" only when nothing differs: not the
 * steps, not a fork's replay, and not the inputs — two runs can find the same memory ids while
 * reading different text (a mental-model draft, another mission), and "the same results" would
 * then hide it.
 */
export function divergenceSummary(comparison: RunComparison, replayDrift = 0): string {
  const first = comparison.firstDivergence;
  if (first) return `First divergence at iteration ${first.iteration}: ${ASPECT_LABEL[first.aspect]}.`;
  if (replayDrift > 0)
    return `The runs took the same steps, but ${plural(replayDrift, "replayed step")} of the fork did not replay as the parent ran (see above).`;
  if (comparison.inputs.length + comparison.mentalModels.length > 0)
    return "The runs took the same steps and their searches found the same memories, but their inputs differ (see Inputs that changed).";
  return "No divergence: both runs took the same steps and got the same results.";
}
