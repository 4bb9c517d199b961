/**
 * Experiments (docs/experiments.md): one row per experiment with its configuration and the suite questions it
 * ran, and `experiment_runs` linking each question to its ordinary run. Rows are read together
 * with their runs; what passed is evaluated from the runs (lib/experiments), never stored twice.
 */
import { and, desc, eq, inArray, isNotNull } from "drizzle-orm";
import type { ConfigSnapshot, ExperimentStatus } from "@/lib/contracts/experiments";
import type { SuiteQuestion } from "@/lib/contracts/suites";
import type { Db } from "../client";
import { experimentRuns, experiments, processInstances, runs } from "../schema";
import type { RunRecord } from "./runs";

export type ExperimentRecord = typeof experiments.$inferSelect;

export interface CreateExperiment {
  id: string;
  bankId: string;
  suite: string;
  suiteVersion: number;
  questions: SuiteQuestion[];
  config: ConfigSnapshot;
  concurrency: number;
  baselineId: string | null;
  ownerId: string | null;
}

export async function createExperiment(db: Db, input: CreateExperiment): Promise<ExperimentRecord> {
  const [row] = await db
    .insert(experiments)
    .values({ ...input, status: "running", error: null, createdAt: new Date().toISOString(), finishedAt: null })
    .returning();
  if (!row) throw new Error(`experiment ${input.id} was not created`);
  return row;
}

export async function linkExperimentRun(db: Db, experimentId: string, idx: number, runId: string): Promise<void> {
  await db.insert(experimentRuns).values({ experimentId, idx, runId });
}

/** Ends a running experiment; an ended one keeps its status. */
export async function finishExperiment(
  db: Db,
  id: string,
  status: Exclude<ExperimentStatus, "running">,
  error: string | null = null,
): Promise<void> {
  await db
    .update(experiments)
    .set({ status, error, finishedAt: new Date().toISOString() })
    .where(and(eq(experiments.id, id), eq(experiments.status, "running")));
}

/**
 * Ends as `failed` the running experiments whose owning process stopped (no heartbeat within
 * `staleAfterMs`), saying so: the questions it had not started never will be. Live owners' and
 * unowned experiments are left alone. Returns how many were ended.
 */
export async function markAbandonedExperiments(
  db: Db,
  options: { staleAfterMs: number; now?: number },
): Promise<number> {
  const now = options.now ?? Date.now();
  const candidates = await db
    .select({ id: experiments.id, heartbeatAt: processInstances.heartbeatAt })
    .from(experiments)
    .leftJoin(processInstances, eq(processInstances.id, experiments.ownerId))
    .where(and(eq(experiments.status, "running"), isNotNull(experiments.ownerId)));
  let ended = 0;
  for (const c of candidates) {
    if (c.heartbeatAt !== null && now - c.heartbeatAt <= options.staleAfterMs) continue;
    const since = c.heartbeatAt === null ? "" : ` (no heartbeat since ${new Date(c.heartbeatAt).toISOString()})`;
    const res = await db
      .update(experiments)
      .set({
        status: "failed",
        error: `interrupted: the process that ran it stopped${since}; questions it had not started were not run`,
        finishedAt: new Date(now).toISOString(),
      })
      .where(and(eq(experiments.id, c.id), eq(experiments.status, "running")));
    ended += res.rowsAffected;
  }
  return ended;
}

export async function getExperimentRecord(db: Db, id: string): Promise<ExperimentRecord | null> {
  const [row] = await db.select().from(experiments).where(eq(experiments.id, id));
  return row ?? null;
}

/** Only the status (read before each question starts: the row's questions are not parsed again). */
export async function getExperimentStatus(db: Db, id: string): Promise<ExperimentStatus | null> {
  const [row] = await db.select({ status: experiments.status }).from(experiments).where(eq(experiments.id, id));
  return row?.status ?? null;
}

/** The experiment's runs by question index. */
export async function getExperimentRuns(db: Db, id: string): Promise<Map<number, RunRecord>> {
  const links = await db.select().from(experimentRuns).where(eq(experimentRuns.experimentId, id));
  if (links.length === 0) return new Map();
  const rows = await db
    .select()
    .from(runs)
    .where(
      inArray(
        runs.id,
        links.map((l) => l.runId),
      ),
    );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out = new Map<number, RunRecord>();
  for (const l of links) {
    const run = byId.get(l.runId);
    if (run) out.set(l.idx, run);
  }
  return out;
}

/** The experiment and question index a run ran, if any (the run page says how it fared there). */
export async function experimentLinkOfRun(
  db: Db,
  runId: string,
): Promise<{ experimentId: string; idx: number } | null> {
  const [row] = await db
    .select({ experimentId: experimentRuns.experimentId, idx: experimentRuns.idx })
    .from(experimentRuns)
    .where(eq(experimentRuns.runId, runId))
    .limit(1);
  return row ?? null;
}

/** The experiment a run belongs to, if any (the run page links back to it). */
export async function experimentOfRun(db: Db, runId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: experimentRuns.experimentId })
    .from(experimentRuns)
    .where(eq(experimentRuns.runId, runId));
  return row?.id ?? null;
}

export async function listExperimentRecords(
  db: Db,
  filter: { bankId: string; suite?: string; limit?: number },
): Promise<ExperimentRecord[]> {
  const where = filter.suite
    ? and(eq(experiments.bankId, filter.bankId), eq(experiments.suite, filter.suite))
    : eq(experiments.bankId, filter.bankId);
  return db
    .select()
    .from(experiments)
    .where(where)
    .orderBy(desc(experiments.createdAt))
    .limit(filter.limit ?? 50);
}
