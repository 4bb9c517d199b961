/**
 * Run retention (docs/operations.md#run-retention): removes runs a rule selects — older than a
 * duration, or all but each bank's newest N — and their events, except the runs something refers
 * to, then returns the freed pages to the file system.
 *
 * A run is kept, whatever the rule, when it is (see KEEP_REASON_TEXT):
 * - still running;
 * - a run of an experiment (`experiment_runs`): the experiment's rows, compare and gate read it;
 * - a refresh proposal: accepted (it became a mental-model version) or not (the model's page lists
 *   its refresh runs: those recorded in `mental_model_refreshes`, and older ones that ask exactly a
 *   model's source query with the mental-model tier left out, as db/queries/mental-model-reads.ts finds them);
 * - the parent of a re-run (a child's `parent_run_id`): the child's page compares itself with it.
 * Suites hold no run references (a question added from a run copies its inputs), so none keeps a run.
 * The delete statements re-check every reason, so a run that became referenced after it was
 * selected (a new re-run of it, say) is kept.
 */
import type { Client } from "@libsql/client";
import { desc, eq } from "drizzle-orm";
import {
  durationMs,
  KEEP_REASONS,
  type KeepReason,
  type PruneResult,
  type RetentionRule,
  type RunRetentionSetting,
} from "@/lib/contracts/retention";
import type { Db } from "../client";
import { runRetention } from "../schema";

/** Each reason as an SQL condition on the run `r`. */
const REASON_SQL: Record<KeepReason, string> = {
  running: "r.status = 'running'",
  experiment: "r.id IN (SELECT run_id FROM experiment_runs)",
  accepted_proposal: "r.id IN (SELECT run_id FROM mental_model_refreshes WHERE decision = 'accepted')",
  refresh: `(r.id IN (SELECT run_id FROM mental_model_refreshes WHERE decision IS NULL OR decision <> 'accepted')
    OR (r.id NOT IN (SELECT run_id FROM mental_model_refreshes)
      AND EXISTS (SELECT 1 FROM mental_models m WHERE m.bank_id = r.bank_id AND m.source_query = r.question)
      AND r.enabled_tiers IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM json_each(r.enabled_tiers) t WHERE t.value = 'mental_models')))`,
  fork_parent: "r.id IN (SELECT parent_run_id FROM runs WHERE parent_run_id IS NOT NULL)",
};

const KEPT_SQL = `(${KEEP_REASONS.map((k) => REASON_SQL[k]).join(" OR ")})`;

/** Runs deleted per write transaction: each commit is short, so other writers are not held up. */
const DELETE_CHUNK = 200;
const EXAMPLES = 5;

/** The rule's candidates, oldest first: `id` of every run it selects. */
function candidatesSql(
  rule: RetentionRule,
  bankId: string | undefined,
  now: number,
): { sql: string; args: (string | number)[] } {
  const bankWhere = bankId === undefined ? "" : "bank_id = ?";
  if (rule.olderThan !== undefined) {
    const cutoff = new Date(now - durationMs(rule.olderThan)).toISOString();
    return {
      sql: `SELECT id FROM runs WHERE created_at < ? ${bankWhere ? `AND ${bankWhere}` : ""}`,
      args: bankId === undefined ? [cutoff] : [cutoff, bankId],
    };
  }
  return {
    sql: `SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY bank_id ORDER BY created_at DESC, id DESC) AS n
            FROM runs ${bankWhere ? `WHERE ${bankWhere}` : ""}) WHERE n > ?`,
    args: bankId === undefined ? [rule.keep ?? 0] : [bankId, rule.keep ?? 0],
  };
}

async function pragmaNumber(client: Client, pragma: string): Promise<number> {
  const { rows } = await client.execute(`PRAGMA ${pragma}`);
  const first = rows[0];
  return first ? Number(Object.values(first)[0]) : 0;
}

/** The database's size in bytes (page_count × page_size): the file's size once the WAL is checkpointed. */
export async function databaseBytes(db: Db): Promise<number> {
  return (await pragmaNumber(db.$client, "page_count")) * (await pragmaNumber(db.$client, "page_size"));
}

