/**
 * Experiments (docs/experiments.md): a suite run under one configuration, one ordinary run per question, and
 * the comparison of two experiments. The CLI's `--json` object, the API bodies and the pages all
 * read these shapes.
 */
import { z } from "zod";
import { Budget, RunStatus, Tier } from "@/lib/reflect/domain";
import { Id, LIMITS, McpBank } from "./fields";
import { MentalModelEdit, RerunInput } from "./rerun";
import { EXPECTATION_KEYS, SuiteName } from "./suites";

export const EXPERIMENT_STATUSES = ["running", "done", "cancelled", "failed"] as const;
export const ExperimentStatus = z.enum(EXPERIMENT_STATUSES);
export type ExperimentStatus = z.infer<typeof ExperimentStatus>;

export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 16;

/**
 * A skill draft applied only inside the experiment: a saved version of the skill (`version`),
 * and/or an unsaved mission or disposition on top of it. It applies to the questions that run this
 * skill; nothing is saved.
 */
export const SkillDraft = z
  .object({
    name: z.string().trim().min(1).max(LIMITS.skillNameChars),
    version: z.number().int().positive().optional(),
  })
  .extend(RerunInput.pick({ mission: true, disposition: true }).shape)
  .strict();
export type SkillDraft = z.infer<typeof SkillDraft>;

/** A mental-model edit applied only inside the experiment (what runs read; never saved). */
export const MentalModelDraft = MentalModelEdit.omit({ expectedVersion: true }).extend({ id: Id }).strict();
export type MentalModelDraft = z.infer<typeof MentalModelDraft>;

/** The configuration: the current state when empty, else a draft (never saved). */
export const ExperimentConfig = z
  .object({
    budget: Budget.optional(),
    skill: SkillDraft.optional(),
    mentalModels: z.array(MentalModelDraft).max(100).default([]),
  })
  .strict();
export type ExperimentConfig = z.output<typeof ExperimentConfig>;

/** What was run, recorded with the experiment: the configuration and the model. */
export const ConfigSnapshot = ExperimentConfig.extend({
  model: z.object({ kind: z.string(), name: z.string() }),
  /** True when anything differs from the current state (a skill or mental-model draft). */
  draft: z.boolean(),
});
export type ConfigSnapshot = z.infer<typeof ConfigSnapshot>;

export const StartExperimentInput = z
  .object({
    bankId: Id,
    suite: SuiteName,
    config: ExperimentConfig.default({ mentalModels: [] }),
    /** An experiment to compare with; a regression against it fails the gate. */
    baseline: Id.optional(),
    /**
     * Compare with a baseline that did not complete (failed, cancelled, a question skipped): only
     * the questions run on both sides are compared. Without it such a baseline is refused.
     */
    allowIncompleteBaseline: z.boolean().default(false),
    concurrency: z.number().int().min(1).max(MAX_CONCURRENCY).default(DEFAULT_CONCURRENCY),
  })
  .strict();
export type StartExperimentInput = z.input<typeof StartExperimentInput>;
export const StartExperimentBody = StartExperimentInput.omit({ bankId: true }).extend({ bank: Id });

/** Where a run retrieved a memory: its best 1-based rank in any one search of its tier. */
export const RetrievedMemory = z.object({ id: z.string(), tier: Tier, rank: z.number().int().positive() });
export type RetrievedMemory = z.infer<typeof RetrievedMemory>;

export const ExpectationKey = z.enum(EXPECTATION_KEYS);
export const Failure = z.object({ expectation: ExpectationKey, detail: z.string() });
export type Failure = z.infer<typeof Failure>;

/**
 * What a finished run scored, for the scorecard (null where it does not apply): the first line's
 * F1 and the gold answer contained (questions with `answer`), the evidence (`mustCite` /
 * `mustCiteAny`) retrieved by the run and cited by it, and whether it declined. A run that broke
 * or degraded scores 0 and contains nothing: its text is not an answer.
 */
export const RowScores = z.object({
  f1: z.number().nullable(),
  goldContained: z.boolean().nullable(),
  evidenceRetrieved: z.boolean().nullable(),
  evidenceCited: z.boolean().nullable(),
  abstained: z.boolean().nullable(),
});
export type RowScores = z.infer<typeof RowScores>;

