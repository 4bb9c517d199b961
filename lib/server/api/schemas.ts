/**
 * Contracts of the HTTP API (/api/v1): request bodies, query strings and response bodies. Route
 * handlers validate with these and the OpenAPI document is generated from them, so the two agree.
 * Response schemas avoid transforms (JSON Schema cannot express them).
 */
import { z } from "zod";
import { Bundle } from "@/db/bundle";
import {
  Budget,
  Citations,
  DroppedCitation,
  RetrievalType,
  RunFlag,
  RunMode,
  RunStatus,
  Scope,
  Usage,
} from "@/lib/reflect/domain";
import { RunEvent } from "@/lib/reflect/events";

export const MAX_QUESTION_CHARS = 4000;

const Id = z.string().trim().min(1).max(200);
const Tags = z.array(z.string().trim().min(1).max(100)).max(50);
const IsoTime = z.iso.datetime({ offset: true });

// ---------- errors ----------

export const ApiError = z.object({
  error: z.object({
    code: z.string().meta({ description: "machine-readable: invalid_input, invalid_json, not_found, conflict, …" }),
    message: z.string(),
    fieldErrors: z
      .record(z.string(), z.array(z.string()))
      .optional()
      .meta({ description: "messages keyed by the JSON path of the bad value, e.g. `facts[0].text`" }),
    current: z.unknown().optional().meta({ description: "on 409: the record as it is now (null if deleted)" }),
  }),
});

// ---------- path parameters ----------

export const BankParams = z.object({ bank: z.string().min(1).meta({ description: "bank id" }) });
export const BankItemParams = BankParams.extend({ id: z.string().min(1) });
export const RunParams = z.object({ id: z.string().min(1).meta({ description: "run id" }) });

// ---------- banks ----------

export const BankList = z.object({
  banks: z.array(z.object({ id: z.string(), name: z.string(), permittedTeams: z.array(z.string()) })),
});

export const ImportQuery = z.object({
  replace: z
    .enum(["true", "false"])
    .optional()
    .meta({ description: "replace an existing bank of the same id (its runs are kept)" }),
});
export const ImportBody = Bundle;
export const ImportResult = z.object({
  bankId: z.string(),
  counts: z.object({ facts: z.number(), observations: z.number(), mentalModels: z.number(), skills: z.number() }),
});
/** The exported bundle: same shape as the import body. */
export const ExportResult = z.object({
  version: z.literal(1),
  bank: z.object({ id: z.string(), name: z.string(), permittedTeams: z.array(z.string()) }),
  facts: z.array(z.record(z.string(), z.unknown())),
  observations: z.array(z.record(z.string(), z.unknown())),
  mentalModels: z.array(z.record(z.string(), z.unknown())),
  skills: z.array(z.record(z.string(), z.unknown())),
});

// ---------- reflect ----------

export const ReflectBody = z.object({
  question: z
    .string()
    .trim()
    .min(1, "ask a question")
    .max(MAX_QUESTION_CHARS, `oversize question: keep it under ${MAX_QUESTION_CHARS} characters`),
  skill: z.string().trim().min(1).optional().meta({ description: "skill name; defaults to recap" }),
  budget: Budget.optional().meta({ description: "defaults to the skill's budget" }),
  mode: RunMode.default("synthesize"),
  scope: Scope.optional().meta({ description: "defaults to the skill's scope" }),
  anchorEvery: z.number().int().min(1).max(50).optional(),
  responseSchema: z
    .unknown()
    .optional()
    .meta({ deprecated: true, description: "accepted and ignored; the result carries a deprecation warning" }),
  wait: z
    .boolean()
    .default(false)
    .meta({ description: "true: answer 200 with the finished run; false: 202 at once with links to follow it" }),
});

const RunLinks = z.object({
  self: z.string().meta({ description: "GET the run" }),
  events: z.string().meta({ description: "GET its events (JSON, or SSE with Accept: text/event-stream)" }),
  inspector: z.string().meta({ description: "the run's page in the inspector" }),
});

export const ReflectAccepted = z.object({ runId: z.string(), status: z.literal("running"), links: RunLinks });

