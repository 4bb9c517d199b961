/**
 * Mental models: the record, the views of it (memory browser item, list row, editor detail), its
 * versions, the inputs that change it (API create/update, the editor's draft, refresh) and the
 * refresh outcome. The views derive from the record, so a field means the same thing everywhere.
 */
import { z } from "zod";
import type { FieldChange, VersionEntry } from "@/lib/text/version-changes";
import { Id, IsoTime, LIMITS, Tags, underLimit } from "./fields";
import { RunRef } from "./runs";

export const StaleOverride = z.enum(["stale", "fresh"]).nullable();
/** The editor's choice: `auto` is no override. */
export const StaleOverrideChoice = z.enum(["auto", "stale", "fresh"]);
export type StaleOverrideChoice = z.infer<typeof StaleOverrideChoice>;

/** The freshness check's verdict as a person reads it. */
export const StalenessState = z.enum([
  "fresh",
  "stale",
  "never_refreshed",
  "overridden_stale",
  "overridden_fresh",
  "unusable",
]);
export type StalenessState = z.infer<typeof StalenessState>;

export const MentalModel = z.object({
  id: z.string(),
  bankId: z.string(),
  name: z.string(),
  sourceQuery: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  refreshedAt: z.string().nullable(),
  staleOverride: StaleOverride,
  basedOnIds: z.array(z.string()),
  version: z.number().int(),
  updatedAt: z.string().nullable(),
  isStale: z.boolean(),
  stalenessReason: z.string(),
  usable: z.boolean(),
});
export type MentalModel = z.infer<typeof MentalModel>;

const Staleness = z.object({ state: StalenessState, reason: z.string() });

/** The memory browser's mental-model tier. */
export const MentalModelItem = MentalModel.pick({
  id: true,
  name: true,
  sourceQuery: true,
  content: true,
  tags: true,
  refreshedAt: true,
  version: true,
  isStale: true,
  usable: true,
}).extend(Staleness.shape);
export type MentalModelItem = z.infer<typeof MentalModelItem>;

/** The mental-models list: staleness and how many runs read each model. */
export const MentalModelRow = MentalModel.pick({ id: true, name: true, refreshedAt: true, tags: true, version: true })
  .extend(Staleness.shape)
  .extend({ readBy: z.number().int().meta({ description: "runs whose retrieval returned this model" }) });
export type MentalModelRow = z.infer<typeof MentalModelRow>;

/** The editor: a row with everything needed to edit it. */
export const MentalModelDetail = MentalModelRow.extend(
  MentalModel.pick({
    bankId: true,
    sourceQuery: true,
    content: true,
    staleOverride: true,
    basedOnIds: true,
    updatedAt: true,
  }).shape,
);
export type MentalModelDetail = z.infer<typeof MentalModelDetail>;

export const MentalModelVersion = MentalModel.pick({
  version: true,
  name: true,
  sourceQuery: true,
  content: true,
  tags: true,
  refreshedAt: true,
  staleOverride: true,
  basedOnIds: true,
}).extend({ createdAt: z.string().nullable() });

export const MentalModelList = z.object({ mentalModels: z.array(MentalModel) });
/** GET /api/v1/banks/{bank}/mental-models/{id}: the model and every version, newest first. */
export const MentalModelWithHistory = z.object({ mentalModel: MentalModel, versions: z.array(MentalModelVersion) });
export type MentalModelWithHistory = z.infer<typeof MentalModelWithHistory>;

/** What became of a refresh proposal (its run's status says whether it was usable at all). */
export const RefreshOutcome = z.enum([
  "running",
  "accepted",
  "discarded",
  "unusable",
  "open",
  "superseded",
  "unrecorded",
]);
export type RefreshOutcome = z.infer<typeof RefreshOutcome>;

/** A refresh run in the editor's list, with what became of its proposal in words ("accepted as v4"). */
export const RefreshRunRef = RunRef.extend({ outcome: RefreshOutcome, outcomeLabel: z.string() });
export type RefreshRunRef = z.infer<typeof RefreshRunRef>;

/** The editor's page. */
export const MentalModelPage = z.object({
  model: MentalModelDetail,
  versions: z.array(z.custom<VersionEntry>()),
  readers: z.array(RunRef),
  refreshRuns: z.array(RefreshRunRef),
  /** A version a run read (`?seen=N`), with what changed between it and the current version. */
  seen: z.object({ version: z.number().int(), changes: z.array(z.custom<FieldChange>()) }).nullable(),
  /** A deleted model (a tombstone): `model` is its last version, shown read-only. */
  deleted: z.object({ at: z.string() }).nullable(),
});
export type MentalModelPage = z.infer<typeof MentalModelPage>;