/**
 * Returns free pages to the file system. In incremental auto-vacuum mode (every database created
 * since retention exists) that is `PRAGMA incremental_vacuum`, run to the end (a prepared statement
 * would stop after one page: executeMultiple steps it through); an older database needs one full
 * VACUUM (`full`), which also switches it to that mode. The WAL is then checkpointed so the main
 * file shrinks now rather than at the next automatic checkpoint.
 */
export async function reclaimSpace(db: Db, options: { full: boolean }): Promise<PruneResult["storage"]["vacuum"]> {
  const client = db.$client;
  const mode = await pragmaNumber(client, "auto_vacuum");
  let done: PruneResult["storage"]["vacuum"] = "none";
  if (mode === 2) {
    // In steps of 16 MiB (at 4 KiB pages), each its own short write: other writers get the lock between.
    for (let step = 0; step < 100_000 && (await pragmaNumber(client, "freelist_count")) > 0; step++) {
      await client.executeMultiple("PRAGMA incremental_vacuum(4096);");
    }
    done = "incremental";
  } else if (options.full) {
    await client.executeMultiple("PRAGMA auto_vacuum=INCREMENTAL; VACUUM;");
    done = "full";
  }
  if (done !== "none") {
    // Readers of other processes may hold old frames: then the checkpoint stops early and the file
    // shrinks at a later checkpoint; nothing is lost either way.
    await client.execute("PRAGMA wal_checkpoint(TRUNCATE)").catch(() => undefined);
  }
  return done;
}

export interface PruneOptions {
  rule: RetentionRule;
  bankId?: string;
  dryRun?: boolean;
  /** Rewrite the file with VACUUM when it is not in incremental auto-vacuum mode. */
  vacuum?: boolean;
  now?: number;
}

const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(", ");

