/**
 * Every /api/v1 endpoint. Route files under app/api/v1 wrap these with `handle`; the OpenAPI
 * document lists exactly these (a test compares them with the route files on disk).
 */
import type { z } from "zod";
import { OpenApiDocument } from "@/lib/contracts/api";
import { BankItemParams, BankList, BankParams, ExportResult, ImportQuery, ImportResult } from "@/lib/contracts/banks";
import { Bundle } from "@/lib/contracts/bundle";
import { ApiErrorBody } from "@/lib/contracts/errors";
import { RecallBody, RecallResult, RetainBody, RetainResult } from "@/lib/contracts/memory";
import {
  CreateMentalModelBody,
  MentalModel,
  MentalModelList,
  MentalModelWithHistory,
  UpdateMentalModelBody,
} from "@/lib/contracts/mental-models";
import { OtlpTraceFile } from "@/lib/contracts/otlp";
import {
  ListRunsQuery,
  ReflectAccepted,
  ReflectBody,
  ReflectFinished,
  RunDetail,
  RunEventList,
  RunEventsQuery,
  RunListPage,
  RunListStreamFrames,
  RunListStreamQuery,
  RunParams,
} from "@/lib/contracts/runs";
import { CreateSkillBody, Skill, SkillList, SkillWithHistory, UpdateSkillBody } from "@/lib/contracts/skills";
import { defineEndpoint, type ResponseSpec } from "./endpoint";

const err = (description: string): ResponseSpec => ({ description, schema: ApiErrorBody });
const BAD_INPUT = { 400: err("invalid JSON or fields (fieldErrors by JSON path)") };
const NO_BANK = { 404: err("unknown bank") };
const TOO_LARGE = { 413: err("request body too large") };
const TOO_BUSY = {
  503: err(
    "the server already runs as many of these requests as it allows and its queue is full (code `too_busy`): retry after Retry-After seconds",
  ),
};
const CONFLICT = { 409: err("expectedVersion is not the current version; `current` holds the record as it is now") };

export const BUNDLE_MAX_BYTES = 50_000_000;