/** Each field's rules, without defaults: an update applies only what it names. */
const MentalModelFieldRules = z.object({
  name: z.string().trim().min(1, "name the model").max(LIMITS.nameChars, underLimit("name", LIMITS.nameChars)),
  sourceQuery: z
    .string()
    .trim()
    .min(1, "a refresh needs a source query")
    .max(LIMITS.questionChars, underLimit("source query", LIMITS.questionChars)),
  content: z.string().max(LIMITS.contentChars, underLimit("content", LIMITS.contentChars)),
  tags: Tags,
  refreshedAt: IsoTime.nullable(),
  staleOverride: StaleOverride,
});

/** A new model: what a create omits starts empty (but its source query: the editor requires one too). */
const MentalModelFields = MentalModelFieldRules.extend({
  content: MentalModelFieldRules.shape.content.default(""),
  tags: Tags.default([]),
  refreshedAt: IsoTime.nullable().default(null),
  staleOverride: StaleOverride.default(null),
});

export const CreateMentalModelBody = MentalModelFields.extend({ id: Id.optional() }).strict();

/** Omitted fields keep their current value (no defaults here: a default would overwrite them). */
export const UpdateMentalModelBody = MentalModelFieldRules.partial()
  .extend({
    expectedVersion: z.number().int().positive().meta({ description: "the version the edit is based on" }),
  })
  .strict();

/** The editor's save: creates (no id, version 0) or edits; a refresh needs a source query. */
export const MentalModelDraft = MentalModelFields.pick({ name: true, content: true, tags: true }).extend({
  bankId: z.string().min(1),
  /** Absent when creating: the id is a slug of the name. */
  id: Id.optional(),
  /** The version the editor loaded; 0 to create. */
  expectedVersion: z.number().int().min(0),
  sourceQuery: MentalModelFieldRules.shape.sourceQuery,
  staleOverride: StaleOverrideChoice,
});
export type MentalModelDraft = z.input<typeof MentalModelDraft>;

export const MentalModelRef = z.object({ bankId: z.string().min(1), id: z.string().min(1) });
export type MentalModelRef = z.input<typeof MentalModelRef>;

export const RefreshMentalModelInput = MentalModelRef.extend({ expectedVersion: z.number().int().min(1).optional() });
export type RefreshMentalModelInput = z.input<typeof RefreshMentalModelInput>;

export const Deleted = z.object({ deleted: z.literal(true) });
export type Deleted = z.infer<typeof Deleted>;

/**
 * "Refresh now" proposes, it never saves: the reflect answer shown against the version it was
 * proposed from. An unusable answer (§3.5b: a failed run, no evidence, placeholder text) says so
 * and cannot be accepted.
 */
export const RefreshProposal = z.discriminatedUnion("usable", [
  z.object({
    usable: z.literal(true),
    runId: z.string(),
    baseVersion: z.number().int(),
    current: z.string(),
    proposed: z.string(),
    basedOnIds: z.array(z.string()),
  }),
  z.object({
    usable: z.literal(false),
    runId: z.string(),
    baseVersion: z.number().int(),
    current: z.string(),
    proposed: z.string().nullable(),
    reason: z.string(),
  }),
]);
export type RefreshProposal = z.infer<typeof RefreshProposal>;

/** A run page's word on a refresh run: which model it proposed content for, and what became of it. */
export const RunRefreshProposal = z.object({
  bankId: z.string(),
  modelId: z.string(),
  modelName: z.string(),
  /** The version the proposal was made on. */
  baseVersion: z.number().int(),
  /** Null once the model was deleted. */
  currentVersion: z.number().int().nullable(),
  outcome: RefreshOutcome,
  outcomeLabel: z.string(),
  /** The model's content now, and the run's answer: the diff to decide on. */
  current: z.string(),
  proposed: z.string().nullable(),
  basedOnIds: z.array(z.string()),
});
export type RunRefreshProposal = z.infer<typeof RunRefreshProposal>;

/** Accept a refresh proposal: the server re-reads the run's answer (never the client's text). */
export const AcceptRefreshInput = MentalModelRef.extend({
  runId: z.string().min(1),
  expectedVersion: z.number().int().min(1),
});
export type AcceptRefreshInput = z.input<typeof AcceptRefreshInput>;

/** Discard a refresh proposal: nothing is saved; the refresh run is recorded as discarded. */
export const DiscardRefreshInput = MentalModelRef.extend({ runId: z.string().min(1) });
export type DiscardRefreshInput = z.input<typeof DiscardRefreshInput>;

/** Restore an old version: saved as a new version on top of `expectedVersion`. */
export const RestoreVersionInput = MentalModelRef.extend({
  version: z.number().int().min(1),
  expectedVersion: z.number().int().min(1),
});
export type RestoreVersionInput = z.input<typeof RestoreVersionInput>;