export async function pruneRuns(db: Db, options: PruneOptions): Promise<PruneResult> {
  const client = db.$client;
  const now = options.now ?? Date.now();
  const dryRun = options.dryRun === true;
  const bytesBefore = await databaseBytes(db);
  const cand = candidatesSql(options.rule, options.bankId, now);
  const { rows } = await client.execute({
    sql: `WITH cand AS (${cand.sql})
          SELECT r.id, ${KEEP_REASONS.map((k) => `(${REASON_SQL[k]}) AS ${k}`).join(", ")}
          FROM runs r JOIN cand c ON c.id = r.id
          ORDER BY r.created_at, r.id`,
    args: cand.args,
  });
  const reasons = new Map<KeepReason, string[]>();
  const deletable: string[] = [];
  let keptTotal = 0;
  for (const row of rows) {
    const id = String(row.id);
    const why = KEEP_REASONS.filter((k) => Number(row[k]) === 1);
    if (why.length === 0) {
      deletable.push(id);
      continue;
    }
    keptTotal++;
    for (const k of why) {
      const list = reasons.get(k) ?? [];
      list.push(id);
      reasons.set(k, list);
    }
  }

  let deleted = 0;
  let deletedEvents = 0;
  const deletedIds: string[] = [];
  for (let i = 0; i < deletable.length; i += DELETE_CHUNK) {
    const chunk = deletable.slice(i, i + DELETE_CHUNK);
    const inList = `(${placeholders(chunk.length)})`;
    const gone = `SELECT r.id FROM runs r WHERE r.id IN ${inList} AND NOT ${KEPT_SQL}`;
    if (dryRun) {
      const { rows: counted } = await client.execute({
        sql: `SELECT (SELECT count(*) FROM (${gone})) AS runs,
                     (SELECT count(*) FROM run_events WHERE run_id IN (${gone}))
                     + (SELECT coalesce(sum(events), 0) FROM run_event_packs WHERE run_id IN (${gone})) AS events`,
        args: [...chunk, ...chunk, ...chunk],
      });
      deleted += Number(counted[0]?.runs ?? 0);
      deletedEvents += Number(counted[0]?.events ?? 0);
      deletedIds.push(...chunk.slice(0, EXAMPLES - deletedIds.length));
      continue;
    }
    // Events first (a run's events never outlive it, whether or not foreign keys cascade), then
    // the run; one write transaction, each statement re-checking that nothing refers to the run.
    const [ids, packed, events, , , runsGone] = await client.batch(
      [
        { sql: gone, args: chunk },
        {
          sql: `SELECT coalesce(sum(events), 0) AS n FROM run_event_packs WHERE run_id IN (${gone})`,
          args: chunk,
        },
        { sql: `DELETE FROM run_events WHERE run_id IN (${gone})`, args: chunk },
        { sql: `DELETE FROM run_event_packs WHERE run_id IN (${gone})`, args: chunk },
        { sql: `DELETE FROM run_mental_model_reads WHERE run_id IN (${gone})`, args: chunk },
        { sql: `DELETE FROM runs AS r WHERE r.id IN ${inList} AND NOT ${KEPT_SQL}`, args: chunk },
      ],
      "write",
    );
    deletedEvents += (events?.rowsAffected ?? 0) + Number(packed?.rows[0]?.n ?? 0);
    deleted += runsGone?.rowsAffected ?? 0;
    for (const r of ids?.rows ?? []) if (deletedIds.length < EXAMPLES) deletedIds.push(String(r.id));
  }

  let vacuum: PruneResult["storage"]["vacuum"] = "none";
  let note: string | undefined;
  if (!dryRun && deleted > 0) {
    try {
      vacuum = await reclaimSpace(db, { full: options.vacuum === true });
      if (vacuum === "none") {
        note =
          "this database predates incremental auto-vacuum: freed pages are reused by new runs but the file keeps its size until a one-time `runs prune --vacuum` (or vacuum: true)";
      }
    } catch (err) {
      vacuum = "unavailable";
      note = `the freed space could not be returned to the file system: ${(err as Error).message.split("\n")[0]}`;
    }
  }

  return {
    dryRun,
    bank: options.bankId ?? null,
    rule: options.rule.olderThan !== undefined ? { olderThan: options.rule.olderThan } : { keep: options.rule.keep },
    matched: rows.length,
    deleted,
    deletedEvents,
    deletedExamples: deletedIds,
    kept: {
      total: keptTotal,
      reasons: KEEP_REASONS.filter((k) => reasons.has(k)).map((k) => ({
        reason: k,
        count: reasons.get(k)?.length ?? 0,
        examples: (reasons.get(k) ?? []).slice(-EXAMPLES).reverse(),
      })),
    },
    storage: {
      bytesBefore,
      bytesAfter: dryRun ? bytesBefore : await databaseBytes(db),
      vacuum,
      ...(note ? { note } : {}),
    },
  };
}

// ---------- per-bank settings ----------

function toSetting(row: typeof runRetention.$inferSelect): RunRetentionSetting {
  return {
    bankId: row.bankId,
    retention: row.olderThan !== null ? { olderThan: row.olderThan } : row.keep !== null ? { keep: row.keep } : null,
    updatedAt: row.updatedAt,
  };
}

export async function getRunRetention(db: Db, bankId: string): Promise<RunRetentionSetting> {
  const [row] = await db.select().from(runRetention).where(eq(runRetention.bankId, bankId));
  return row ? toSetting(row) : { bankId, retention: null, updatedAt: null };
}

export async function listRunRetention(db: Db): Promise<RunRetentionSetting[]> {
  const rows = await db.select().from(runRetention).orderBy(desc(runRetention.updatedAt));
  return rows.map(toSetting).filter((s) => s.retention !== null);
}

/** Sets the bank's retention (`rule`), or removes it (null). */
export async function setRunRetention(
  db: Db,
  bankId: string,
  rule: RetentionRule | null,
): Promise<RunRetentionSetting> {
  if (rule === null) {
    await db.delete(runRetention).where(eq(runRetention.bankId, bankId));
    return { bankId, retention: null, updatedAt: null };
  }
  const values = {
    olderThan: rule.olderThan ?? null,
    keep: rule.olderThan !== undefined ? null : (rule.keep ?? null),
    updatedAt: new Date().toISOString(),
  };
  await db
    .insert(runRetention)
    .values({ bankId, ...values })
    .onConflictDoUpdate({ target: runRetention.bankId, set: values });
  return getRunRetention(db, bankId);
}
