/**
 * Runs across every boundary: starting one (form, API, CLI, MCP), its result (derived from the
 * engine's one `ReflectResultSchema`), the runs list, the stored run and its event log.
 * Re-running and forking live in rerun.ts.
 */
import { z } from "zod";
import { Budget, MentalModelDraftRead, RunFlag, RunMode, RunStatus, Scope } from "@/lib/reflect/domain";
import { RunEvent } from "@/lib/reflect/events";
import { ProbeResult, ReflectResultSchema } from "@/lib/reflect/request";
import { McpBank, Question } from "./fields";

// ---------- starting a run ----------

/** What any caller asks of a run; the bank comes from the URL, a field or a flag. */
export const RunRequest = z.object({
  question: Question.meta({ description: "the question to answer" }),
  skill: z
    .string()
    .trim()
    .min(1)
    .optional()
    .meta({ description: "skill name (recap, decisions, …); defaults to recap" }),
  budget: Budget.optional().meta({ description: "iteration budget (low 5, mid 10, high 20); defaults to the skill's" }),
  mode: RunMode.default("synthesize").meta({ description: "facts: return the retrieved facts, no LLM call" }),
  scope: Scope.optional().meta({ description: '"personal" or "team:<id>"; defaults to the skill\'s scope' }),
  anchorEvery: z.number().int().min(1).max(50).optional(),
  responseSchema: z
    .unknown()
    .optional()
    .meta({ deprecated: true, description: "accepted and ignored; the result carries a deprecation warning" }),
});

/** The start-run form and action. */
export const StartRunInput = RunRequest.extend({ bankId: z.string().trim().min(1, "choose a bank") });
export type StartRunInput = z.input<typeof StartRunInput>;

/** POST /api/v1/banks/{bank}/reflect. */
export const ReflectBody = RunRequest.extend({
  wait: z
    .boolean()
    .default(false)
    .meta({ description: "true: answer 200 with the finished run; false: 202 at once with links to follow it" }),
}).strict();

/** The MCP `memory_reflect` tool. */
export const McpReflectInput = RunRequest.pick({
  question: true,
  skill: true,
  budget: true,
  scope: true,
  mode: true,
})
  .extend({ bank: McpBank })
  .strict();

export const RunStarted = z.object({ runId: z.string() });
export type RunStarted = z.infer<typeof RunStarted>;

// ---------- results ----------

export const RunLinks = z.object({
  self: z.string().meta({ description: "GET the run" }),
  events: z.string().meta({ description: "GET its events (JSON, or SSE with Accept: text/event-stream)" }),
  inspector: z.string().meta({ description: "the run's page in the inspector" }),
});

export function runLinks(runId: string): z.infer<typeof RunLinks> {
  const self = `/api/v1/runs/${encodeURIComponent(runId)}`;
  return { self, events: `${self}/events`, inspector: `/runs/${encodeURIComponent(runId)}` };
}

/** A finished run as the API and the CLI hand it out: the engine's result with the run's id. */
export const RunResult = z.object({ id: z.string() }).extend(ReflectResultSchema.shape);
export type RunResult = z.infer<typeof RunResult>;

/** Only the declared fields: the engine's in-process extras (a facts-mode payload) stay in the events. */
export function toRunResult(runId: string, result: z.input<typeof ReflectResultSchema>): RunResult {
  return RunResult.parse({ ...result, id: runId });
}

export const ReflectAccepted = z.object({ runId: z.string(), status: z.literal("running"), links: RunLinks });
export const ReflectFinished = RunResult.extend({ links: RunLinks });

/** `cli reflect --json`. */
export const ReflectJson = RunResult.extend({ events: z.array(RunEvent) });
export type ReflectJson = z.infer<typeof ReflectJson>;

// ---------- the runs list ----------

/** What a run is: an answer to a question, or an LLM judge's grading of one (lib/server/judge.ts). */
export const RunKind = z.enum(["answer", "judge"]);
export type RunKind = z.infer<typeof RunKind>;