export const ReflectFinished = z.object({
  id: z.string(),
  status: RunStatus,
  answer: z.string(),
  citations: Citations,
  dropped: z.array(DroppedCitation),
  flags: z.array(RunFlag),
  usage: Usage,
  llmCalls: z.number().int(),
  warnings: z.array(z.string()),
  links: RunLinks,
});

// ---------- recall ----------

export const RecallBody = z.object({
  query: z.string().trim().min(1, "give a query").max(1000),
  tags: Tags.default([]).meta({ description: "all-of tag filter" }),
  scope: Scope.default("personal"),
  limit: z.number().int().min(1).max(100).default(20),
});

const FactHit = z.object({
  id: z.string(),
  text: z.string(),
  kind: z.enum(["world", "experience"]),
  tags: z.array(z.string()),
  scope: z.string(),
  occurredAt: z.string().nullable(),
  recordedAt: z.string(),
});

export const RecallResult = z.object({ query: z.string(), count: z.number().int(), memories: z.array(FactHit) });

// ---------- retain facts ----------

export const NewFact = z.object({
  id: Id.optional().meta({ description: "omit to generate one; an existing id updates that fact" }),
  text: z.string().trim().min(1).max(20_000),
  kind: z.enum(["world", "experience"]).default("world"),
  tags: Tags.default([]),
  scope: Scope.default("personal"),
  occurredAt: IsoTime.nullable().optional(),
  documentId: z.string().min(1).nullable().optional(),
});

export const RetainBody = z.object({
  facts: z
    .array(NewFact)
    .min(1, "send at least one fact")
    .max(1000, "send at most 1,000 facts per request")
    .superRefine((facts, ctx) => {
      const seen = new Set<string>();
      facts.forEach((f, i) => {
        if (f.id === undefined) return;
        if (seen.has(f.id)) ctx.addIssue({ code: "custom", path: [i, "id"], message: `duplicate id "${f.id}"` });
        seen.add(f.id);
      });
    }),
});

export const RetainResult = z.object({
  bankId: z.string(),
  inserted: z.array(z.string()).meta({ description: "ids of new facts" }),
  updated: z.array(z.string()).meta({ description: "ids of facts that existed and were rewritten" }),
  staleMentalModels: z
    .array(z.object({ id: z.string(), name: z.string(), reason: z.string() }))
    .meta({ description: "mental models that were fresh before and are stale now" }),
});

// ---------- mental models ----------

export const MentalModel = z.object({
  id: z.string(),
  bankId: z.string(),
  name: z.string(),
  sourceQuery: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  refreshedAt: z.string().nullable(),
  staleOverride: z.enum(["stale", "fresh"]).nullable(),
  basedOnIds: z.array(z.string()),
  version: z.number().int(),
  updatedAt: z.string().nullable(),
  isStale: z.boolean(),
  stalenessReason: z.string(),
  usable: z.boolean(),
});

const MentalModelVersion = z.object({
  version: z.number().int(),
  name: z.string(),
  sourceQuery: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  refreshedAt: z.string().nullable(),
  staleOverride: z.enum(["stale", "fresh"]).nullable(),
  basedOnIds: z.array(z.string()),
  createdAt: z.string().nullable(),
});

export const MentalModelList = z.object({ mentalModels: z.array(MentalModel) });
export const MentalModelDetail = z.object({ mentalModel: MentalModel, versions: z.array(MentalModelVersion) });

const MentalModelFields = z.object({
  name: z.string().trim().min(1).max(200),
  sourceQuery: z.string().max(MAX_QUESTION_CHARS).default(""),
  content: z.string().max(200_000).default(""),
  tags: Tags.default([]),
  refreshedAt: IsoTime.nullable().default(null),
  staleOverride: z.enum(["stale", "fresh"]).nullable().default(null),
});

export const CreateMentalModelBody = MentalModelFields.extend({ id: Id.optional() });

/** Omitted fields keep their current value. */
export const UpdateMentalModelBody = MentalModelFields.partial().extend({
  expectedVersion: z.number().int().positive().meta({ description: "the version the edit is based on" }),
});

// ---------- skills ----------

