/**
 * What each MCP tool returns as `structuredContent` (declared as its `outputSchema`, protocol
 * 2025-06-18+), beside the text an agent reads. Keys are camelCase; links are absolute URLs on the
 * inspector the agent reached.
 */
import { z } from "zod";
import { RunFlag, RunStatus, Tier } from "@/lib/reflect/domain";
import { Experiment, ExperimentStatus, ExperimentTotals, Failure } from "./experiments";
import { RecallResult } from "./memory";

const url = (description: string) => z.string().meta({ description });

export const McpReflectOutput = z.object({
  runId: z.string(),
  status: RunStatus,
  answer: z.string().meta({ description: "empty when the run found no grounded answer or failed" }),
  citations: z
    .array(
      z.object({
        id: z.string(),
        tier: Tier,
        text: z.string().nullable().meta({ description: "the memory's text as the run retrieved it" }),
      }),
    )
    .meta({ description: "the memories the answer cites (kept after validation)" }),
  flags: z.array(RunFlag),
  error: z.object({ phase: z.string(), message: z.string() }).nullable(),
  links: z.object({
    inspector: url("the run's page in the inspector, step by step"),
    self: url("GET the run (JSON)"),
    events: url("GET its events (JSON, or SSE with Accept: text/event-stream)"),
  }),
});
export type McpReflectOutput = z.infer<typeof McpReflectOutput>;

/** An object at the root, as MCP requires of an output schema: the bank and the tier's result. */
export const McpRecallOutput = z.object({ bank: z.string(), result: RecallResult });
export type McpRecallOutput = z.infer<typeof McpRecallOutput>;

export const McpRetainOutput = z.object({
  bank: z.string(),
  inserted: z.array(z.string()).meta({ description: "ids of the new facts" }),
  staleMentalModels: z
    .array(z.object({ id: z.string(), name: z.string() }))
    .meta({ description: "mental models whose scope covers the new facts: stale until refreshed" }),
});
export type McpRetainOutput = z.infer<typeof McpRetainOutput>;

export const McpExperimentOutput = z.object({
  experimentId: z.string(),
  suite: z.string(),
  suiteVersion: z.number().int(),
  status: ExperimentStatus,
  totals: ExperimentTotals,
  baseline: z.object({ id: z.string(), regressions: z.number().int(), improvements: z.number().int() }).nullable(),
  failing: z
    .array(
      z.object({
        index: z.number().int(),
        question: z.string(),
        status: Experiment.shape.rows.element.shape.status,
        runId: z.string().nullable(),
        failures: z.array(Failure),
        regressions: z.array(z.object({ kind: z.string(), detail: z.string() })),
        inspector: url("the question's run in the inspector").nullable(),
      }),
    )
    .meta({ description: "questions that failed an expectation or regressed against the baseline" }),
  error: z.string().nullable(),
  links: z.object({ inspector: url("the experiment's page in the inspector") }),
});
export type McpExperimentOutput = z.infer<typeof McpExperimentOutput>;
