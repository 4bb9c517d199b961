/**
 * Every /api/v1 endpoint. Route files under app/api/v1 wrap these with `handle`; the OpenAPI
 * document lists exactly these (a test compares them with the route files on disk).
 */
import type { z } from "zod";
import { OpenApiDocument } from "@/lib/contracts/api";
import { BankItemParams, BankList, BankParams, ExportResult, ImportQuery, ImportResult } from "@/lib/contracts/banks";
import { BenchmarkImportResult, LocomoImportQuery } from "@/lib/contracts/benchmarks";
import { Bundle } from "@/lib/contracts/bundle";
import { ApiErrorBody } from "@/lib/contracts/errors";
import {
  CompareQuery,
  Experiment,
  ExperimentComparison,
  ExperimentList,
  ExperimentParams,
  ListExperimentsQuery,
  StartExperimentBody,
} from "@/lib/contracts/experiments";
import { HindsightImportBody, HindsightImportResult } from "@/lib/contracts/hindsight";
import { LocomoFile } from "@/lib/contracts/locomo";
import { RecallBody, RecallResult, RetainBody, RetainResult } from "@/lib/contracts/memory";
import {
  CreateMentalModelBody,
  MentalModel,
  MentalModelList,
  MentalModelWithHistory,
  UpdateMentalModelBody,
} from "@/lib/contracts/mental-models";
import { OtlpTraceFile } from "@/lib/contracts/otlp";
import { PruneResult, PruneRunsBody, RetentionRule, RunRetentionSetting } from "@/lib/contracts/retention";
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
import {
  CreateSuiteBody,
  ImportSuiteBody,
  Suite,
  SuiteJsonl,
  SuiteList,
  SuiteParams,
  SuiteWithHistory,
  UpdateSuiteBody,
} from "@/lib/contracts/suites";
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
/** What every server-sent-events response sends besides its content type (lib/server/http/api/sse.ts). */
const SSE_HEADERS = (required: boolean): NonNullable<ResponseSpec["headers"]> => ({
  "Cache-Control": {
    description: `\`no-cache, no-transform\`${required ? "" : " (the event stream only)"}`,
    required,
  },
  "X-Accel-Buffering": {
    description: `\`no\`: proxies must not buffer the stream${required ? "" : " (the event stream only)"}`,
    required,
  },
});
const ATTACHMENT = (what: string): NonNullable<ResponseSpec["headers"]> => ({
  "Content-Disposition": { description: `\`attachment; filename="${what}"\``, required: true },
});
const RUN_LOCATION: NonNullable<ResponseSpec["headers"]> = {
  Location: { description: "the run's URL (`links.self`)", required: true },
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
      "Imports a bundle (bank, facts, observations, mental models, skills) in one transaction: a bundle that fails validation changes nothing and the 400 names each bad value by its JSON path (a JSON-lines body, by its line). An existing bank is refused unless `replace=true`, which replaces it whole.",
    tag: "banks",
    query: ImportQuery,
    body: Bundle,
    bodyAlternative: {
      contentType: "application/x-ndjson",
      description:
        "The bundle as JSON lines (a `.jsonl` file): line 1 `{version, bank}`, then one `{fact}`, `{observation}`, `{mentalModel}`, `{skill}` or `{suite}` per line; read line by line, and a bad line (named by its number) imports nothing.",
    },
    maxBodyBytes: BUNDLE_MAX_BYTES,
    // Bounded per process like the Hindsight import: a JSON bundle is a whole parsed bank in memory
    // while it is validated and written (8 at once held 1.6 GB and stalled the server 23 s). A JSON-lines
    // body is streamed a chunk at a time and takes no slot (docs/operations.md#big-imports).
    admission: "ingest",
    // Validated once, by bundle path, inside that slot (importBundle), not also before it.
    bodyCheckedByHandler: true,
    responses: {
      201: { description: "imported", schema: ImportResult },
      400: err("invalid bundle, or the bank exists and replace is not set; fieldErrors by JSON path"),
      ...TOO_LARGE,
      ...TOO_BUSY,
    },
  }),
  importHindsight: defineEndpoint({
    method: "POST",
    path: "/banks/import/hindsight",
    operationId: "importHindsight",
    summary: "Import a bank from a Hindsight server (atomic; only from origins in HINDSIGHT_IMPORT_ORIGINS)",
    description:
      "Reads a bank through a Hindsight server's HTTP API (profile, memories, observations with their sources, mental models, directives) and imports it in one transaction, answering what it could not carry. The server fetches only from an origin listed in HINDSIGHT_IMPORT_ORIGINS (unset: refused); a refused key, a timeout or a malformed response imports nothing (code `upstream_failed`). The API key is sent as a bearer token and never stored.",
    tag: "banks",
    body: HindsightImportBody,
    // Bounded per process like trace ingest: each import holds a whole bank in memory while it reads.
    admission: "ingest",
    responses: {
      201: { description: "imported", schema: HindsightImportResult },
      400: err("invalid body, an origin not in HINDSIGHT_IMPORT_ORIGINS, or the bank exists and replace is not set"),
      404: err("the Hindsight server has no such bank"),
      502: err("the Hindsight server refused, timed out or answered something malformed (code upstream_failed)"),
      ...TOO_BUSY,
    },
  }),
  importLocomo: defineEndpoint({
    method: "POST",
    path: "/benchmarks/locomo",
    operationId: "importLocomo",
    summary: "Import LoCoMo as banks and suites",
    description:
      "Takes LoCoMo's data file as published (or part of it) and makes one bank per conversation — every turn a raw fact with its speaker, session and date, LoCoMo's observations with their source turns, optionally its session summaries as mental models (`summaries`) — with the `qa` skill and a suite of every question tagged by category (a question passes when its answer reaches the gold answer at `minF1` and cites one of its evidence turns; an adversarial one when it declines). Everything is validated before anything is written; an existing bank is refused unless `replace=true`. Every repair of malformed data (split, fixed or dropped ids) is reported.",
    tag: "benchmarks",
    query: LocomoImportQuery,
    body: LocomoFile,
    maxBodyBytes: BUNDLE_MAX_BYTES,
    responses: {
      201: { description: "imported: the banks and suites made, and every data repair", schema: BenchmarkImportResult },
      400: err("not LoCoMo's shape (the error names the path and quotes the value)"),
      409: err("a bank already exists and replace is not set; nothing was imported"),
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
    responses: {
      200: { description: "the bundle", schema: ExportResult, headers: ATTACHMENT("{bank}.bundle.json") },
      ...NO_BANK,
    },
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
      200: { description: "the finished run (wait: true)", schema: ReflectFinished, headers: RUN_LOCATION },
      202: { description: "the run started (wait: false)", schema: ReflectAccepted, headers: RUN_LOCATION },
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
    summary: "Search one memory tier without a run (raw facts by default)",
    description:
      "Searches one tier of the bank — raw facts (default), observations or mental models — as a run's search tool does (BM25 full-text search, plus vector similarity when embeddings are configured), in the given scope, best first. Observations carry the ids of the facts they were consolidated from; with `context: true`, a raw fact that is a conversation turn comes with the turns before and after it. Starts no run and calls no model.",
    tag: "memory",
    params: BankParams,
    admission: "recall",
    body: RecallBody,
    responses: {
      200: { description: "the tier's matches, best first", schema: RecallResult },
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
      403: err("the bank does not permit the skill's team scope (code scope_not_permitted)"),
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
      403: err("the bank does not permit the skill's team scope (code scope_not_permitted)"),
      404: err("unknown bank or skill"),
      ...CONFLICT,
      ...TOO_LARGE,
    },
  }),
  deleteSkill: defineEndpoint({
    method: "DELETE",
    path: "/banks/{bank}/skills/{id}",
    operationId: "deleteSkill",
    summary: "Delete a skill (its versions and runs' snapshots are kept)",
    description:
      "Deletes the skill: lists and new runs no longer see it. Its versions are kept as its history (its id is not given to a new skill), and runs made with it keep the snapshot they ran with.",
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
        headers: SSE_HEADERS(true),
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
        alternative: {
          contentType: "text/event-stream",
          description: "`id: <seq>\\nevent: <type>\\ndata: <RunEvent JSON>\\n\\n` frames",
        },
        headers: SSE_HEADERS(false),
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
      "The run as one OTLP/JSON `ExportTraceServiceRequest`: an `invoke_agent` root span, `chat` spans for model calls, `execute_tool` spans with a `search_memory` span over a `retrieval` span for each tier search, and verdicts (freshness checks, steering, guards, citations) as root span events. Attributes follow the OpenTelemetry GenAI conventions with OpenInference span kinds alongside. Served as a download (`Content-Disposition: attachment`). The same trace is what the server pushes to `OTEL_EXPORTER_OTLP_ENDPOINT`.",
    tag: "runs",
    params: RunParams,
    responses: {
      200: { description: "the trace", schema: OtlpTraceFile, headers: ATTACHMENT("run-{id}.otlp.json") },
      404: err("unknown run"),
    },
  }),
  pruneRuns: defineEndpoint({
    method: "POST",
    path: "/runs/prune",
    operationId: "pruneRuns",
    summary: "Remove old runs and their events (runs something refers to are kept)",
    description:
      "Removes the runs `olderThan` selects (`30d`, `12h`), or all but each bank's newest `keep`, optionally of one `bank`, with their events; give exactly one of the two. Runs that are still running, ran in an experiment, are a mental model's refresh proposal (accepted or not) or the parent of a re-run are kept: the response counts them by reason with examples. With `dryRun: true` nothing changes and the response says what would be removed. Freed pages are returned to the file system (incremental vacuum); a database made before retention existed needs `vacuum: true` once (a full VACUUM, which holds the write lock while it rewrites the file).",
    tag: "runs",
    body: PruneRunsBody,
    responses: {
      200: { description: "what was removed (or would be) and what was kept, and why", schema: PruneResult },
      ...BAD_INPUT,
      404: err("unknown bank"),
      ...TOO_LARGE,
    },
  }),
  getRunRetention: defineEndpoint({
    method: "GET",
    path: "/banks/{bank}/run-retention",
    operationId: "getRunRetention",
    summary: "A bank's run retention setting",
    description:
      "The rule the server applies to the bank's runs in the background (hourly), or `retention: null` when runs are kept until pruned.",
    tag: "runs",
    params: BankParams,
    responses: { 200: { description: "the setting", schema: RunRetentionSetting }, ...NO_BANK },
  }),
  setRunRetention: defineEndpoint({
    method: "PUT",
    path: "/banks/{bank}/run-retention",
    operationId: "setRunRetention",
    summary: "Set a bank's run retention (applied by the server in the background)",
    description:
      "Exactly one of `olderThan` (`30d`, `12h`) and `keep` (the newest N runs). The server applies it hourly, keeping the runs `pruneRuns` keeps.",
    tag: "runs",
    params: BankParams,
    body: RetentionRule,
    responses: {
      200: { description: "the setting", schema: RunRetentionSetting },
      ...BAD_INPUT,
      ...NO_BANK,
      ...TOO_LARGE,
    },
  }),
  deleteRunRetention: defineEndpoint({
    method: "DELETE",
    path: "/banks/{bank}/run-retention",
    operationId: "deleteRunRetention",
    summary: "Remove a bank's run retention (its runs are kept until pruned)",
    description: "Removes the setting; no run is removed.",
    tag: "runs",
    params: BankParams,
    responses: { 204: { description: "removed" }, ...NO_BANK },
  }),
  listSuites: defineEndpoint({
    method: "GET",
    path: "/banks/{bank}/suites",
    operationId: "listSuites",
    summary: "List question suites",
    description: "The bank's question suites: name, description, current version and number of questions.",
    tag: "suites",
    params: BankParams,
    responses: { 200: { description: "suites", schema: SuiteList }, ...NO_BANK },
  }),
  createSuite: defineEndpoint({
    method: "POST",
    path: "/banks/{bank}/suites",
    operationId: "createSuite",
    summary: "Create a question suite (version 1)",
    description:
      "Creates a suite: a name (a slug, unique in the bank), a description and questions, each with optional expectations (status in a set, must / must not cite ids, answer contains / does not contain, at most N LLM calls).",
    tag: "suites",
    params: BankParams,
    body: CreateSuiteBody,
    responses: {
      201: { description: "created", schema: Suite },
      ...BAD_INPUT,
      403: err("a question's team scope is not permitted by the bank (code scope_not_permitted)"),
      ...NO_BANK,
      409: err("a suite with this name exists"),
      ...TOO_LARGE,
    },
  }),
  getSuite: defineEndpoint({
    method: "GET",
    path: "/banks/{bank}/suites/{suite}",
    operationId: "getSuite",
    summary: "A suite with every version, newest first",
    description: "The suite's current questions and every earlier version (each holds the whole question list).",
    tag: "suites",
    params: SuiteParams,
    responses: { 200: { description: "the suite", schema: SuiteWithHistory }, 404: err("unknown bank or suite") },
  }),
  updateSuite: defineEndpoint({
    method: "PUT",
    path: "/banks/{bank}/suites/{suite}",
    operationId: "updateSuite",
    summary: "Edit a suite (a new version holding the whole question list)",
    description:
      "Saves a new version. Send `expectedVersion` (the version you edited): if someone saved in between, the answer is 409 with the suite as it is now, and nothing is saved.",
    tag: "suites",
    params: SuiteParams,
    body: UpdateSuiteBody,
    responses: {
      200: { description: "the new version", schema: Suite },
      ...BAD_INPUT,
      403: err("a question's team scope is not permitted by the bank (code scope_not_permitted)"),
      404: err("unknown bank or suite"),
      ...CONFLICT,
      ...TOO_LARGE,
    },
  }),
  deleteSuite: defineEndpoint({
    method: "DELETE",
    path: "/banks/{bank}/suites/{suite}",
    operationId: "deleteSuite",
    summary: "Delete a suite and its history (experiments keep the questions they ran)",
    description: "Deletes the suite and its versions. Experiments keep the questions they ran and their runs.",
    tag: "suites",
    params: SuiteParams,
    responses: { 204: { description: "deleted" }, 404: err("unknown bank or suite") },
  }),
  importSuite: defineEndpoint({
    method: "POST",
    path: "/banks/{bank}/suites/{suite}/import",
    operationId: "importSuite",
    summary: "Replace a suite's questions from JSONL (creates the suite when new)",
    description:
      "`jsonl` holds one question object per line, as `suite export` prints them. A bad line refuses the whole document (400 naming the line) and nothing is imported; otherwise the questions become the suite's new version.",
    tag: "suites",
    params: SuiteParams,
    body: ImportSuiteBody,
    maxBodyBytes: 6_000_000,
    responses: {
      200: { description: "the suite's new version", schema: Suite },
      ...BAD_INPUT,
      ...NO_BANK,
      ...TOO_LARGE,
    },
  }),
  exportSuite: defineEndpoint({
    method: "GET",
    path: "/banks/{bank}/suites/{suite}/export",
    operationId: "exportSuite",
    summary: "A suite's questions as JSONL",
    description:
      "One question object per line (`application/x-ndjson`), as `importSuite` and `suite import` accept them.",
    tag: "suites",
    params: SuiteParams,
    responses: {
      200: {
        description: "JSONL",
        contentType: "application/x-ndjson",
        schema: SuiteJsonl,
        headers: ATTACHMENT("{suite}.jsonl"),
      },
      404: err("unknown bank or suite"),
    },
  }),
  listExperiments: defineEndpoint({
    method: "GET",
    path: "/experiments",
    operationId: "listExperiments",
    summary: "A bank's experiments, newest first",
    description: "Experiments of a bank (optionally of one suite), newest first, with their totals.",
    tag: "experiments",
    query: ListExperimentsQuery,
    responses: { 200: { description: "experiments", schema: ExperimentList }, ...BAD_INPUT, ...NO_BANK },
  }),
  startExperiment: defineEndpoint({
    method: "POST",
    path: "/experiments",
    operationId: "startExperiment",
    summary: "Run every question of a suite under one configuration",
    description:
      "Starts the experiment detached and answers 202 with it (status `running`). `config` is the current state when empty, or a draft applied only inside the experiment and never saved: a skill version or an unsaved mission/disposition, mental-model content edits and staleness overrides, a budget. Each question becomes an ordinary run linked to the experiment, at most `concurrency` (default 4) at a time. Follow it at `/experiments/{id}` (a live stream with `Accept: text/event-stream`). A `baseline` that did not complete (failed, cancelled, a question skipped, still running) is refused with 400 saying why, unless `allowIncompleteBaseline` is true: then only the questions run on both sides are compared.",
    tag: "experiments",
    body: StartExperimentBody,
    responses: {
      202: { description: "started", schema: Experiment },
      ...BAD_INPUT,
      403: err("a question's team scope is not permitted by the bank (code scope_not_permitted)"),
      404: err("unknown bank, suite, skill version, mental model or baseline"),
      ...TOO_LARGE,
    },
  }),
  compareExperiments: defineEndpoint({
    method: "GET",
    path: "/experiments/compare",
    operationId: "compareExperiments",
    summary: "Compare two experiments question by question",
    description:
      "Aligns the questions (by text and skill) and lists, per question, regressions (an expectation newly failed, a worse status, a citation lost, more LLM calls) and improvements (the mirror). Status order, best first: done > degraded > ungrounded = no_evidence > halted > interrupted > failed.",
    tag: "experiments",
    query: CompareQuery,
    responses: {
      200: { description: "the comparison", schema: ExperimentComparison },
      ...BAD_INPUT,
      404: err("unknown experiment"),
    },
  }),
  getExperiment: defineEndpoint({
    method: "GET",
    path: "/experiments/{id}",
    operationId: "getExperiment",
    summary: "An experiment with one row per question (JSON, or live progress with Accept: text/event-stream)",
    description:
      "Each row: the question's run, status, LLM calls, tokens, latency, citations, flags and each expectation met or not; totals on top. The stream sends `event: progress` frames `{status, questions, finished, passed, failed}` (polled every 250 ms) and closes when the experiment ends.",
    tag: "experiments",
    params: ExperimentParams,
    responses: {
      200: {
        description: "the experiment (application/json) or its progress (text/event-stream)",
        schema: Experiment,
        alternative: {
          contentType: "text/event-stream",
          description: "`event: progress\\ndata: {status, questions, finished, passed, failed}\\n\\n` frames",
        },
        headers: SSE_HEADERS(false),
      },
      404: err("unknown experiment"),
    },
  }),
  cancelExperiment: defineEndpoint({
    method: "POST",
    path: "/experiments/{id}/cancel",
    operationId: "cancelExperiment",
    summary: "Cancel a running experiment",
    description:
      "No further question starts; runs already going finish and stay linked. 409 when the experiment is not running (the body's `current` is the experiment).",
    tag: "experiments",
    params: ExperimentParams,
    responses: {
      200: { description: "the experiment, cancelled", schema: Experiment },
      404: err("unknown experiment"),
      409: err("the experiment is not running"),
    },
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
  [Suite, "Suite"],
  [Experiment, "Experiment"],
]);