export const Skill = z.object({
  id: z.string(),
  bankId: z.string(),
  name: z.string(),
  mission: z.string(),
  disposition: z.array(z.string()),
  retrieval: z.object({ tags: z.array(z.string()), types: z.array(RetrievalType), scope: z.string() }),
  budget: Budget,
  anchorEvery: z.number().int(),
  outputFormat: z.string(),
  version: z.number().int(),
  updatedAt: z.string().nullable(),
});

const SkillVersion = Skill.omit({ id: true, bankId: true, updatedAt: true }).extend({
  createdAt: z.string().nullable(),
});

export const SkillList = z.object({ skills: z.array(Skill) });
export const SkillDetail = z.object({ skill: Skill, versions: z.array(SkillVersion) });

const SkillFields = z.object({
  name: z.string().trim().min(1, "name the skill").max(100),
  mission: z.string().trim().min(1, "write a mission").max(4000),
  disposition: z.array(z.string().trim().min(1).max(100)).max(20).default([]),
  retrieval: z.object({
    tags: Tags.default([]),
    types: z.array(RetrievalType).min(1, "enable at least one retrieval type"),
    scope: Scope.default("personal"),
  }),
  budget: Budget.default("mid"),
  anchorEvery: z.number().int().min(1).max(50).default(4),
  outputFormat: z.string().max(2000).default("markdown"),
});

export const CreateSkillBody = SkillFields.extend({ id: Id.optional() });

/** Omitted fields keep their current value. */
export const UpdateSkillBody = SkillFields.partial().extend({
  expectedVersion: z.number().int().positive().meta({ description: "the version the edit is based on" }),
});

// ---------- runs ----------

export const ListRunsQuery = z.object({
  bank: z.string().optional(),
  skill: z.string().optional().meta({ description: "skill name or id" }),
  status: RunStatus.optional(),
  badge: RunFlag.optional(),
  q: z.string().max(200).optional().meta({ description: "substring of the question or answer" }),
  cursor: z.string().optional().meta({ description: "nextCursor of the previous page" }),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

export const RunListStreamQuery = ListRunsQuery.omit({ cursor: true, limit: true }).extend({
  since: z.coerce
    .number()
    .int()
    .min(0)
    .max(8_640_000_000_000_000)
    .optional()
    .meta({ description: "a frame id of an earlier stream (ms); Last-Event-ID wins over it" }),
});

export const RunSummary = z.object({
  id: z.string(),
  bankId: z.string(),
  question: z.string(),
  answer: z.string().nullable(),
  skillName: z.string(),
  skillVersion: z.number().int(),
  budget: z.string(),
  mode: z.string(),
  scope: z.string(),
  modelName: z.string(),
  status: z.string(),
  flags: z.array(z.string()),
  llmCalls: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  durationMs: z.number().nullable(),
  createdAt: z.string(),
  parentRunId: z.string().nullable(),
});

export const RunList = z.object({ runs: z.array(RunSummary), nextCursor: z.string().nullable() });

export const RunDetail = z.object({
  id: z.string(),
  bankId: z.string(),
  question: z.string(),
  skill: z
    .object({ id: z.string(), name: z.string(), version: z.number().int() })
    .nullable()
    .meta({ description: "the skill version the run used" }),
  budget: z.string(),
  mode: z.string(),
  scope: z.string(),
  model: z.object({ kind: z.string(), name: z.string() }),
  status: RunStatus,
  answer: z.string().nullable(),
  citations: Citations.nullable(),
  dropped: z.array(DroppedCitation),
  flags: z.array(RunFlag),
  warnings: z.array(z.string()),
  usage: Usage,
  llmCalls: z.number().int(),
  iterations: z.number().int(),
  error: z.object({ message: z.string(), phase: z.string() }).nullable(),
  parentRunId: z.string().nullable(),
  forkedAtIteration: z.number().int().nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
  links: RunLinks,
});

export const RunEventsQuery = z.object({
  after: z.coerce.number().int().min(-1).optional().meta({ description: "only events with a larger seq" }),
});

export const RunEventList = z.object({ status: RunStatus, events: z.array(RunEvent) });

export function runLinks(runId: string) {
  const self = `/api/v1/runs/${encodeURIComponent(runId)}`;
  return { self, events: `${self}/events`, inspector: `/runs/${encodeURIComponent(runId)}` };
}
