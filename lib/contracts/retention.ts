/**
 * Run retention (docs/operations.md#run-retention): which runs a prune removes, and what it reports.
 * One shape for the CLI (`runs prune`, `runs retention`), the API and the background pass.
 */
import { z } from "zod";
import { Id } from "./fields";

/** `30d` (days) or `12h` (hours): a run older than this is a candidate. */
export const DURATION_PATTERN = /^([1-9][0-9]{0,5})([dh])$/;
const DURATION_HELP = 'a duration like "30d" (days) or "12h" (hours)';

/** Milliseconds of a duration matching DURATION_PATTERN. */
export function durationMs(duration: string): number {
  const m = DURATION_PATTERN.exec(duration.trim());
  if (!m) throw new Error(`invalid duration ${duration}`);
  return Number(m[1]) * (m[2] === "d" ? 86_400_000 : 3_600_000);
}

/** 100 years: a longer duration would reach before the dates a Date can hold. */
const MAX_DURATION_DAYS = 36_500;

export const Duration = z
  .string({ error: `give ${DURATION_HELP}` })
  .trim()
  .regex(DURATION_PATTERN, `not ${DURATION_HELP}`)
  .refine(
    (v) => !DURATION_PATTERN.test(v) || durationMs(v) <= MAX_DURATION_DAYS * 86_400_000,
    `at most ${MAX_DURATION_DAYS}d (100 years)`,
  )
  .meta({ description: DURATION_HELP, example: "30d" });

export const KeepCount = z
  .number({ error: "keep must be a whole number ≥ 0" })
  .int("keep must be a whole number ≥ 0")
  .min(0, "keep must be a whole number ≥ 0")
  .max(1_000_000, "keep must be at most 1,000,000")
  .meta({ description: "keep the newest N runs of each bank" });

const ONE_RULE = "give exactly one of olderThan and keep";

/** Which runs are candidates: older than a duration, or all but each bank's newest N. */
export const RetentionRule = z
  .object({ olderThan: Duration.optional(), keep: KeepCount.optional() })
  .strict()
  .superRefine((v, ctx) => {
    if ((v.olderThan === undefined) === (v.keep === undefined)) {
      ctx.addIssue({ code: "custom", path: v.olderThan === undefined ? [] : ["keep"], message: ONE_RULE });
    }
  });
export type RetentionRule = z.output<typeof RetentionRule>;

export const PruneRunsBody = z
  .object({
    olderThan: Duration.optional(),
    keep: KeepCount.optional(),
    bank: Id.optional().meta({ description: "only this bank's runs (default: every bank)" }),
    dryRun: z.boolean().default(false).meta({ description: "report what would be removed; change nothing" }),
    vacuum: z.boolean().default(false).meta({
      description:
        "after removing, rewrite the database file (VACUUM) when it is not yet in incremental auto-vacuum mode: a one-time step that shrinks it and switches it to that mode",
    }),
  })
  .strict()
  .superRefine((v, ctx) => {
    if ((v.olderThan === undefined) === (v.keep === undefined)) {
      ctx.addIssue({ code: "custom", path: v.olderThan === undefined ? [] : ["keep"], message: ONE_RULE });
    }
  });
export type PruneRunsInput = z.output<typeof PruneRunsBody>;

export const KEEP_REASONS = ["running", "experiment", "accepted_proposal", "refresh", "fork_parent"] as const;
export type KeepReason = (typeof KEEP_REASONS)[number];

/** What each reason means, for the CLI's lines and the docs. */
export const KEEP_REASON_TEXT: Record<KeepReason, string> = {
  running: "still running",
  experiment: "a run of an experiment",
  accepted_proposal: "a refresh proposal accepted as a mental-model version",
  refresh: "a mental model's refresh run (listed on the model's page)",
  fork_parent: "the parent of a re-run (fork)",
};

export const PruneResult = z.object({
  dryRun: z.boolean(),
  bank: z.string().nullable(),
  rule: z.object({ olderThan: z.string().optional(), keep: z.number().optional() }),
  /** Runs the rule selected (before the kept ones are taken out). */
  matched: z.number().int(),
  /** Runs removed (a dry run: that would be removed). */
  deleted: z.number().int(),
  deletedEvents: z.number().int(),
  /** Up to 5 of the removed runs' ids. */
  deletedExamples: z.array(z.string()),
  kept: z.object({
    total: z.number().int(),
    /** One entry per reason that kept at least one run; a run with several reasons counts under each. */
    reasons: z.array(
      z.object({ reason: z.enum(KEEP_REASONS), count: z.number().int(), examples: z.array(z.string()) }),
    ),
  }),
  /** The database's size (page_count × page_size) before and after, and how freed pages were returned. */
  storage: z.object({
    bytesBefore: z.number().int(),
    bytesAfter: z.number().int(),
    vacuum: z.enum(["incremental", "full", "none", "unavailable"]),
    note: z.string().optional(),
  }),
});
export type PruneResult = z.infer<typeof PruneResult>;

export const RunRetentionSetting = z.object({
  bankId: z.string(),
  /** null: runs of this bank are kept until pruned by hand. */
  retention: z.object({ olderThan: z.string().optional(), keep: z.number().int().optional() }).nullable(),
  updatedAt: z.string().nullable(),
});
export type RunRetentionSetting = z.infer<typeof RunRetentionSetting>;
