/**
 * Imported runs (docs/tracing.md#receiving-traces): a trace's spans are kept, and the run (its row
 * and its event log) is rebuilt from every span of the trace received so far, in one write
 * transaction, so batches of one trace arriving in any order, twice, or at once from two processes
 * end as one run with every span once.
 */
import { sql } from "drizzle-orm";
import type { Tier } from "@/lib/reflect/domain";
import { type ImportedRun, type ImportedSpan, importedRunId } from "@/lib/timeline/otlp-import";
import type { Db } from "../client";
import { runs } from "../schema";
import { encodePacks } from "./run-event-codec";
import { eventFacts, resultColumns, retrievedBy, storableText } from "./runs";

/**
 * Spans one imported run keeps; spans of a trace past this are rejected. Each batch rebuilds the
 * run from all its spans, so a trace's total work grows with (spans × batches): this keeps it bounded.
 */
export const MAX_TRACE_SPANS = 20_000;
/** Rows per INSERT statement (SQLite's bound-parameter limit is far above 6 × this). */
const CHUNK = 500;

export interface StoredTrace {
  runId: string;
  /** Spans of this batch stored (new or resent). */
  accepted: number;
  /** Spans of this batch refused because the trace already holds MAX_TRACE_SPANS. */
  rejected: number;
  created: boolean;
}

/**
 * Adds `spans` (all of one trace) to the trace's imported run and rebuilds it with `build`.
 * A run id that names a run this app ran itself is never touched (imported ids are `otlp_<trace>`).
 */
export async function storeImportedTrace(
  db: Db,
  traceId: string,
  spans: readonly ImportedSpan[],
  build: (all: ImportedSpan[]) => ImportedRun,
  limit = MAX_TRACE_SPANS,
): Promise<StoredTrace> {
  const runId = importedRunId(traceId);
  const tx = await db.$client.transaction("write");
  try {
    const existing = await tx.execute({ sql: "SELECT span FROM otlp_spans WHERE run_id = ?", args: [runId] });
    const row = await tx.execute({ sql: "SELECT flags FROM runs WHERE id = ?", args: [runId] });
    const present = row.rows[0];
    if (present && !String(present.flags ?? "").includes('"imported"')) {
      throw new Error(`run ${runId} exists and is not an imported run`);
    }
    const byId = new Map<string, ImportedSpan>();
    for (const r of existing.rows) {
      const s = JSON.parse(String(r.span)) as ImportedSpan;
      byId.set(s.spanId, s);
    }
    let accepted = 0;
    let rejected = 0;
    const added: ImportedSpan[] = [];
    for (const s of spans) {
      if (byId.has(s.spanId)) {
        // A resent span (an exporter's retry) replaces the stored one.
        byId.set(s.spanId, s);
        added.push(s);
        accepted++;
      } else if (byId.size < limit) {
        byId.set(s.spanId, s);
        added.push(s);
        accepted++;
      } else rejected++;
    }
    if (accepted === 0) {
      await tx.rollback();
      return { runId, accepted, rejected, created: false };
    }
    const run = build([...byId.values()]);
    const result = run.result;
    const facts = eventFacts(run.events);
    const values = {
      id: runId,
      bankId: run.bankId,
      question: run.question,
      skillId: run.skill.id,
      skillName: run.skill.name,
      skillVersion: run.skill.version,
      skillSnapshot: run.skill,
      budget: run.budget,
      mode: run.mode,
      scope: run.scope,
      modelKind: "imported",
      modelName: run.modelName,
      ...resultColumns(result),
      parentRunId: null,
      forkedAtIteration: null,
      createdAt: run.startedAt,
      finishedAt: run.finishedAt,
      durationMs: run.durationMs,
      ownerId: null,
      retrieved: retrievedBy(run.events),
      enabledTiers: facts.enabledTiers as Tier[] | null,
    } satisfies typeof runs.$inferInsert;
    // Text from the trace (a span's question, model name) is stored as a run's own model-written
    // text is: a lone surrogate becomes U+FFFD, or a libSQL server refuses the whole statement.
    for (const key of Object.keys(values) as (keyof typeof values)[])
      if (typeof values[key] === "string")
        (values as Record<string, unknown>)[key] = storableText(values[key] as string);
    const { id: _id, ...updates } = values;
    const upsert = db.insert(runs).values(values).onConflictDoUpdate({ target: runs.id, set: updates }).toSQL();
    // The run row first: the spans and events reference it.
    const statements: { sql: string; args: (string | number | null | Uint8Array)[] }[] = [
      { sql: upsert.sql, args: upsert.params as (string | number | null)[] },
    ];
    for (let i = 0; i < added.length; i += CHUNK) {
      const part = added.slice(i, i + CHUNK);
      statements.push({
        sql: `INSERT OR REPLACE INTO otlp_spans (run_id, span_id, span) VALUES ${part.map(() => "(?, ?, ?)").join(", ")}`,
        args: part.flatMap((s) => [runId, s.spanId, JSON.stringify(s)]),
      });
    }

    // The run is finished: its events are stored packed (db/queries/run-event-codec.ts), as a
    // finished run of this app's own is.
    for (const table of ["run_events", "run_event_packs", "run_mental_model_reads"]) {
      statements.push({ sql: `DELETE FROM ${table} WHERE run_id = ?`, args: [runId] });
    }
    for (const p of await encodePacks(run.events)) {
      statements.push({
        sql: "INSERT INTO run_event_packs (run_id, first_seq, last_seq, events, format, data) VALUES (?, ?, ?, ?, ?, ?)",
        args: [runId, p.firstSeq, p.lastSeq, p.events, p.format, p.data],
      });
    }
    if (facts.mentalModelIds.length > 0) {
      statements.push({
        sql: "INSERT INTO run_mental_model_reads (model_id, run_id) SELECT value, ? FROM json_each(?)",
        args: [runId, JSON.stringify(facts.mentalModelIds)],
      });
    }
    await tx.batch(statements);
    await tx.commit();
    return { runId, accepted, rejected, created: !present };
  } catch (err) {
    if (!tx.closed) await tx.rollback();
    throw err;
  } finally {
    tx.close();
  }
}

/** Whether a run was imported from a trace (it then has no engine configuration to run again). */
export async function isImportedRun(db: Db, runId: string): Promise<boolean> {
  const rows = await db.all<{ n: number }>(
    sql`SELECT count(*) AS n FROM ${runs} WHERE ${runs.id} = ${runId} AND ${runs.modelKind} = 'imported'`,
  );
  return (rows[0]?.n ?? 0) > 0;
}
