import { z } from "zod";

/** The three retrieval tiers, top (curated) to bottom (ground truth). */
export const TIERS = ["mental_models", "observations", "raw_facts"] as const;
export const Tier = z.enum(TIERS);
export type Tier = z.infer<typeof Tier>;

/** `personal`, or `team:<id>` with a non-empty slug id. */
export const Scope = z
  .string()
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
] as const;
export const RunFlag = z.enum(RUN_FLAGS);
export type RunFlag = z.infer<typeof RunFlag>;

export const RetrievalType = z.enum(["observation", "episodic"]);
export type RetrievalType = z.infer<typeof RetrievalType>;

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
});
export type SkillSnapshot = z.infer<typeof SkillSnapshot>;

export const Citations = z.object({
  memory_ids: z.array(z.string()),
  observation_ids: z.array(z.string()),
  mental_model_ids: z.array(z.string()),
});
export type Citations = z.infer<typeof Citations>;

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
  kind: z.enum(["offline", "openai", "scripted", "replay"]),
  name: z.string(),
  baseUrlHost: z.string().optional(),
});
export type ModelInfo = z.infer<typeof ModelInfo>;