/** One question's row: its run (once started) and each expectation met or not. */
export const ExperimentRow = z.object({
  index: z.number().int(),
  question: z.string(),
  skill: z.string().nullable(),
  /** The question's tags (a benchmark's category): the scorecard has a line per tag. */
  tags: z.array(z.string()),
  runId: z.string().nullable(),
  /**
   * `pending` until the question's run starts; `skipped` when the experiment ended (cancelled, or
   * stopped by an error) before it started: the question did not run, so it neither passed nor failed.
   */
  status: z.union([RunStatus, z.literal("pending"), z.literal("skipped")]),
  llmCalls: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  durationMs: z.number().int().nullable(),
  citations: z.array(z.string()),
  flags: z.array(z.string()),
  /** Null while the run is pending or running, and for a skipped question. */
  passed: z.boolean().nullable(),
  failures: z.array(Failure),
  expectations: z.array(z.object({ expectation: ExpectationKey, met: z.boolean().nullable() })),
  /** Null until the run finished. */
  scores: RowScores.nullable(),
  /** The LLM judge's run for this question, when one judged it. */
  judgeRunId: z.string().nullable().default(null),
});
export type ExperimentRow = z.infer<typeof ExperimentRow>;

export const ExperimentTotals = z.object({
  questions: z.number().int(),
  finished: z.number().int(),
  passed: z.number().int(),
  failed: z.number().int(),
  /** Questions that never ran: the experiment ended before they started. */
  skipped: z.number().int(),
  /** Passed / finished, 0–1; null before any run finished. */
  passRate: z.number().nullable(),
  /** Model calls of the questions' runs (answering). */
  llmCalls: z.number().int(),
  /** Model calls of the LLM judge, one per judged question, counted apart from the runs' own. */
  judgeCalls: z.number().int().default(0),
  tokens: z.number().int(),
  /** Runs carrying each flag (any flag a run has, counted generically). */
  flags: z.record(z.string(), z.number().int()),
});
export type ExperimentTotals = z.infer<typeof ExperimentTotals>;

/**
 * One line of a scorecard: a tag's questions (or all of them). Rates are 0–1 over the finished
 * questions they apply to (null when none does); latency is the runs' wall time.
 */
export const ScoreLine = z.object({
  /** The tag; null for the overall line. */
  tag: z.string().nullable(),
  questions: z.number().int(),
  finished: z.number().int(),
  passed: z.number().int(),
  passRate: z.number().nullable(),
  meanF1: z.number().nullable(),
  goldContained: z.number().nullable(),
  evidenceRetrieved: z.number().nullable(),
  evidenceCited: z.number().nullable(),
  /** Runs that declined (said the memory does not hold it, cited nothing). */
  abstention: z.number().nullable(),
  /** Model calls of the questions' runs (answering). */
  llmCalls: z.number().int(),
  /** Model calls of the LLM judge, one per judged question. */
  judgeCalls: z.number().int().default(0),
  latencyP50Ms: z.number().nullable(),
  latencyP95Ms: z.number().nullable(),
});
export type ScoreLine = z.infer<typeof ScoreLine>;
export const Scorecard = z.object({ overall: ScoreLine, byTag: z.array(ScoreLine) });
export type Scorecard = z.infer<typeof Scorecard>;

export const Experiment = z.object({
  id: z.string(),
  bankId: z.string(),
  suite: z.string(),
  suiteVersion: z.number().int(),
  config: ConfigSnapshot,
  status: ExperimentStatus,
  concurrency: z.number().int(),
  baselineId: z.string().nullable(),
  error: z.string().nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  totals: ExperimentTotals,
  scorecard: Scorecard,
  /** The skill versions its runs ran, as "name vN" ("(draft)" when a draft). */
  skillVersions: z.array(z.string()),
  rows: z.array(ExperimentRow),
});
export type Experiment = z.infer<typeof Experiment>;

export const ExperimentSummary = Experiment.omit({ rows: true });
export type ExperimentSummary = z.infer<typeof ExperimentSummary>;
export const ExperimentList = z.object({ experiments: z.array(ExperimentSummary) });

export const ChangeKind = z.enum(["expectation", "status", "citation", "llm_calls", "question"]);
export const Change = z.object({ kind: ChangeKind, detail: z.string() });
export type Change = z.infer<typeof Change>;

