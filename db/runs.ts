/**
 * Runs and their append-only event log. A run row is written when the run starts (status
 * `running`) and completed by `finishRun`; events arrive through the `RunSink` adapter.
 */
import { and, asc, desc, eq, gt, gte, inArray, or, type SQL, sql } from "drizzle-orm";
import { AppError } from "@/lib/contracts/errors";
import type { Budget, ModelInfo, RunFlag, RunMode, RunStatus, ScopeValue, SkillSnapshot } from "@/lib/reflect/domain";
import { type EventPayload, RunEvent } from "@/lib/reflect/events";
import type { RunSink } from "@/lib/reflect/ports";
import type { Db } from "./client";
import { runEvents, runs } from "./schema";

export type RunRecord = typeof runs.$inferSelect;

export interface CreateRun {
  id: string;
  bankId: string;
  question: string;
  skill: SkillSnapshot | null;
  budget: Budget;
  mode: RunMode;
  scope: ScopeValue;
  model: ModelInfo;
  parentRunId?: string | null;
  forkedAtIteration?: number | null;
  /** ISO; defaults to now. */
  createdAt?: string;
}

export async function createRun(db: Db, input: CreateRun): Promise<RunRecord> {
  const [row] = await db
    .insert(runs)
    .values({
      id: input.id,
      bankId: input.bankId,
      question: input.question,
      skillId: input.skill?.id ?? null,
      skillName: input.skill?.name ?? null,
      skillVersion: input.skill?.version ?? null,
      skillSnapshot: input.skill,
      budget: input.budget,
      mode: input.mode,
      scope: input.scope,
      modelKind: input.model.kind,
      modelName: input.model.name,
      status: "running",
      citations: null,
      dropped: [],
      flags: [],
      warnings: [],
      parentRunId: input.parentRunId ?? null,
      forkedAtIteration: input.forkedAtIteration ?? null,
      createdAt: new Date(input.createdAt ?? Date.now()).toISOString(),
    })
    .returning();
  if (!row) throw new Error(`run ${input.id} was not created`);
  return row;
}

export type RunResult = EventPayload<"run.finished"> & { finishedAt?: string; durationMs?: number };

export async function finishRun(db: Db, runId: string, result: RunResult): Promise<RunRecord> {
  const run = await getRun(db, runId);
  if (!run) throw new AppError("not_found", `run ${runId} not found`);
  const finishedAt = new Date(result.finishedAt ?? Date.now()).toISOString();
  const [row] = await db
    .update(runs)
    .set({
      status: result.status,
      answer: result.answer,
      citations: result.citations,
      dropped: result.dropped,
      flags: result.flags,
      warnings: result.warnings,
      inputTokens: result.usage.inputTokens,
      outputTokens: result.usage.outputTokens,
      llmCalls: result.llmCalls,
      iterations: result.iterations,
      error: result.error,
      finishedAt,
      durationMs: result.durationMs ?? Math.max(0, Date.parse(finishedAt) - Date.parse(run.createdAt)),
    })
    .where(eq(runs.id, runId))
    .returning();
  if (!row) throw new AppError("not_found", `run ${runId} not found`);
  return row;
}

export async function getRun(db: Db, runId: string): Promise<RunRecord | null> {
  const [row] = await db.select().from(runs).where(eq(runs.id, runId));
  return row ?? null;
}

export interface ListRuns {
  bankId?: string;
  /** Skill name or id. */
  skill?: string;
  status?: RunStatus;
  flag?: RunFlag;
  /** Case-insensitive substring of the question or the answer. */
  q?: string;
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
  /** Only these runs (the live runs list re-reads the runs that changed under its filters). */
  ids?: readonly string[];
}

const encodeCursor = (run: RunRecord) => Buffer.from(JSON.stringify([run.createdAt, run.id])).toString("base64url");

function decodeCursor(cursor: string): [string, string] {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(value) && typeof value[0] === "string" && typeof value[1] === "string") {
      return [value[0], value[1]];
    }
  } catch {
    // fall through to the error below
  }
  throw new AppError("invalid_input", "invalid cursor", {
    fieldErrors: { cursor: ["not a cursor this API returned"] },
  });
}