export const ListRunsQuery = z.object({
  bank: z.string().optional(),
  skill: z.string().optional().meta({ description: "skill name or id" }),
  status: RunStatus.optional(),
  badge: RunFlag.optional(),
  kind: RunKind.optional().meta({
    description: "answer: runs that answer a question; judge: LLM-judge runs grading an answer",
  }),
  q: z.string().max(200).optional().meta({ description: "substring of the question or answer" }),
  cursor: z.string().optional().meta({ description: "nextCursor of the previous page" }),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

/** The live runs list: the list's filters, and where an earlier stream left off. */
export const RunListStreamQuery = ListRunsQuery.omit({ cursor: true, limit: true }).extend({
  since: z.coerce
    .number()
    .int()
    .min(0)
    .max(8_640_000_000_000_000)
    .optional()
    .meta({ description: "a frame id of an earlier stream (ms); Last-Event-ID wins over it" }),
});

/** The live runs list's wire form (documented; the frames' data are RunListItem or `{id}`). */
export const RunListStreamFrames = z
  .string()
  .meta({ description: "`id: <cursor>\\nevent: run|remove|reset\\ndata: <JSON>\\n\\n` frames" });

/** A mental model a run read as an unsaved draft: which one, on which saved version (the text is in its events). */
export const MentalModelDraftRef = MentalModelDraftRead.pick({ id: true, name: true, baseVersion: true });
export type MentalModelDraftRef = z.infer<typeof MentalModelDraftRef>;

export const RunListItem = z.object({
  id: z.string(),
  bankId: z.string(),
  question: z.string(),
  answer: z.string().nullable(),
  skillName: z.string(),
  skillVersion: z.number().int(),
  /** The run tried an unsaved draft based on `skillVersion`. */
  skillDraft: z.boolean(),
  /** Mental models the run read as unsaved drafts (an experiment's), each on the saved version it was based on. */
  mentalModelDrafts: z.array(MentalModelDraftRef),
  budget: Budget,
  mode: RunMode,
  scope: z.string(),
  modelName: z.string(),
  status: RunStatus,
  flags: z.array(RunFlag),
  llmCalls: z.number().int(),
  /** Every request sent to the model server: answered calls plus retries and tool-choice downgrades. */
  modelRequests: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  durationMs: z.number().nullable(),
  createdAt: z.string(),
  parentRunId: z.string().nullable(),
  /** Set for a fork (replayed up to this iteration); null for a re-run or a first run. */
  forkedAtIteration: z.number().int().nullable(),
});
export type RunListItem = z.infer<typeof RunListItem>;

export const RunListPage = z.object({ runs: z.array(RunListItem), nextCursor: z.string().nullable() });
export type RunListPage = z.infer<typeof RunListPage>;

/** A run as a link in a list (the runs that read a mental model, its refresh runs). */
export const RunRef = RunListItem.pick({ id: true, question: true, status: true, createdAt: true });
export type RunRef = z.infer<typeof RunRef>;

// ---------- one stored run ----------

export const RunParams = z.object({ id: z.string().min(1).meta({ description: "run id" }) });

/** The stored run: while it runs, `answer` and `citations` are null. */
/** The stored run; `probe` is read from its `probe.finished` event (the stored run keeps only its flag). */
export const RunDetail = ReflectResultSchema.omit({ answer: true, citations: true, probe: true }).extend({
  id: z.string(),
  bankId: z.string(),
  question: z.string(),
  skill: z
    .object({
      id: z.string(),
      name: z.string(),
      version: z.number().int(),
      draft: z.boolean().meta({ description: "an unsaved draft based on `version` (a skill editor's Try)" }),
    })
    .nullable()
    .meta({ description: "the skill version the run used" }),
  mentalModelDrafts: z.array(MentalModelDraftRef).meta({
    description: "mental models the run read as an experiment's unsaved drafts (the saved models are unchanged)",
  }),
  budget: Budget,
  mode: RunMode,
  scope: z.string(),
  model: z.object({ kind: z.string(), name: z.string() }),
  answer: ReflectResultSchema.shape.answer.nullable(),
  citations: ReflectResultSchema.shape.citations.nullable(),
  probe: ProbeResult.nullable().meta({
    description:
      "the missed-evidence probe (the run's `probe.finished` event): what searches the run did not make would have found; null while running, in facts mode, for a failed or interrupted run, and for runs recorded before the probe",
  }),
  parentRunId: z.string().nullable(),
  forkedAtIteration: z.number().int().nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
  links: RunLinks,
});
export type RunDetail = z.infer<typeof RunDetail>;

export const RunEventsQuery = z.object({
  after: z.coerce.number().int().min(-1).optional().meta({ description: "only events with a larger seq" }),
});

/** A run's events (all, or those after a seq) with its status now. */
export const RunEventList = z.object({ status: RunStatus, events: z.array(RunEvent) });
export type RunEventList = z.infer<typeof RunEventList>;
