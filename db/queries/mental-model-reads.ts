/**
 * Which runs read a mental model: a run "read" a model when one of its `tool.result` events
 * returned the model's id. Counted from what the event log recorded (`run_mental_model_reads`,
 * written with the events), so deleted models keep their history.
 */
import type { RunRef } from "@/lib/contracts/runs";
import type { RunStatus } from "@/lib/reflect/domain";
import type { Db } from "../client";
import { getRunEvents } from "./runs";

/** Distinct runs per mental-model id in a bank (ids never read are absent). */
export async function countMentalModelReads(db: Db, bankId: string): Promise<Map<string, number>> {
  const res = await db.$client.execute({
    sql: `SELECT m.model_id AS id, COUNT(*) AS runs
          FROM run_mental_model_reads m
          JOIN runs r ON r.id = m.run_id
          WHERE r.bank_id = ?
          GROUP BY m.model_id`,
    args: [bankId],
  });
  return new Map(res.rows.map((row) => [String(row.id), Number(row.runs)]));
}

/**
 * The newest runs that read one mental model. A run of an experiment that applied an unsaved draft
 * of this model read the draft's text, not a saved version: its label says so.
 */
export async function listRunsThatRead(
  db: Db,
  bankId: string,
  modelId: string,
  limit = 20,
): Promise<(RunRef & { outcomeLabel?: string })[]> {
  const res = await db.$client.execute({
    sql: `SELECT r.id, r.question, r.status, r.created_at,
                 (SELECT json_extract(d.value, '$.baseVersion') FROM json_each(r.skill_snapshot, '$.mentalModelDrafts') d
                  WHERE json_extract(d.value, '$.id') = ?2 LIMIT 1) AS draft_base
          FROM runs r
          WHERE r.bank_id = ?1 AND r.id IN (SELECT run_id FROM run_mental_model_reads WHERE model_id = ?2)
          ORDER BY r.created_at DESC, r.id DESC LIMIT ?3`,
    args: [bankId, modelId, limit],
  });
  return res.rows.map((row) => {
    const ref = toRunRef(row);
    return row.draft_base === null || row.draft_base === undefined
      ? ref
      : {
          ...ref,
          outcomeLabel: `${ref.status.replace("_", " ")} · read an unsaved draft (based on v${row.draft_base})`,
        };
  });
}

/** A refresh run with its answer and what was decided about its proposal (null fields: nothing recorded). */
export interface RefreshRunRow extends RunRef {
  answer: string | null;
  /** Null when no proposal of this model was recorded for the run (runs made before decisions were). */
  baseVersion: number | null;
  decision: "accepted" | "discarded" | null;
  acceptedVersion: number | null;
}

/**
 * Refresh runs of a model: runs asking exactly its source query with the mental-model tier left
 * out (a refresh never reads its own tier), newest first, each with the decision recorded on its
 * proposal for this model (mental_model_refreshes). A run recorded as another model's refresh (two
 * models may share a source query) is that model's, not this one's.
 */
export async function listRefreshRuns(
  db: Db,
  bankId: string,
  modelId: string,
  sourceQuery: string,
  limit = 10,
): Promise<RefreshRunRow[]> {
  const res = await db.$client.execute({
    sql: `SELECT r.id, r.question, r.status, r.created_at, r.answer,
                 d.base_version, d.decision, d.accepted_version
          FROM runs r
          LEFT JOIN mental_model_refreshes d ON d.run_id = r.id AND d.bank_id = r.bank_id AND d.model_id = ?
          WHERE r.bank_id = ? AND r.question = ? AND r.enabled_tiers IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM json_each(r.enabled_tiers) t WHERE t.value = 'mental_models')
            AND NOT EXISTS (SELECT 1 FROM mental_model_refreshes o WHERE o.run_id = r.id AND o.model_id <> ?)
          ORDER BY r.created_at DESC, r.id DESC LIMIT ?`,
    args: [modelId, bankId, sourceQuery, modelId, limit],
  });
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return res.rows.map((row) => ({
    ...toRunRef(row),
    answer: row.answer === null ? null : String(row.answer),
    baseVersion: num(row.base_version),
    decision: row.decision === "accepted" || row.decision === "discarded" ? row.decision : null,
    acceptedVersion: num(row.accepted_version),
  }));
}

function toRunRef(row: Record<string, unknown>): RunRef {
  return {
    id: String(row.id),
    question: String(row.question),
    // The column only ever holds a RunStatus (db/schema.ts); raw SQL just does not know it.
    status: String(row.status) as RunStatus,
    createdAt: String(row.created_at),
  };
}

/**
 * The mental models one run read, with the version it saw (null when only a freshness check
 * named it): first those its searches returned, then those only a freshness check named.
 */
export async function mentalModelVersionsReadBy(db: Db, runId: string): Promise<Map<string, number | null>> {
  const events = await getRunEvents(db, runId);
  const named: { id: string; version: number | null }[] = [];
  for (const e of events) if (e.type === "tool.result") named.push(...(e.payload.mentalModels ?? []));
  for (const e of events) if (e.type === "freshness.check") named.push(...e.payload.models);
  const seen = new Map<string, number | null>();
  for (const { id, version } of named) {
    if (!seen.has(id) || seen.get(id) === null) seen.set(id, version);
  }
  return seen;
}
