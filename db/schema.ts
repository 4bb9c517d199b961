/**
 * The memory store (docs/engine.md#memory-model). Times are ISO-8601 UTC strings (`toISOString()` form) so that string
 * comparison is time comparison. Tags and other lists are JSON arrays in TEXT columns (queried
 * with `json_each`). Tier tables have an integer `pk` (the rowid) that the FTS5 external-content
 * tables and the vector indexes key on; `id` is the public identifier.
 * FTS5 tables, their triggers and the `meta` table live in a custom migration; embedding columns
 * are added at runtime (db/queries/embeddings.ts) because their dimension is configurable.
 */
import { blob, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { type ConfigSnapshot, EXPERIMENT_STATUSES, type RetrievedMemory } from "@/lib/contracts/experiments";
import type { SuiteQuestion } from "@/lib/contracts/suites";

import {
  type Citations,
  type DroppedCitation,
  RUN_STATUSES,
  type RunFlag,
  type SkillSnapshot,
  type Tier,
} from "@/lib/reflect/domain";

const json = <T>(name: string) => text(name, { mode: "json" }).$type<T>().notNull();

export const banks = sqliteTable("banks", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  permittedTeams: json<string[]>("permitted_teams"),
  /**
   * Set while a JSONL import fills the bank in chunks (db/bundle-io.ts `importBundleLines`): the
   * importing process's owner id. Such a bank is invisible (getBank, listBanks) until the import's
   * last, short transaction clears it; an import whose process stopped is removed by the sweep.
   */
  importOwner: text("import_owner"),
});

