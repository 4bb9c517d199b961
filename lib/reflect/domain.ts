import { z } from "zod";

export const RetrievalType = z.enum(["observation", "episodic"]);
export type RetrievalType = z.infer<typeof RetrievalType>;

/**
 * The tier registry: everything the engine, the folds, OTLP, the offline model and the components
 * know about a retrieval tier, in one table. Array order is tier order, top (curated) to bottom
 * (ground truth): forced retrieval, citation lists and every display follow it. `tool`,
 * `citationKey`, `resultKey` and `textKey` are wire names (docs/engine.md#tools) and never change; `label` is
 * for people; `colour` is a token the UI maps to Tailwind classes (components/timeline/tones.ts).
 * Adding a tier means a row here and its search in the store (MemoryPort, execute.ts).
 */
export const TIER_REGISTRY = [
  {
    id: "mental_models",
    /** The table that stores the tier (its FTS5 index and embedding column follow it). */
    table: "mental_models",
    tool: "search_mental_models",
    citationKey: "mental_model_ids",
    /** The list a search result carries its hits in. */
    resultKey: "mental_models",
    /** The field of a hit that holds its text. */
    textKey: "content",
    label: "mental models",
    colour: "violet",
    defaultMaxResults: 5,
    /** null: offered whenever the bank has any (curated by the user, not a skill retrieval type). */
    retrievalType: null,
    toolDescription:
      "Search curated mental models (summaries maintained by the user). Check is_stale: a stale model may be out of date.",
    promptGuide: "curated summaries; trust one only when is_stale is false, otherwise verify below.",
  },
  {
    id: "observations",
    table: "observations",
    tool: "search_observations",
    citationKey: "observation_ids",
    resultKey: "observations",
    textKey: "text",
    label: "observations",
    colour: "sky",
    defaultMaxResults: 10,
    retrievalType: "observation",
    toolDescription: "Search observations: consolidated beliefs derived from raw facts.",
    promptGuide: "consolidated beliefs derived from raw facts.",
  },
  {
    id: "raw_facts",
    /**
     * The one place the tier has another name: its table is `facts` (bundles' `facts`, the API's
     * retain route `/facts`, migrations). Everywhere in code, the memory page and its links, the
     * tier is `raw_facts`; renaming the table would rewrite its FTS5 indexes in every bank.
     */
    table: "facts",
    tool: "recall",
    citationKey: "memory_ids",
    resultKey: "memories",
    textKey: "text",
    label: "raw facts",
    colour: "amber",
    defaultMaxResults: 20,
    retrievalType: "episodic",
    toolDescription: "Recall raw facts (the ground truth): world facts and experiences.",
    promptGuide: "raw facts, the ground truth, with dates.",
  },
] as const satisfies readonly TierSpec[];

interface TierSpec {
  id: string;
  /** Its storage table (SQL identifier). */
  table: string;
  tool: string;
  citationKey: string;
  resultKey: string;
  textKey: string;
  label: string;
  colour: string;
  defaultMaxResults: number;
  retrievalType: RetrievalType | null;
  toolDescription: string;
  promptGuide: string;
}

type TierEntry = (typeof TIER_REGISTRY)[number];
type Pluck<Rows extends readonly unknown[], K extends PropertyKey> = {
  [I in keyof Rows]: Rows[I] extends Record<K, infer V> ? V : never;
};

/** One column of the registry, in tier order, typed as a tuple (so zod enums can be built from it). */
function column<K extends keyof TierEntry>(key: K): Pluck<typeof TIER_REGISTRY, K> {
  return TIER_REGISTRY.map((t) => t[key]) as unknown as Pluck<typeof TIER_REGISTRY, K>;
}

export const TIERS = column("id");
/** Each tier's table, in tier order (searched and embedded tables derive from it). */
export const TIER_TABLES = column("table");
export type TierTable = TierEntry["table"];
export const Tier = z.enum(TIERS);
export type Tier = z.infer<typeof Tier>;
export type TierInfo<T extends Tier = Tier> = Extract<TierEntry, { id: T }>;
/** A tier's search tool, as offered to the model. */
export type TierTool = TierEntry["tool"];
export const TIER_TOOLS = column("tool");
/** A `done` argument listing one tier's cited ids. */
export type CitationKey = TierEntry["citationKey"];
export type TierColour = TierEntry["colour"];

/** The registry by tier id. */
export const TIER_INFO = Object.fromEntries(TIER_REGISTRY.map((t) => [t.id, t])) as { [T in Tier]: TierInfo<T> };

const TIER_BY_TOOL: ReadonlyMap<string, Tier> = new Map(TIER_REGISTRY.map((t) => [t.tool, t.id]));

/** The tier a tool searches; null for `done` and for names that are not a tier tool. */
export function tierForTool(tool: string): Tier | null {
  return TIER_BY_TOOL.get(tool) ?? null;
}

export function isTierTool(name: string): name is TierTool {
  return TIER_BY_TOOL.has(name);
}

/**
 * `done`'s id lists in wire order: ground truth first, as docs/engine.md#tools writes them. Every `Citations`
 * object (events, results, API, CLI) keeps this key order.
 */