/** One question aligned across two experiments. */
export const QuestionComparison = z.object({
  question: z.string(),
  skill: z.string().nullable(),
  base: ExperimentRow.nullable(),
  head: ExperimentRow.nullable(),
  /** Regressed or improved, never both (lib/experiments/compare.ts decides). */
  regression: z.boolean(),
  improvement: z.boolean(),
  /** Every change in one line, the deciding direction first; null when neither. */
  reason: z.string().nullable(),
  /** The changes for the worse, and for the better (both can be listed; one decides). */
  regressions: z.array(Change),
  improvements: z.array(Change),
});
export type QuestionComparison = z.infer<typeof QuestionComparison>;

export const ExperimentComparison = z.object({
  base: ExperimentSummary,
  head: ExperimentSummary,
  questions: z.array(QuestionComparison),
  totals: z.object({ regressions: z.number().int(), improvements: z.number().int() }),
});
export type ExperimentComparison = z.infer<typeof ExperimentComparison>;

export const ExperimentParams = z.object({ id: Id });
export const ListExperimentsQuery = z.object({
  bank: Id,
  suite: SuiteName.optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});
export const CompareQuery = z.object({ base: Id, head: Id });

/** `experiment run --json`: the CLI's stable contract (docs/experiments.md). */
export const ExperimentJson = z.object({
  id: z.string(),
  suite: z.string(),
  config: ConfigSnapshot,
  totals: z.object({
    questions: z.number().int(),
    passed: z.number().int(),
    failed: z.number().int(),
    /** Questions that never ran (the experiment was cancelled or stopped before they started). */
    skipped: z.number().int(),
    regressions: z.number().int(),
    improvements: z.number().int(),
    /** Questions in both experiments not compared because a side never ran (an allowed incomplete baseline). */
    notCompared: z.number().int().default(0),
  }),
  scorecard: Scorecard.optional(),
  results: z.array(
    z.object({
      question: z.string(),
      runId: z.string().nullable(),
      /** The run's status; `skipped` for a question that never ran. */
      status: z.string(),
      llmCalls: z.number().int(),
      /** Null for a skipped question: it did not run, so it neither passed nor failed. */
      passed: z.boolean().nullable(),
      failures: z.array(Failure),
      regression: z.boolean(),
      /** Against the baseline: every change in one line (regressed or improved), else null. */
      reason: z.string().nullable().default(null),
      tags: z.array(z.string()).default([]),
      scores: RowScores.nullable().default(null),
      judgeRunId: z.string().nullable().default(null),
      flags: z.array(z.string()),
    }),
  ),
});
export type ExperimentJson = z.infer<typeof ExperimentJson>;

/** A progress frame on the experiment's event stream. */
export const ExperimentProgress = z.object({
  status: ExperimentStatus,
  questions: z.number().int(),
  finished: z.number().int(),
  passed: z.number().int(),
  failed: z.number().int(),
});
export type ExperimentProgress = z.infer<typeof ExperimentProgress>;

/** `memory_experiment`: run a suite of a bank and report totals and failing questions. */
export const McpExperimentInput = z.strictObject({
  bank: McpBank,
  suite: SuiteName.meta({ description: "the suite to run (its name in the bank)" }),
  budget: Budget.optional().meta({ description: "every question's budget (default: each question's own)" }),
  baseline: Id.optional().meta({ description: "an experiment id to compare with: regressions are listed" }),
  allowIncompleteBaseline: z.boolean().optional().meta({
    description:
      "compare with a baseline that did not complete (failed, cancelled, a question skipped): only the questions run on both sides are compared",
  }),
});

export const CancelExperimentInput = z.strictObject({ id: Id });
export type CancelExperimentInput = z.input<typeof CancelExperimentInput>;
export const ExperimentStarted = z.object({ experimentId: z.string() });
export type ExperimentStarted = z.infer<typeof ExperimentStarted>;

/** Where an experiment and a comparison live in the app. */
export const experimentHref = (id: string) => `/experiments/${encodeURIComponent(id)}`;
export const experimentCompareHref = (base: string, head: string) =>
  `/experiments/compare?base=${encodeURIComponent(base)}&head=${encodeURIComponent(head)}`;
export const suiteHref = (bankId: string, name: string) =>
  `/suites/${encodeURIComponent(name)}?bank=${encodeURIComponent(bankId)}`;
