/**
 * Run-to-run comparison: two event logs in, a step-aligned diff out. Iterations align by index
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
  TIER_REGISTRY,
  TIERS,
  type Tier,
} from "@/lib/reflect/domain";
import { type EventPayload, type IdsByTier, noTierIds, type OutcomeClass, type RunEvent } from "@/lib/reflect/events";
import { type DiffOp, diffLines, diffWords, hasChanges } from "./text-diff";

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
  field: "question" | "skill" | "mission" | "disposition" | "budget" | "mode" | "scope" | "model" | "output_format";
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
}

function emptyStep(iteration: number): StepSide {
  return {
    iteration,
    toolChoice: "auto",
    replayed: false,
    llmCalls: 0,
    tokensIn: 0,
    tokensOut: 0,
    calls: [],
    freshness: null,
    steering: [],
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Mental models in a search result's content (skipped when the size cap cut the JSON). */
function modelsInContent(content: string): SeenMentalModel[] {
  try {
    const parsed: unknown = JSON.parse(content);
    if (!isRecord(parsed) || !Array.isArray(parsed.mental_models)) return [];
    return parsed.mental_models.filter(isRecord).map((m) => ({
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

function extract(events: readonly RunEvent[]): Extracted {
  const steps = new Map<number, StepSide>();
  const models = new Map<string, SeenMentalModel>();
  const callSlot = new Map<string, StepCall>();
  let started: EventPayload<"run.started"> | null = null;
  let finished: EventPayload<"run.finished"> | null = null;
  let runId: string | null = null;
  let llmCalls = 0;
  let tokensIn = 0;
  let tokensOut = 0;

  const stepOf = (ev: RunEvent): StepSide | null => {
    if (ev.iteration === undefined) return null;
    let s = steps.get(ev.iteration);
    if (!s) {
      s = emptyStep(ev.iteration);
      steps.set(ev.iteration, s);
    }
    return s;
  };
  const seeModel = (m: SeenMentalModel) => {
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

  for (const ev of events) {
    runId ??= ev.runId;
    const step = stepOf(ev);
    switch (ev.type) {
      case "run.started":
        started = ev.payload;
        break;
      case "llm.request":
        if (step && step.llmCalls === 0 && ev.payload.toolChoice.type === "forced") {
          step.toolChoice = `forced:${ev.payload.toolChoice.tool}`;
        }
        break;
      case "llm.response":
        llmCalls += ev.payload.replayed ? 0 : 1;
        tokensIn += ev.payload.tokensIn;
        tokensOut += ev.payload.tokensOut;
        if (step) {
          step.llmCalls += 1;
          step.tokensIn += ev.payload.tokensIn;
          step.tokensOut += ev.payload.tokensOut;
          if (ev.payload.replayed) step.replayed = true;
        }
        break;
      case "tool.call": {
        if (!step) break;
        const call: StepCall = {
          tool: ev.payload.tool,
          tier: ev.payload.tier,
          query: ev.payload.query,
          outcome: null,
          ids: noTierIds(),
        };
        callSlot.set(ev.payload.callId, call);
        step.calls.push(call);
        break;
      }
      case "tool.result": {
        const call = callSlot.get(ev.payload.callId);
        if (call) {
          call.outcome = ev.payload.outcome;
          call.ids = ev.payload.ids;
        }
        if (ev.payload.tier === "mental_models") {
          const versions = new Map((ev.payload.mentalModels ?? []).map((m) => [m.id, m]));
          for (const m of modelsInContent(ev.payload.content)) {
            const v = versions.get(m.id);
            seeModel(v ? { ...m, version: v.version, isStale: v.isStale } : m);
          }
        }
        break;
      }
      case "freshness.check":
        if (step) {
          step.freshness = {
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
        for (const m of ev.payload.models) {
          seeModel({ id: m.id, name: m.name, version: m.version, content: null, isStale: m.isStale, reason: m.reason });
        }
        break;
      case "steering.nudge":
        step?.steering.push(`nudge: ${ev.payload.trigger}`);
        break;
      case "steering.halt":
        step?.steering.push(`halt: ${ev.payload.trigger}`);
        break;
      case "steering.anchor":
        step?.steering.push("anchor");
        break;
      case "guard.done_rejected":
        step?.steering.push(`done rejected: ${ev.payload.why}`);
        break;
      case "run.finished":
        finished = ev.payload;
        break;
      default:
        break;
    }
  }

  const s = started as EventPayload<"run.started"> | null;
  const f = finished as EventPayload<"run.finished"> | null;
  return {
    steps,
    models,
    summary: {
      runId,
      question: s?.question ?? "",
      status: f?.status ?? "running",
      llmCalls: f?.llmCalls ?? llmCalls,
      tokensIn: f?.usage.inputTokens ?? tokensIn,
      tokensOut: f?.usage.outputTokens ?? tokensOut,
      iterations: f?.iterations ?? steps.size,
      answer: f?.answer ?? null,
      citations: f?.citations ?? emptyCitations(),
      parentRunId: s?.parentRunId ?? null,
      forkedAtIteration: s?.forkedAtIteration ?? null,
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
    if (va !== vb) out.push({ field, a: va, b: vb, ...(prose ? { diff: diffWords(va, vb) } : {}) });
  };
  push("question", a.question, b.question, true);
  const skill = (s: SkillSnapshot | null) => (s ? `${s.name} v${s.version}` : "—");
  push("skill", skill(a.skill), skill(b.skill));
  push("mission", a.skill?.mission ?? "", b.skill?.mission ?? "", true);
  push("disposition", (a.skill?.disposition ?? []).join(", "), (b.skill?.disposition ?? []).join(", "));
  push("output_format", a.skill?.outputFormat ?? "", b.skill?.outputFormat ?? "");
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

const modelName = (events: readonly RunEvent[]) => {
  const s = events.find((e) => e.type === "run.started");
  return s?.type === "run.started" ? `${s.payload.model.kind}:${s.payload.model.name}` : "—";
};

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
    inputs: diffInputs(a.summary, b.summary, modelName(eventsA), modelName(eventsB)),
    mentalModels: diffModels(a.models, b.models),
  };
}

export interface ReplayDivergence {
  iteration: number;
  /** "call 1 (recall)" */
  where: string;
  parent: string;
  fork: string;
}

/**
 * For a fork: replayed steps whose tool results differ from the parent's (tools re-run against
 * today's memory). Compares returned ids and outcome classes of the replayed iterations only.
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
    step.calls.forEach((call, k) => {
      const prev = before?.calls[k];
      const where = `call ${k + 1} (${call.tool})`;
      if (!prev) {
        out.push({ iteration: i, where, parent: "no call", fork: idsText(call.ids) });
        return;
      }
      const p = `${prev.outcome ?? "pending"}: ${idsText(prev.ids)}`;
      const f = `${call.outcome ?? "pending"}: ${idsText(call.ids)}`;
      if (p !== f) out.push({ iteration: i, where, parent: p, fork: f });
    });
  }
  return out;
}