export const endpoints = {
  listBanks: defineEndpoint({
    method: "GET",
    path: "/banks",
    operationId: "listBanks",
    summary: "List memory banks",
    description: "Every memory bank with its id, name and the team scopes it permits.",
    tag: "banks",
    responses: { 200: { description: "banks", schema: BankList } },
  }),
  importBundle: defineEndpoint({
    method: "POST",
    path: "/banks/import",
    operationId: "importBundle",
    summary: "Import a bank bundle (atomic: a bad bundle changes nothing)",
    description:
      "Imports a bundle (bank, facts, observations, mental models, skills) in one transaction: a bundle that fails validation changes nothing and the 400 names each bad value by its JSON path. An existing bank is refused unless `replace=true`, which replaces it whole.",
    tag: "banks",
    query: ImportQuery,
    body: Bundle,
    maxBodyBytes: BUNDLE_MAX_BYTES,
    responses: {
      201: { description: "imported", schema: ImportResult },
      400: err("invalid bundle, or the bank exists and replace is not set; fieldErrors by JSON path"),
      ...TOO_LARGE,
    },
  }),
  exportBundle: defineEndpoint({
    method: "GET",
    path: "/banks/{bank}/export",
    operationId: "exportBundle",
    summary: "Export a bank as a bundle",
    description:
      "The bank as a bundle that `importBundle` accepts: facts, observations, mental models (current versions) and skills.",
    tag: "banks",
    params: BankParams,
    responses: { 200: { description: "the bundle", schema: ExportResult }, ...NO_BANK },
  }),
  reflect: defineEndpoint({
    method: "POST",
    path: "/banks/{bank}/reflect",
    operationId: "reflect",
    summary: "Ask a question: run the reflect loop",
    description:
      "With `wait: false` (default) the run starts detached and 202 returns links to follow it; with `wait: true` the response is the finished run.",
    tag: "reflect",
    params: BankParams,
    admission: "reflect",
    body: ReflectBody,
    responses: {
      200: { description: "the finished run (wait: true)", schema: ReflectFinished },
      202: { description: "the run started (wait: false)", schema: ReflectAccepted },
      ...BAD_INPUT,
      ...NO_BANK,
      ...TOO_LARGE,
      ...TOO_BUSY,
    },
  }),
  recall: defineEndpoint({
    method: "POST",
    path: "/banks/{bank}/recall",
    operationId: "recall",
    summary: "Search raw facts (the recall tier) without a run",
    description:
      "Searches the bank's raw facts (BM25 full-text search, plus vector similarity when embeddings are configured) in the given scope, best first. Starts no run and calls no model.",
    tag: "memory",
    params: BankParams,
    admission: "recall",
    body: RecallBody,
    responses: {
      200: { description: "matching facts, best first", schema: RecallResult },
      ...BAD_INPUT,
      403: err("the bank does not permit this team scope (code scope_not_permitted)"),
      ...NO_BANK,
      ...TOO_LARGE,
      ...TOO_BUSY,
    },
  }),
  retainFacts: defineEndpoint({
    method: "POST",
    path: "/banks/{bank}/facts",
    operationId: "retainFacts",
    summary: "Retain facts (atomic); mental models in their scope become stale",
    description:
      "Stores new raw facts in one transaction (a bad fact stores nothing). Mental models whose scope covers the new facts become stale; the response names them so a client can refresh them.",
    tag: "memory",
    params: BankParams,
    body: RetainBody,
    maxBodyBytes: 10_000_000,
    responses: {
      201: { description: "stored", schema: RetainResult },
      ...BAD_INPUT,
      ...NO_BANK,
      ...TOO_LARGE,
    },
  }),
  listMentalModels: defineEndpoint({
    method: "GET",
    path: "/banks/{bank}/mental-models",
    operationId: "listMentalModels",
    summary: "List mental models with their computed staleness",
    description:
      "The bank's mental models, each with its current version and whether it is stale (newer facts in its scope since its last refresh) and why.",
    tag: "mental-models",
    params: BankParams,
    responses: { 200: { description: "mental models", schema: MentalModelList }, ...NO_BANK },
  }),
  createMentalModel: defineEndpoint({
    method: "POST",
    path: "/banks/{bank}/mental-models",
    operationId: "createMentalModel",
    summary: "Create a mental model (version 1)",
    description: "Creates a mental model at version 1. Its id must be new in the bank.",
    tag: "mental-models",
    params: BankParams,
    body: CreateMentalModelBody,
    responses: {
      201: { description: "created", schema: MentalModel },
      ...BAD_INPUT,
      ...NO_BANK,
      409: err("a mental model with this id exists"),
      ...TOO_LARGE,
    },
  }),
  getMentalModel: defineEndpoint({
    method: "GET",
    path: "/banks/{bank}/mental-models/{id}",
    operationId: "getMentalModel",
    summary: "A mental model with every version, newest first",
    description:
      "The mental model's current version and every earlier version (content, tags, refresh time), newest first.",
    tag: "mental-models",
    params: BankItemParams,
    responses: {
      200: { description: "the model and its versions", schema: MentalModelWithHistory },
      404: err("unknown bank or model"),
    },
  }),
  updateMentalModel: defineEndpoint({
    method: "PUT",
    path: "/banks/{bank}/mental-models/{id}",
    operationId: "updateMentalModel",
    summary: "Edit a mental model (a new version); omitted fields keep their value",
    description:
      "Saves a new version. Send `expectedVersion` (the version you edited): if someone saved in between, the answer is 409 with the record as it is now, and nothing is saved.",
    tag: "mental-models",
    params: BankItemParams,
    body: UpdateMentalModelBody,
    responses: {
      200: { description: "the new version", schema: MentalModel },
      ...BAD_INPUT,
      404: err("unknown bank or model"),
      ...CONFLICT,
      ...TOO_LARGE,
    },
  }),
  deleteMentalModel: defineEndpoint({
    method: "DELETE",
    path: "/banks/{bank}/mental-models/{id}",
    operationId: "deleteMentalModel",
    summary: "Delete a mental model and its history",
    description: "Deletes the mental model and its version history. Runs that cited it keep their stored events.",
    tag: "mental-models",
    params: BankItemParams,
    responses: { 204: { description: "deleted" }, 404: err("unknown bank or model") },
  }),
  listSkills: defineEndpoint({
    method: "GET",
    path: "/banks/{bank}/skills",
    operationId: "listSkills",
    summary: "List skills",
    description: "The bank's skills (mission, disposition, retrieval defaults, budget), current versions.",
    tag: "skills",
    params: BankParams,
    responses: { 200: { description: "skills", schema: SkillList }, ...NO_BANK },
  }),
  createSkill: defineEndpoint({
    method: "POST",
    path: "/banks/{bank}/skills",
    operationId: "createSkill",
    summary: "Create a skill (version 1)",
    description: "Creates a skill at version 1. Its id and name must be new in the bank.",
    tag: "skills",
    params: BankParams,
    body: CreateSkillBody,
    responses: {
      201: { description: "created", schema: Skill },
      ...BAD_INPUT,
      ...NO_BANK,
      409: err("a skill with this id or name exists"),
      ...TOO_LARGE,
    },
  }),
  getSkill: defineEndpoint({
    method: "GET",
    path: "/banks/{bank}/skills/{id}",
    operationId: "getSkill",
    summary: "A skill with every version, newest first",
    description: "The skill's current version and every earlier version, newest first.",
    tag: "skills",
    params: BankItemParams,
    responses: {
      200: { description: "the skill and its versions", schema: SkillWithHistory },
      404: err("unknown bank or skill"),
    },
  }),
  updateSkill: defineEndpoint({
    method: "PUT",
    path: "/banks/{bank}/skills/{id}",
    operationId: "updateSkill",
    summary: "Edit a skill (a new version); omitted fields keep their value",
    description:
      "Saves a new version. Send `expectedVersion` (the version you edited): if someone saved in between, the answer is 409 with the record as it is now, and nothing is saved.",
    tag: "skills",
    params: BankItemParams,
    body: UpdateSkillBody,
    responses: {
      200: { description: "the new version", schema: Skill },
      ...BAD_INPUT,
      404: err("unknown bank or skill"),
      ...CONFLICT,
      ...TOO_LARGE,
    },
  }),
  deleteSkill: defineEndpoint({
    method: "DELETE",
    path: "/banks/{bank}/skills/{id}",
    operationId: "deleteSkill",
    summary: "Delete a skill and its history (runs keep their snapshot)",
    description: "Deletes the skill and its version history. Runs made with it keep the snapshot they ran with.",
    tag: "skills",
    params: BankItemParams,
    responses: { 204: { description: "deleted" }, 404: err("unknown bank or skill") },
  }),
  listRuns: defineEndpoint({
    method: "GET",
    path: "/runs",
    operationId: "listRuns",
    summary: "List runs, newest first, with filters and a cursor",
    description:
      "Runs newest first, filtered by bank, skill, status, flag (`badge`) or text (`q`), a page at a time: pass `nextCursor` from the previous page as `cursor`.",
    tag: "runs",
    query: ListRunsQuery,
    responses: { 200: { description: "a page of runs", schema: RunListPage }, ...BAD_INPUT },
  }),
  streamRuns: defineEndpoint({
    method: "GET",
    path: "/runs/stream",
    operationId: "streamRuns",
    summary: "The runs list, live: runs that appear or change under the filters (server-sent events)",
    description:
      "Frames: `event: run` with a run summary (a new run, or a changed one that still matches the filters), `event: remove` with `{id}` (a run changed and no longer matches), `event: reset` (too much changed since the cursor: reload the list). Every frame's `id` is a cursor; reconnect with it as `Last-Event-ID` (or `?since=`) to receive what changed meanwhile. The server reads the runs table every 250 ms, once for all open streams.",
    tag: "runs",
    query: RunListStreamQuery,
    responses: {
      200: {
        description: "an event stream",
        contentType: "text/event-stream",
        schema: RunListStreamFrames,
      },
      ...BAD_INPUT,
      503: err(
        "this server already serves as many live streams as it allows (code `too_many_streams`): retry after Retry-After seconds; or the database cannot be opened (code `unavailable`)",
      ),
    },
  }),
  getRun: defineEndpoint({
    method: "GET",
    path: "/runs/{id}",
    operationId: "getRun",
    summary: "A run: status, answer, citations, usage",
    description:
      "The run's record: question, skill snapshot, status, answer, citations (kept and dropped), flags, usage and timing. Its steps are at `/runs/{id}/events`.",
    tag: "runs",
    params: RunParams,
    responses: { 200: { description: "the run", schema: RunDetail }, 404: err("unknown run") },
  }),
  getRunEvents: defineEndpoint({
    method: "GET",
    path: "/runs/{id}/events",
    operationId: "getRunEvents",
    summary: "A run's event log (JSON, or a live stream with Accept: text/event-stream)",
    description:
      "The stream sends `id: <seq>`, `event: <type>`, `data: <event JSON>` per event, polls for new events every 250 ms and closes after `run.finished`. It honours `Last-Event-ID`.",
    tag: "runs",
    params: RunParams,
    query: RunEventsQuery,
    responses: {
      200: {
        description: "the events (application/json) or an event stream (text/event-stream)",
        schema: RunEventList,
      },
      ...BAD_INPUT,
      404: err("unknown run"),
    },
  }),
  getRunOtlp: defineEndpoint({
    method: "GET",
    path: "/runs/{id}/otlp",
    operationId: "getRunOtlp",
    summary: "A run as an OpenTelemetry trace file (OTLP/JSON)",
    description:
      "The run as one OTLP/JSON `ExportTraceServiceRequest`: an `invoke_agent` root span, `chat` spans for model calls, `execute_tool` spans with `retrieval` children for tier searches, and verdicts (freshness checks, steering, guards, citations) as root span events. Attributes follow the OpenTelemetry GenAI conventions with OpenInference span kinds alongside. Served as a download (`Content-Disposition: attachment`). The same trace is what the server pushes to `OTEL_EXPORTER_OTLP_ENDPOINT`.",
    tag: "runs",
    params: RunParams,
    responses: { 200: { description: "the trace", schema: OtlpTraceFile }, 404: err("unknown run") },
  }),
  openapi: defineEndpoint({
    method: "GET",
    path: "/openapi.json",
    operationId: "getOpenApi",
    summary: "This API's OpenAPI 3.1 document",
    description: "This document, generated from the same endpoint declarations the route handlers validate with.",
    tag: "meta",
    responses: { 200: { description: "the document", schema: OpenApiDocument } },
  }),
};

/** Shared response schemas get a readable component name instead of a per-operation one. */
export const NAMED_SCHEMAS = new Map<z.ZodType, string>([
  [ApiErrorBody, "Error"],
  [MentalModel, "MentalModel"],
  [Skill, "Skill"],
]);
