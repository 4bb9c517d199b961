/**
 * Importing a public benchmark as banks and suites (`bench import locomo`, `POST
 * /api/v1/benchmarks/locomo`): the options and what the import reports.
 */
import { z } from "zod";
import { ImportResult } from "./banks";

export const LocomoImportOptions = z
  .object({
    prefix: z
      .string()
      .trim()
      .max(60)
      .regex(
        /^[a-z0-9][a-z0-9_-]*$|^$/,
        "a prefix is lowercase letters, digits, _ and - (starting with a letter or digit), as bank ids are",
      )
      .default("locomo-")
      .meta({
        description: 'bank id prefix: each conversation becomes bank "<prefix><sample_id>" (default "locomo-")',
      }),
    summaries: z
      .enum(["fresh", "stale"])
      .optional()
      .meta({ description: "the session summaries as mental models, fresh (refreshed after the last turn) or stale" }),
    replace: z.boolean().default(false).meta({ description: "replace banks that already exist (their runs are kept)" }),
    minF1: z
      .number()
      .min(0)
      .max(1)
      .default(0.5)
      .meta({ description: "the token F1 a question's answer must reach to pass (default 0.5)" }),
  })
  .strict();

/** The same options as a query string (`POST /api/v1/benchmarks/locomo?prefix=…&summaries=fresh`). */
export const LocomoImportQuery = z
  .object({
    prefix: LocomoImportOptions.shape.prefix.optional(),
    summaries: LocomoImportOptions.shape.summaries,
    replace: z.enum(["true", "false"]).optional().meta({ description: "replace banks that already exist" }),
    minF1: z.coerce
      .number()
      .min(0)
      .max(1)
      .optional()
      .meta({ description: "the token F1 a question's answer must reach to pass (default 0.5)" }),
  })
  .strict();

export const LocomoRepairItem = z.object({
  path: z.string().meta({ description: "conversation and place in the data, e.g. conv-26 qa[37].evidence[0]" }),
  value: z.string(),
  action: z.enum(["split", "fixed", "dropped"]),
  detail: z.string(),
});

export const BenchmarkImportResult = z.object({
  benchmark: z.literal("locomo"),
  banks: z.array(ImportResult.extend({ suite: z.string().nullable() })),
  repairs: z.object({
    count: z.number().int().meta({ description: "every change made to malformed data (none is silent)" }),
    byAction: z.object({ split: z.number().int(), fixed: z.number().int(), dropped: z.number().int() }),
    examples: z.array(LocomoRepairItem).meta({ description: "the first 20 repairs" }),
  }),
});
export type BenchmarkImportResult = z.infer<typeof BenchmarkImportResult>;
