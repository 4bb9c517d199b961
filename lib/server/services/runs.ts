/**
 * Run service: validates a start request, snapshots the skill, persists the run, then runs the
 * engine detached and returns the run id at once. Followers read the event log as it grows.
 */
import { randomBytes } from "node:crypto";
import type { z } from "zod";
import type { Db } from "@/db/client";
import { type BankRecord, getBank } from "@/db/queries/banks";
import { createMemoryStore } from "@/db/queries/memory-store";
import {
  countRunEvents,
  createRun,
  createRunSink,
  finishRun,
  getLastRunEvent,
  getRun,
  getRunEvents,
  type ListRuns,
  listRuns,
  type RunRecord,
} from "@/db/queries/runs";
import { isScopePermitted } from "@/db/queries/scope";
import { getSkill, listSkills, type SkillRecord, toSkillSnapshot } from "@/db/queries/skills";
import { AppError } from "@/lib/contracts/errors";
import {
  type ListRunsQuery,
  type MentalModelDraftRef,
  type RunDetail,
  type RunEventList,
  type RunListItem,
  type RunListPage,
  runLinks,
  type StartRunInput,
} from "@/lib/contracts/runs";
import { DEFAULT_SKILL_NAME, defaultSkillOf } from "@/lib/contracts/skills";
import {
  failedRunResult,
  type MemoryPort,
  type MentalModelDraftRead,
  type ModelPort,
  type ReflectOptions,
  type ReflectResult,
  runReflect,
  type SkillSnapshot,
  type Tier,
} from "@/lib/reflect";
import { admit } from "../runtime/admission";
import { memoryStoreOptions } from "../runtime/embeddings";
import { getModel } from "../runtime/model";
import { runOwner } from "../runtime/run-owner";
import { pushRunTraceInBackground } from "./otlp-push";

/** Time-sortable, collision-resistant run ids. */
export function newRunId(now = Date.now()): string {
  return `run_${now.toString(36).padStart(9, "0")}${randomBytes(4).toString("hex")}`;
}

/** Records a caller read once and hands to every run it starts (see `startRun`'s `prepared`). */
export interface PreparedRun {
  bank?: BankRecord;
  /** The bank's skills, to resolve each run's skill without reading it again. */
  skills?: SkillRecord[];
  ownerId?: string;
}

export interface StartedRun {
  runId: string;
  /** Resolves when the engine has finished and the run row is final (the CLI awaits it). */
  finished: Promise<ReflectResult>;
}