export const facts = sqliteTable(
  "facts",
  {
    pk: integer("pk").primaryKey(),
    id: text("id").notNull(),
    bankId: text("bank_id")
      .notNull()
      .references(() => banks.id, { onDelete: "cascade" }),
    text: text("text").notNull(),
    kind: text("kind", { enum: ["world", "experience"] }).notNull(),
    tags: json<string[]>("tags"),
    scope: text("scope").notNull(),
    occurredAt: text("occurred_at"),
    recordedAt: text("recorded_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    documentId: text("document_id"),
    /** Who said or wrote it (a conversation's speaker). */
    speaker: text("speaker"),
    /** The conversation session or document it belongs to; its date is `occurredAt`. */
    sessionId: text("session_id"),
    /** Its order within the session (0-based or 1-based, as given). */
    position: integer("position"),
  },
  (t) => [
    uniqueIndex("facts_bank_id_uq").on(t.bankId, t.id),
    index("facts_bank_session_idx").on(t.bankId, t.sessionId, t.position),
    index("facts_bank_speaker_idx").on(t.bankId, t.speaker),
    index("facts_bank_updated_idx").on(t.bankId, t.updatedAt),
    index("facts_bank_recorded_idx").on(t.bankId, t.recordedAt),
  ],
);

export const observations = sqliteTable(
  "observations",
  {
    pk: integer("pk").primaryKey(),
    id: text("id").notNull(),
    bankId: text("bank_id")
      .notNull()
      .references(() => banks.id, { onDelete: "cascade" }),
    text: text("text").notNull(),
    tags: json<string[]>("tags"),
    scope: text("scope").notNull(),
    sourceFactIds: json<string[]>("source_fact_ids"),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("observations_bank_id_uq").on(t.bankId, t.id),
    index("observations_bank_updated_idx").on(t.bankId, t.updatedAt),
  ],
);

export const mentalModels = sqliteTable(
  "mental_models",
  {
    pk: integer("pk").primaryKey(),
    id: text("id").notNull(),
    bankId: text("bank_id")
      .notNull()
      .references(() => banks.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    sourceQuery: text("source_query").notNull(),
    content: text("content").notNull(),
    tags: json<string[]>("tags"),
    refreshedAt: text("refreshed_at"),
    staleOverride: text("stale_override", { enum: ["stale", "fresh"] }),
    basedOnIds: json<string[]>("based_on_ids"),
    version: integer("version").notNull(),
    /** When the current version was saved; null when imported without a time. */
    updatedAt: text("updated_at"),
  },
  (t) => [uniqueIndex("mental_models_bank_id_uq").on(t.bankId, t.id)],
);

export const mentalModelVersions = sqliteTable(
  "mental_model_versions",
  {
    bankId: text("bank_id").notNull(),
    modelId: text("model_id").notNull(),
    version: integer("version").notNull(),
    name: text("name").notNull(),
    sourceQuery: text("source_query").notNull(),
    content: text("content").notNull(),
    tags: json<string[]>("tags"),
    refreshedAt: text("refreshed_at"),
    staleOverride: text("stale_override", { enum: ["stale", "fresh"] }),
    basedOnIds: json<string[]>("based_on_ids"),
    createdAt: text("created_at"),
  },
  (t) => [primaryKey({ columns: [t.bankId, t.modelId, t.version] })],
);

/**
 * A deleted mental model: the live row is gone (so lists, search, reflect and bundles never see
 * it), its versions stay in `mental_model_versions`, and this row says when it was deleted, so the
 * version pages runs link to render read-only with a "deleted" banner.
 */
export const mentalModelTombstones = sqliteTable(
  "mental_model_tombstones",
  {
    bankId: text("bank_id")
      .notNull()
      .references(() => banks.id, { onDelete: "cascade" }),
    modelId: text("model_id").notNull(),
    name: text("name").notNull(),
    lastVersion: integer("last_version").notNull(),
    deletedAt: text("deleted_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.bankId, t.modelId] })],
);

/**
 * What became of a refresh proposal: one row per refresh run made from the editor, written when
 * the proposal is shown (`decision` null: open) and updated by Accept (`accepted`, with the version
 * it became) or Discard. The runs' own rows say whether a proposal was usable at all.
 */
export const mentalModelRefreshes = sqliteTable(
  "mental_model_refreshes",
  {
    runId: text("run_id").primaryKey(),
    bankId: text("bank_id").notNull(),
    modelId: text("model_id").notNull(),
    /** The version the proposal was diffed against. */
    baseVersion: integer("base_version").notNull(),
    decision: text("decision", { enum: ["accepted", "discarded"] }),
    /** The version an accepted proposal was saved as. */
    acceptedVersion: integer("accepted_version"),
    decidedAt: text("decided_at"),
  },
  (t) => [index("mental_model_refreshes_model_idx").on(t.bankId, t.modelId)],
);

export interface SkillRetrieval {
  tags: string[];
  types: ("observation" | "episodic")[];
  scope: string;
}

export const skills = sqliteTable(
  "skills",
  {
    id: text("id").notNull(),
    bankId: text("bank_id")
      .notNull()
      .references(() => banks.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    mission: text("mission").notNull(),
    disposition: json<string[]>("disposition"),
    retrieval: json<SkillRetrieval>("retrieval"),
    budget: text("budget", { enum: ["low", "mid", "high"] }).notNull(),
    anchorEvery: integer("anchor_every").notNull(),
    outputFormat: text("output_format").notNull(),
    answerFormat: text("answer_format", { enum: ["prose", "json"] })
      .notNull()
      .default("prose"),
    version: integer("version").notNull(),
    updatedAt: text("updated_at"),
  },
  (t) => [primaryKey({ columns: [t.bankId, t.id] }), uniqueIndex("skills_bank_name_uq").on(t.bankId, t.name)],
);

export const skillVersions = sqliteTable(
  "skill_versions",
  {
    bankId: text("bank_id").notNull(),
    skillId: text("skill_id").notNull(),
    version: integer("version").notNull(),
    name: text("name").notNull(),
    mission: text("mission").notNull(),
    disposition: json<string[]>("disposition"),
    retrieval: json<SkillRetrieval>("retrieval"),
    budget: text("budget", { enum: ["low", "mid", "high"] }).notNull(),
    anchorEvery: integer("anchor_every").notNull(),
    outputFormat: text("output_format").notNull(),
    answerFormat: text("answer_format", { enum: ["prose", "json"] })
      .notNull()
      .default("prose"),
    createdAt: text("created_at"),
  },
  (t) => [primaryKey({ columns: [t.bankId, t.skillId, t.version] })],
);

export const runs = sqliteTable(
  "runs",
  {
    id: text("id").primaryKey(),
    bankId: text("bank_id").notNull(),
    question: text("question").notNull(),
    skillId: text("skill_id"),
    skillName: text("skill_name"),
    skillVersion: integer("skill_version"),
    skillSnapshot: text("skill_snapshot", { mode: "json" }).$type<SkillSnapshot>(),
    budget: text("budget", { enum: ["low", "mid", "high"] }).notNull(),
    mode: text("mode", { enum: ["synthesize", "facts"] }).notNull(),
    scope: text("scope").notNull(),
    modelKind: text("model_kind").notNull(),
    modelName: text("model_name").notNull(),
    /** Typed only (SQLite has no enum): every status the engine and the run lifecycle can write. */
    status: text("status", { enum: RUN_STATUSES }).notNull(),
    answer: text("answer"),
    citations: text("citations", { mode: "json" }).$type<Citations>(),
    dropped: json<DroppedCitation[]>("dropped"),
    flags: json<RunFlag[]>("flags"),
    warnings: json<string[]>("warnings"),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    llmCalls: integer("llm_calls").notNull().default(0),
    /** Every request sent to the model server (calls, retries, downgrades); null before it was counted. */
    modelRequests: integer("model_requests"),
    iterations: integer("iterations").notNull().default(0),
    error: text("error", { mode: "json" }).$type<{ message: string; phase: string }>(),
    parentRunId: text("parent_run_id"),
    forkedAtIteration: integer("forked_at_iteration"),
    createdAt: text("created_at").notNull(),
    finishedAt: text("finished_at"),
    durationMs: integer("duration_ms"),
    /** The process instance running it (`process_instances.id`); null for runs made before owners existed. */
    ownerId: text("owner_id"),
    /**
     * What the run retrieved, each memory once at its best rank in any one search (from its
     * `tool.result` events, written when it finishes); null for runs finished before this existed.
     */
    retrieved: text("retrieved", { mode: "json" }).$type<RetrievedMemory[]>(),
    /**
     * Set on an LLM judge's run (lib/server/services/judge.ts): the run whose answer it graded. The judged
     * run finds its judge by this column; null for every other run.
     */
    judgeOf: text("judge_of"),
    /**
     * The tiers the run could search (its `run.started` event's `enabledTiers`), written with that
     * event: the mental-model pages and retention tell a refresh run by it without reading events
     * (a finished run's are packed, docs/performance.md#stored-bytes-per-run). Null: no run.started.
     */
    enabledTiers: text("enabled_tiers", { mode: "json" }).$type<Tier[]>(),
  },
  (t) => [
    index("runs_created_idx").on(t.createdAt, t.id),
    index("runs_bank_created_idx").on(t.bankId, t.createdAt),
    index("runs_status_idx").on(t.status),
    index("runs_judge_of_idx").on(t.judgeOf),
  ],
);

/**
 * Every process that runs reflects on this database (a server, a CLI, an MCP stdio server) with
 * its heartbeat: a `running` run whose owner's heartbeat went quiet is marked `interrupted`, and
 * only then, so two processes on one file leave each other's live runs alone.
 */
export const processInstances = sqliteTable("process_instances", {
  id: text("id").primaryKey(),
  kind: text("kind").notNull(),
  pid: integer("pid").notNull(),
  hostname: text("hostname").notNull(),
  startedAt: text("started_at").notNull(),
  /** Epoch milliseconds of the last heartbeat. */
  heartbeatAt: integer("heartbeat_at").notNull(),
  /**
   * Which process holds `pid` (Linux: boot id and the process's start time in clock ticks), so a
   * pid reused after a restart (a container's pid 1, say) is not taken for the owner; null elsewhere.
   */
  processStart: text("process_start"),
});

export const runEvents = sqliteTable(
  "run_events",
  {
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    at: real("at").notNull(),
    type: text("type").notNull(),
    iteration: integer("iteration"),
    payload: text("payload", { mode: "json" }).notNull().$type<unknown>(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.seq] })],
);

/**
 * A finished run's events, packed (db/queries/run-event-codec.ts): consecutive events from
 * `first_seq` to `last_seq` (`events` of them), compressed together in `data` as `format` says. A
 * run's events are its packs followed by its `run_events` rows (a running run has only rows).
 */
export const runEventPacks = sqliteTable(
  "run_event_packs",
  {
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    firstSeq: integer("first_seq").notNull(),
    lastSeq: integer("last_seq").notNull(),
    events: integer("events").notNull(),
    format: integer("format").notNull(),
    data: blob("data", { mode: "buffer" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.firstSeq] })],
);

/**
 * Which runs read which mental model: the ids in `ids.mental_models` of a run's `tool.result`
 * events, written with the event, so the mental-model pages count and list readers without
 * reading events.
 */
export const runMentalModelReads = sqliteTable(
  "run_mental_model_reads",
  {
    modelId: text("model_id").notNull(),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.modelId, t.runId] }), index("run_mental_model_reads_run_idx").on(t.runId)],
);