const CITATION_ORDER: readonly TierInfo[] = [...TIER_REGISTRY].reverse();
export const CITATION_KEYS: readonly CitationKey[] = CITATION_ORDER.map((t) => t.citationKey);

/** `personal`, or `team:<id>` with a non-empty slug id. */
export const Scope = z
  .string()
  .max(205, "a scope is personal or team:<id> with an id of at most 200 characters")
  .regex(/^(personal|team:[a-z0-9][a-z0-9_-]*)$/, 'scope must be "personal" or "team:<id>"')
  .transform((s) => s as ScopeValue);
export type ScopeValue = "personal" | `team:${string}`;

export const Budget = z.enum(["low", "mid", "high"]);
export type Budget = z.infer<typeof Budget>;
export const ITERATIONS_BY_BUDGET: Record<Budget, number> = { low: 5, mid: 10, high: 20 };

export const RunMode = z.enum(["synthesize", "facts"]);
export type RunMode = z.infer<typeof RunMode>;

export const RUN_STATUSES = ["running", "done", "no_evidence", "halted", "degraded", "failed", "interrupted"] as const;
export const RunStatus = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatus>;

export const RUN_FLAGS = [
  "short_circuited",
  "nudged",
  "halted",
  "anchored",
  "ungrounded",
  "degraded",
  "release_miss",
  "replayed",
  "truncated",
  "missed_evidence",
  /** Read from an OTLP trace (docs/tracing.md#receiving-traces): read-only, never run by this engine. */
  "imported",
] as const;
export const RunFlag = z.enum(RUN_FLAGS);
export type RunFlag = z.infer<typeof RunFlag>;

/**
 * What shape a skill's answer takes. Only `json` switches off the output guard's envelope check;
 * free text in `outputFormat` never does (docs/engine.md#never-a-misleading-result).
 */
export const AnswerFormat = z.enum(["prose", "json"]);
export type AnswerFormat = z.infer<typeof AnswerFormat>;

/**
 * A mental model a run read as an experiment's unsaved draft: the text and staleness it read, and
 * the saved version the draft was based on (the saved model itself is unchanged).
 */
export const MentalModelDraftRead = z.object({
  id: z.string().min(1),
  name: z.string(),
  baseVersion: z.number().int().positive(),
  content: z.string(),
  staleOverride: z.enum(["stale", "fresh"]).nullable(),
  isStale: z.boolean(),
  stalenessReason: z.string(),
});
export type MentalModelDraftRead = z.infer<typeof MentalModelDraftRead>;

/** The exact skill a run used; stored on the run so later edits never rewrite history. */
export const SkillSnapshot = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  version: z.number().int().positive(),
  mission: z.string(),
  disposition: z.array(z.string().min(1)),
  retrieval: z.object({
    tags: z.array(z.string().min(1)),
    types: z.array(RetrievalType).min(1),
    scope: Scope,
  }),
  budget: Budget,
  anchorEvery: z.number().int().min(1).max(50),
  outputFormat: z.string(),
  /** Snapshots recorded before the field existed read as prose. */
  answerFormat: AnswerFormat.default("prose"),
  /** A "Try" of an unsaved edit: the fields are the draft's, `version` the version it was based on. */
  draft: z.boolean().optional(),
  /** Mental models the run read as unsaved drafts (an experiment's), recorded with the run's configuration. */
  mentalModelDrafts: z.array(MentalModelDraftRead).optional(),
});
export type SkillSnapshot = z.infer<typeof SkillSnapshot>;

/** A shape with one field per citation key, in wire order. */
export function perCitationKey<V>(value: (tier: TierInfo) => V): Record<CitationKey, V> {
  return Object.fromEntries(CITATION_ORDER.map((t) => [t.citationKey, value(t)])) as Record<CitationKey, V>;
}

/** A shape with one field per tier, in tier order. */
export function perTier<V>(value: (tier: TierInfo) => V): Record<Tier, V> {
  return Object.fromEntries(TIER_REGISTRY.map((t) => [t.id, value(t)])) as Record<Tier, V>;
}

export const Citations = z.object(perCitationKey(() => z.array(z.string())));
export type Citations = z.infer<typeof Citations>;

export function emptyCitations(): Citations {
  return perCitationKey(() => []);
}

export function citationCount(c: Citations): number {
  return CITATION_KEYS.reduce((n, k) => n + c[k].length, 0);
}

export const DroppedCitation = z.object({
  id: z.string(),
  /** The tier the model claimed the id belonged to (the `done` list it was placed in). */
  claimedTier: Tier,
  reason: z.enum(["never_retrieved", "wrong_tier"]),
});
export type DroppedCitation = z.infer<typeof DroppedCitation>;

export const Usage = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof Usage>;

export const ModelInfo = z.object({
  /** `imported`: a run read from an OTLP trace (lib/timeline/otlp-import.ts), whose model this app never called. */
  kind: z.enum(["offline", "openai", "scripted", "replay", "imported"]),
  name: z.string(),
  baseUrlHost: z.string().optional(),
});
export type ModelInfo = z.infer<typeof ModelInfo>;