/** Starts a validated request (every caller parses its own transport's input against the contracts). */
export async function startRun(
  db: Db,
  input: z.output<typeof StartRunInput>,
  options: {
    model?: ModelPort;
    excludeTiers?: Tier[];
    /** Re-run or fork: the run this one was made from. */
    parentRunId?: string;
    /** Fork: the parent's responses replayed below `forkAt`; recorded as `forkedAtIteration`. */
    replay?: ReflectOptions["replay"];
    /** "Try" a skill draft: run with this snapshot instead of the saved skill (nothing is saved). */
    skillOverride?: SkillSnapshot;
    /** An experiment's draft: what the run reads, changed only for this run (nothing is saved). */
    memoryOverlay?: (memory: MemoryPort) => MemoryPort;
    /** The overlay's mental-model drafts, recorded in the run's snapshot so the run says it read a draft. */
    mentalModelDrafts?: MentalModelDraftRead[];
    /** The caller's request: one that goes away while waiting for a reflect slot leaves the line. */
    signal?: AbortSignal;
    /** Wait in line past the queue cap instead of answering `too_busy` (an experiment's questions). */
    patient?: boolean;
    /**
     * What the caller already read for this request (the API's bank check, an experiment's bank,
     * skills and owner, read once for all its questions): each existence check runs once.
     */
    prepared?: PreparedRun;
    /** How an unknown skill is refused: `not_found` (default) or, where the name is a field of the request, `invalid_input`. */
    unknownSkill?: "not_found" | "invalid_input";
  } = {},
): Promise<StartedRun> {
  const prepared = options.prepared ?? {};
  const bank = prepared.bank?.id === input.bankId ? prepared.bank : await getBank(db, input.bankId);
  if (!bank) {
    throw new AppError("not_found", `unknown bank "${input.bankId}"`, { fieldErrors: { bankId: ["unknown bank"] } });
  }
  const skills = prepared.bank?.id === input.bankId ? prepared.skills : undefined;
  const skillRecord = options.skillOverride
    ? null
    : input.skill
      ? skills
        ? (skills.find((s) => s.name === input.skill) ?? null)
        : await getSkill(db, { bankId: bank.id, name: input.skill })
      : defaultSkillOf(skills ?? (await listSkills(db, bank.id)));
  const skillUsed = options.skillOverride ?? (skillRecord && toSkillSnapshot(skillRecord));
  const skill =
    skillUsed && options.mentalModelDrafts?.length
      ? { ...skillUsed, mentalModelDrafts: options.mentalModelDrafts }
      : skillUsed;
  if (!skill) {
    throw new AppError(
      options.unknownSkill ?? "not_found",
      `unknown skill "${input.skill ?? DEFAULT_SKILL_NAME}" in bank ${bank.id}`,
      {
        fieldErrors: { skill: ["unknown skill"] },
      },
    );
  }
  const budget = input.budget ?? skill.budget;
  const scope = input.scope ?? skill.retrieval.scope;
  // docs/engine.md#never-a-misleading-result: a team the bank does not permit is refused before a run exists, never reported
  // as a run that found nothing.
  if (!isScopePermitted(scope, bank.permittedTeams ?? [])) {
    throw new AppError("scope_not_permitted", `Bank ${bank.id} does not permit scope ${scope}; no run was started.`, {
      fieldErrors: { scope: [`scope ${scope} is not permitted in bank ${bank.id}`] },
    });
  }
  const parentRunId = options.parentRunId ?? null;
  const model = options.model ?? getModel({ db, bankId: bank.id });
  // Read before the run exists: a bad embedding setting rejects the start, not a half-made run.
  const store = createMemoryStore(db, memoryStoreOptions());
  const memory = options.memoryOverlay ? options.memoryOverlay(store) : store;
  // Every run holds a reflect slot while it runs, whatever door started it (lib/server/runtime/admission.ts):
  // past the slots it waits in line, past the queue it is refused with `too_busy` as the API is.
  const slot = await admit("reflect", options.signal, { patient: options.patient });
  const runId = newRunId();
  try {
    const ownerId = prepared.ownerId ?? (await runOwner(db));
    await createRun(db, {
      ownerId,
      id: runId,
      bankId: bank.id,
      question: input.question,
      skill,
      budget,
      mode: input.mode,
      scope,
      model: model.info,
      parentRunId,
      forkedAtIteration: options.replay?.forkAt ?? null,
    });
  } catch (err) {
    // No run exists: the slot goes back at once.
    slot.release();
    throw err;
  }

  const finished = (async (): Promise<ReflectResult> => {
    const started = Date.now();
    const result = await runReflect(
      {
        memory,
        model,
        // Events are written in batches at the engine's flush points (before each model call and
        // before it returns) and within SINK_FLUSH_AFTER_MS: a crash keeps every event acted on.
        sink: createRunSink(db, runId),
        clock: { now: () => Date.now() },
        ids: { next: (prefix) => `${prefix}_${randomBytes(6).toString("hex")}` },
      },
      {
        runId,
        bankId: bank.id,
        question: input.question,
        skill,
        budget,
        mode: input.mode,
        scope,
        anchorEvery: input.anchorEvery ?? skill.anchorEvery,
        responseSchema: input.responseSchema,
        excludeTiers: options.excludeTiers ?? [],
        parentRunId,
        forkedAtIteration: options.replay?.forkAt ?? null,
      },
      { replay: options.replay },
    ).catch((err: unknown) =>
      failedRunResult({ message: err instanceof Error ? err.message : String(err), phase: "engine" }),
    );
    const stored = await finishRun(db, runId, { ...result, durationMs: Date.now() - started });
    pushRunTraceInBackground(db, runId);
    return storedOutcome(result, stored);
  })();
  // Web-started runs are never awaited: a store failure while finishing is logged, not a crash.
  finished.catch((err: unknown) => console.error(`run ${runId} could not be finished:`, err));
  slot.holdUntil(finished);
  return { runId, finished };
}

/**
 * What the caller is told is what the store says: when another process ended the run first (it
 * judged this one's owner gone and marked it interrupted), the engine's result was not stored,
 * and reporting it would contradict the run page.
 */
function storedOutcome(result: ReflectResult, stored: RunRecord): ReflectResult {
  if (stored.status === result.status) return result;
  return {
    ...result,
    status: stored.status,
    answer: stored.answer ?? "",
    error: stored.error,
    warnings: [
      ...result.warnings,
      `run_ended_elsewhere: another process marked this run ${stored.status} before it finished here; its result here (${result.status}) was not stored`,
    ],
  };
}

/** The mental models a stored run read as drafts (from its snapshot), without their text. */
export function mentalModelDraftRefs(r: RunRecord): MentalModelDraftRef[] {
  return (r.skillSnapshot?.mentalModelDrafts ?? []).map(({ id, name, baseVersion }) => ({ id, name, baseVersion }));
}

export function toRunListItem(r: RunRecord): RunListItem {
  return {
    id: r.id,
    bankId: r.bankId,
    question: r.question,
    answer: r.answer,
    skillName: r.skillName ?? "—",
    skillVersion: r.skillVersion ?? 0,
    skillDraft: r.skillSnapshot?.draft === true,
    mentalModelDrafts: mentalModelDraftRefs(r),
    budget: r.budget,
    mode: r.mode,
    scope: r.scope,
    modelName: r.modelName,
    status: r.status,
    flags: r.flags,
    llmCalls: r.llmCalls ?? 0,
    modelRequests: r.modelRequests ?? r.llmCalls ?? 0,
    inputTokens: r.inputTokens ?? 0,
    outputTokens: r.outputTokens ?? 0,
    durationMs: r.durationMs,
    createdAt: r.createdAt,
    parentRunId: r.parentRunId,
    forkedAtIteration: r.forkedAtIteration,
  };
}