/**
 * The spans an imported run was built from (docs/tracing.md#receiving-traces), as the receiver read
 * them: a later batch of the same trace (an SDK exports spans as they end) rebuilds the run from all.
 */
export const otlpSpans = sqliteTable(
  "otlp_spans",
  {
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    spanId: text("span_id").notNull(),
    span: text("span", { mode: "json" }).notNull().$type<unknown>(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.spanId] })],
);

/** Question suites (docs/experiments.md): the current state; every save is also a row of `suite_versions`. */
export const suites = sqliteTable(
  "suites",
  {
    bankId: text("bank_id")
      .notNull()
      .references(() => banks.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull(),
    questions: json<SuiteQuestion[]>("questions"),
    version: integer("version").notNull(),
    updatedAt: text("updated_at"),
  },
  (t) => [primaryKey({ columns: [t.bankId, t.name] })],
);

export const suiteVersions = sqliteTable(
  "suite_versions",
  {
    bankId: text("bank_id")
      .notNull()
      .references(() => banks.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    version: integer("version").notNull(),
    description: text("description").notNull(),
    questions: json<SuiteQuestion[]>("questions"),
    createdAt: text("created_at"),
  },
  (t) => [primaryKey({ columns: [t.bankId, t.name, t.version] })],
);

/** A suite run under one configuration; its runs are linked in `experiment_runs`. */
export const experiments = sqliteTable(
  "experiments",
  {
    id: text("id").primaryKey(),
    /** Like runs, experiments are history: no foreign key, so replacing a bank keeps them. */
    bankId: text("bank_id").notNull(),
    suite: text("suite").notNull(),
    suiteVersion: integer("suite_version").notNull(),
    /** The suite version's questions as run (the suite may be edited or deleted later). */
    questions: json<SuiteQuestion[]>("questions"),
    config: json<ConfigSnapshot>("config"),
    status: text("status", { enum: EXPERIMENT_STATUSES }).notNull(),
    concurrency: integer("concurrency").notNull(),
    baselineId: text("baseline_id"),
    error: text("error"),
    createdAt: text("created_at").notNull(),
    finishedAt: text("finished_at"),
    ownerId: text("owner_id"),
  },
  (t) => [index("experiments_bank_created_idx").on(t.bankId, t.createdAt)],
);

/** Question `idx` of the experiment's suite version ran as `run_id` (an ordinary run). */
export const experimentRuns = sqliteTable(
  "experiment_runs",
  {
    experimentId: text("experiment_id")
      .notNull()
      .references(() => experiments.id, { onDelete: "cascade" }),
    idx: integer("idx").notNull(),
    runId: text("run_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.experimentId, t.idx] }), index("experiment_runs_run_idx").on(t.runId)],
);

/**
 * A bank's run retention (docs/operations.md#run-retention), applied by the server in the background:
 * runs older than `olderThan` (`30d`, `12h`) or all but the newest `keep` are pruned. No foreign key:
 * like runs, it outlives a bank being replaced.
 */
export const runRetention = sqliteTable("run_retention", {
  bankId: text("bank_id").primaryKey(),
  olderThan: text("older_than"),
  keep: integer("keep"),
  updatedAt: text("updated_at").notNull(),
});
