/**
 * Run service: validates a start request, snapshots the skill, persists the run, then runs the
 * engine detached and returns the run id at once. Followers read the event log as it grows.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { getBank } from "@/db/banks";
import type { Db } from "@/db/client";
import { createMemoryStore } from "@/db/memory-store";
import { createRun, createRunSink, finishRun, getRun, getRunEvents, listRuns, type RunRecord } from "@/db/runs";
import { getSkill, listSkills, toSkillSnapshot } from "@/db/skills";
import type { RunListItem } from "@/lib/query/runs";
import {
  Budget,
  type ModelPort,
  type ReflectOptions,
  type ReflectResult,
  RunMode,
  runReflect,
  Scope,
  type SkillSnapshot,
} from "@/lib/reflect";
import { ServiceError } from "./action";
import { memoryStoreOptions } from "./embeddings";
import { getModel } from "./model";
import { pushRunTraceInBackground } from "./otlp-push";

export const StartRunInput = z.object({
  bankId: z.string().trim().min(1, "choose a bank"),
  skill: z.string().trim().optional(),
  budget: z.union([Budget, z.literal("")]).optional(),
  mode: RunMode.default("synthesize"),
  scope: z.union([Scope, z.literal("")]).optional(),
  question: z.string().trim().min(1, "ask a question").max(4000, "keep the question under 4,000 characters"),
  anchorEvery: z.number().int().min(1).max(50).optional(),
  responseSchema: z.unknown().optional(),
  parentRunId: z.string().optional(),
});
export type StartRunInput = z.input<typeof StartRunInput>;

/** Time-sortable, collision-resistant run ids. */
export function newRunId(now = Date.now()): string {
  return `run_${now.toString(36).padStart(9, "0")}${randomBytes(4).toString("hex")}`;
}

export interface StartedRun {
  runId: string;
  /** Resolves when the engine has finished and the run row is final (the CLI awaits it). */
  finished: Promise<ReflectResult>;
}

export async function startRun(
  db: Db,
  raw: StartRunInput,
  options: {
    model?: ModelPort;
    excludeTiers?: ("mental_models" | "observations" | "raw_facts")[];
    /** Fork: the parent's responses replayed below `forkAt`; recorded as `forkedAtIteration`. */
    replay?: ReflectOptions["replay"];
    /** "Try" a skill draft: run with this snapshot instead of the saved skill (nothing is saved). */
    skillOverride?: SkillSnapshot;
  } = {},
): Promise<StartedRun> {
  const input = StartRunInput.parse(raw);
  const bank = await getBank(db, input.bankId);
  if (!bank) throw new ServiceError("not_found", `unknown bank "${input.bankId}"`, { bankId: ["unknown bank"] });
  const skillRecord = options.skillOverride
    ? null
    : input.skill
      ? await getSkill(db, { bankId: bank.id, name: input.skill })
      : ((await getSkill(db, { bankId: bank.id, name: "recap" })) ?? (await listSkills(db, bank.id))[0] ?? null);
  const skill = options.skillOverride ?? (skillRecord && toSkillSnapshot(skillRecord));
  if (!skill) {
    throw new ServiceError("not_found", `unknown skill "${input.skill ?? "recap"}" in bank ${bank.id}`, {
      skill: ["unknown skill"],
    });
  }
  const budget = input.budget || skill.budget;
  const scope = input.scope || skill.retrieval.scope;
  const model = options.model ?? getModel(db);
  // Read before the run exists: a bad embedding setting rejects the start, not a half-made run.
  const memory = createMemoryStore(db, memoryStoreOptions());
  const runId = newRunId();

  await createRun(db, {
    id: runId,
    bankId: bank.id,
    question: input.question,
    skill,
    budget,
    mode: input.mode,
    scope,
    model: model.info,
    parentRunId: input.parentRunId ?? null,
    forkedAtIteration: options.replay?.forkAt ?? null,
  });

  const finished = (async (): Promise<ReflectResult> => {
    const started = Date.now();
    const result = await runReflect(
      {
        memory,
        model,
        // Each append is durable before the engine goes on: a crash keeps every event so far.
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
        parentRunId: input.parentRunId ?? null,
        forkedAtIteration: options.replay?.forkAt ?? null,
      },
      { replay: options.replay },
    ).catch(
      (err: unknown): ReflectResult => ({
        status: "failed",
        answer: "",
        citations: { memory_ids: [], observation_ids: [], mental_model_ids: [] },
        dropped: [],
        flags: [],
        usage: { inputTokens: 0, outputTokens: 0 },
        llmCalls: 0,
        iterations: 0,
        warnings: [],
        error: { message: err instanceof Error ? err.message : String(err), phase: "engine" },
      }),
    );
    await finishRun(db, runId, { ...result, durationMs: Date.now() - started });
    pushRunTraceInBackground(db, runId);
    return result;
  })();
  // Web-started runs are never awaited: a store failure while finishing is logged, not a crash.
  finished.catch((err: unknown) => console.error(`run ${runId} could not be finished:`, err));
  return { runId, finished };
}

export function toRunListItem(r: RunRecord): RunListItem {
  return {
    id: r.id,
    bankId: r.bankId,
    question: r.question,
    answer: r.answer,
    skillName: r.skillName ?? "—",
    skillVersion: r.skillVersion ?? 0,
    budget: r.budget,
    mode: r.mode,
    scope: r.scope,
    modelName: r.modelName,
    status: r.status,
    flags: r.flags,
    llmCalls: r.llmCalls ?? 0,
    inputTokens: r.inputTokens ?? 0,
    outputTokens: r.outputTokens ?? 0,
    durationMs: r.durationMs,
    createdAt: r.createdAt,
    parentRunId: r.parentRunId,
  };
}

export const ListRunsInput = z.object({
  bank: z.string().optional(),
  skill: z.string().optional(),
  status: z.string().optional(),
  badge: z.string().optional(),
  q: z.string().max(200).optional(),
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

export async function listRunItems(db: Db, raw: unknown) {
  const f = ListRunsInput.parse(raw);
  const page = await listRuns(db, {
    bankId: f.bank || undefined,
    skill: f.skill || undefined,
    status: (f.status || undefined) as never,
    flag: f.badge || undefined,
    q: f.q || undefined,
    cursor: f.cursor || undefined,
    limit: f.limit ?? 50,
  });
  return { runs: page.runs.map(toRunListItem), nextCursor: page.nextCursor };
}

/** Events the run page renders with; a longer log streams in from the events route after first paint. */
export const FIRST_PAINT_EVENTS = 1500;

export async function getRunWithEvents(db: Db, runId: string, options: { limit?: number } = {}) {
  const run = await getRun(db, runId);
  if (!run) return null;
  const limit = options.limit;
  const events = await getRunEvents(db, runId, limit === undefined ? {} : { limit: limit + 1 });
  const complete = limit === undefined || events.length <= limit;
  return { run, events: complete ? events : events.slice(0, limit), complete };
}

export async function getRunEventsAfter(db: Db, runId: string, afterSeq: number | undefined) {
  const run = await getRun(db, runId);
  if (!run) return null;
  return { status: run.status, events: await getRunEvents(db, runId, { afterSeq }) };
}