/** The runs list's filters (everything but paging). */
export type RunListFilter = Omit<z.output<typeof ListRunsQuery>, "cursor" | "limit">;

function storeFilter(f: RunListFilter): ListRuns {
  return {
    bankId: f.bank || undefined,
    skill: f.skill || undefined,
    status: f.status,
    flag: f.badge,
    kind: f.kind,
    q: f.q || undefined,
  };
}

/** A page of the runs list; an unreadable cursor is `invalid_input`. */
export async function listRunItems(db: Db, f: z.output<typeof ListRunsQuery>): Promise<RunListPage> {
  const page = await listRuns(db, { ...storeFilter(f), cursor: f.cursor || undefined, limit: f.limit ?? 50 });
  return { runs: page.runs.map(toRunListItem), nextCursor: page.nextCursor };
}

/** Of `ids`, the runs the list's filters keep, as list items (the live list re-reads what changed). */
export async function runItemsAmong(db: Db, filter: RunListFilter, ids: readonly string[]) {
  if (ids.length === 0) return [];
  const page = await listRuns(db, { ...storeFilter(filter), ids, limit: ids.length });
  return page.runs.map(toRunListItem);
}

/** A run's question as a tab title: one line, cut at 70 characters; null when there is no such run. */
export async function runTitle(db: Db, runId: string): Promise<string | null> {
  const run = await getRun(db, runId);
  if (!run) return null;
  const chars = [...run.question.replace(/\s+/g, " ").trim()];
  return chars.length > 70 ? `${chars.slice(0, 70).join("").trimEnd()}…` : chars.join("");
}

/**
 * Events the run page renders with; a longer log streams in from the event stream after first paint.
 * A screen of rows needs a few dozen events: every one beyond is read, sent and folded before the
 * page can show anything (1,500 made the server's part of a first visit 2–3× longer).
 */
export const FIRST_PAINT_EVENTS = 400;

export async function getRunWithEvents(db: Db, runId: string, options: { limit?: number } = {}) {
  const run = await getRun(db, runId);
  if (!run) return null;
  const limit = options.limit;
  const events = await getRunEvents(db, runId, limit === undefined ? {} : { limit: limit + 1 });
  const complete = limit === undefined || events.length <= limit;
  const total = complete ? events.length : await countRunEvents(db, runId);
  return { run, events: complete ? events : events.slice(0, limit), total };
}

export function toRunDetail(r: RunRecord, probe: RunDetail["probe"]): RunDetail {
  return {
    id: r.id,
    bankId: r.bankId,
    question: r.question,
    skill: r.skillSnapshot
      ? {
          id: r.skillSnapshot.id,
          name: r.skillSnapshot.name,
          version: r.skillSnapshot.version,
          draft: r.skillSnapshot.draft === true,
        }
      : null,
    mentalModelDrafts: mentalModelDraftRefs(r),
    budget: r.budget,
    mode: r.mode,
    scope: r.scope,
    model: { kind: r.modelKind, name: r.modelName },
    status: r.status,
    answer: r.answer,
    citations: r.citations,
    probe,
    dropped: r.dropped,
    flags: r.flags,
    warnings: r.warnings,
    usage: { inputTokens: r.inputTokens, outputTokens: r.outputTokens },
    llmCalls: r.llmCalls,
    modelRequests: r.modelRequests ?? r.llmCalls,
    iterations: r.iterations,
    error: r.error,
    parentRunId: r.parentRunId,
    forkedAtIteration: r.forkedAtIteration,
    createdAt: r.createdAt,
    finishedAt: r.finishedAt,
    durationMs: r.durationMs,
    links: runLinks(r.id),
  };
}

/** The run, or `not_found`. */
export async function requireRun(db: Db, id: string): Promise<RunRecord> {
  const run = await getRun(db, id);
  if (!run) throw new AppError("not_found", `unknown run "${id}"`);
  return run;
}

export async function runDetail(db: Db, id: string) {
  const [run, probe] = await Promise.all([requireRun(db, id), getLastRunEvent(db, id, "probe.finished")]);
  return toRunDetail(run, probe?.payload ?? null);
}

export async function runEventList(db: Db, id: string, after: number | undefined): Promise<RunEventList> {
  const run = await requireRun(db, id);
  return { status: run.status, events: await getRunEvents(db, id, { afterSeq: after }) };
}

/** The run's status as it is now and its events after `afterSeq` (status first: see the event stream). */
export async function runEventsAfter(db: Db, id: string, afterSeq: number | undefined, limit?: number) {
  const run = await getRun(db, id);
  const events = await getRunEvents(db, id, { afterSeq, limit });
  return { run, events };
}

/** A run's whole event log (the MCP's and CLI's folds read it). */
export function runEvents(db: Db, id: string) {
  return getRunEvents(db, id);
}

/** A run as stored with its event log, or null (`runs export`). */
export async function runExport(db: Db, id: string) {
  const run = await getRun(db, id);
  return run ? { run, events: await getRunEvents(db, id) } : null;
}
