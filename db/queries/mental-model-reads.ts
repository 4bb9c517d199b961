/**
 * Which runs read a mental model: a run "read" a model when one of its `tool.result` events
 * returned the model's id. Counted from the event log, so deleted models keep their history.
 */
import type { RunRef } from "@/lib/contracts/runs";
import type { RunStatus } from "@/lib/reflect/domain";
import type { Db } from "../client";

/** Distinct runs per mental-model id in a bank (ids never read are absent). */
export async function countMentalModelReads(db: Db, bankId: string): Promise<Map<string, number>> {
  const res = await db.$client.execute({
    sql: `SELECT j.value AS id, COUNT(DISTINCT e.run_id) AS runs
          FROM run_events e
          JOIN runs r ON r.id = e.run_id
          JOIN json_each(e.payload, '$.ids.mental_models') j
          WHERE e.type = 'tool.result' AND r.bank_id = ?
          GROUP BY j.value`,
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
          WHERE r.bank_id = ?1 AND EXISTS (
            SELECT 1 FROM run_events e JOIN json_each(e.payload, '$.ids.mental_models') j
            WHERE e.run_id = r.id AND e.type = 'tool.result' AND j.value = ?2)
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
          JOIN run_events e ON e.run_id = r.id AND e.type = 'run.started'
          LEFT JOIN mental_model_refreshes d ON d.run_id = r.id AND d.bank_id = r.bank_id AND d.model_id = ?
          WHERE r.bank_id = ? AND r.question = ?
            AND NOT EXISTS (SELECT 1 FROM json_each(e.payload, '$.enabledTiers') t WHERE t.value = 'mental_models')
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
 * named it), in the order the run first met them. Reads two event types, not the whole log.
 */
export async function mentalModelVersionsReadBy(db: Db, runId: string): Promise<Map<string, number | null>> {
  const res = await db.$client.execute({
    sql: `SELECT json_extract(m.value, '$.id') AS id, json_extract(m.value, '$.version') AS version
          FROM run_events e JOIN json_each(e.payload, '$.mentalModels') m
          WHERE e.run_id = ?1 AND e.type = 'tool.result'
          UNION ALL
          SELECT json_extract(m.value, '$.id'), json_extract(m.value, '$.version')
          FROM run_events e JOIN json_each(e.payload, '$.models') m
          WHERE e.run_id = ?1 AND e.type = 'freshness.check'`,
    args: [runId],
  });
  const seen = new Map<string, number | null>();
  for (const row of res.rows) {
    const id = String(row.id);
    if (!seen.has(id) || seen.get(id) === null) seen.set(id, row.version === null ? null : Number(row.version));
  }
  return seen;
}