/** Newest first; pages with an opaque cursor (null when there is no further page). */
export async function listRuns(
  db: Db,
  filter: ListRuns = {},
): Promise<{ runs: RunRecord[]; nextCursor: string | null }> {
  const limit = Math.min(Math.max(filter.limit ?? 50, 1), 500);
  const where: SQL[] = [];
  if (filter.bankId) where.push(eq(runs.bankId, filter.bankId));
  if (filter.skill) where.push(sql`(${runs.skillName} = ${filter.skill} OR ${runs.skillId} = ${filter.skill})`);
  if (filter.status) where.push(eq(runs.status, filter.status));
  if (filter.ids) where.push(filter.ids.length > 0 ? inArray(runs.id, [...filter.ids]) : sql`0`);
  if (filter.flag) where.push(sql`EXISTS (SELECT 1 FROM json_each(${runs.flags}) WHERE value = ${filter.flag})`);
  if (filter.q?.trim()) {
    const pattern = `%${filter.q
      .trim()
      .toLowerCase()
      .replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.push(
      sql`(lower(${runs.question}) LIKE ${pattern} ESCAPE '\\' OR lower(coalesce(${runs.answer}, '')) LIKE ${pattern} ESCAPE '\\')`,
    );
  }
  if (filter.cursor) {
    const [createdAt, id] = decodeCursor(filter.cursor);
    where.push(sql`(${runs.createdAt} < ${createdAt} OR (${runs.createdAt} = ${createdAt} AND ${runs.id} < ${id}))`);
  }
  const rows = await db
    .select()
    .from(runs)
    .where(and(...where))
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { runs: page, nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
}

/** Where the runs list's change feed starts watching: the newest row and the runs still running. */
export async function runChangeBaseline(db: Db): Promise<{ maxRowid: number; running: string[] }> {
  const [max] = await db.select({ rowid: sql<number | null>`max(rowid)` }).from(runs);
  const running = await db.select({ id: runs.id }).from(runs).where(eq(runs.status, "running"));
  return { maxRowid: max?.rowid ?? 0, running: running.map((r) => r.id) };
}

/**
 * What the change feed polls: rows inserted after `afterRowid` (SQLite hands out rowids in commit
 * order) and the current status of the `watched` runs (those it last saw running).
 */
export async function runChangesAfter(
  db: Db,
  afterRowid: number,
  watched: readonly string[],
): Promise<{ rowid: number; id: string; status: string }[]> {
  const newer = sql`rowid > ${afterRowid}`;
  return db
    .select({ rowid: sql<number>`rowid`, id: runs.id, status: runs.status })
    .from(runs)
    .where(watched.length > 0 ? or(newer, inArray(runs.id, [...watched])) : newer);
}

/** Ids of runs created or finished at or after `sinceIso`, newest first, at most `limit`. */
export async function runIdsChangedSince(db: Db, sinceIso: string, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: runs.id })
    .from(runs)
    .where(or(gte(runs.createdAt, sinceIso), gte(runs.finishedAt, sinceIso)))
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** Events of a run in `seq` order, optionally only those after `afterSeq` (for live following). */
export async function getRunEvents(
  db: Db,
  runId: string,
  options: { afterSeq?: number; limit?: number } = {},
): Promise<RunEvent[]> {
  const query = db
    .select()
    .from(runEvents)
    .where(
      and(eq(runEvents.runId, runId), options.afterSeq === undefined ? undefined : gt(runEvents.seq, options.afterSeq)),
    )
    .orderBy(asc(runEvents.seq));
  const rows = await (options.limit === undefined ? query : query.limit(options.limit));
  return rows.map(
    (r) =>
      ({
        runId: r.runId,
        seq: r.seq,
        at: r.at,
        type: r.type,
        ...(r.iteration === null ? {} : { iteration: r.iteration }),
        payload: r.payload,
      }) as RunEvent,
  );
}

export async function countRunEvents(db: Db, runId: string): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)` }).from(runEvents).where(eq(runEvents.runId, runId));
  return row?.n ?? 0;
}

/** Runs left `running` by a process that died can never finish: mark them `interrupted`. */
export async function markInterruptedRuns(db: Db): Promise<number> {
  const res = await db.update(runs).set({ status: "interrupted" }).where(eq(runs.status, "running"));
  return res.rowsAffected;
}

/** The engine's run sink: each append validates the event and inserts one row. */
export function createRunSink(db: Db, runId: string): RunSink {
  return {
    async append(event) {
      const parsed = RunEvent.parse(event);
      if (parsed.runId !== runId) throw new Error(`event for run ${parsed.runId} appended to run ${runId}`);
      await db.insert(runEvents).values({
        runId,
        seq: parsed.seq,
        at: parsed.at,
        type: parsed.type,
        iteration: parsed.iteration ?? null,
        payload: parsed.payload,
      });
    },
  };
}
