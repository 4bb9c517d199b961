/**
 * Runs and their append-only event log. A run row is written when the run starts (status
 * `running`) and completed by `finishRun`; events arrive through the `RunSink` adapter.
 */
import { and, asc, desc, eq, gte, inArray, isNotNull, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import { AppError } from "@/lib/contracts/errors";
import type { RetrievedMemory } from "@/lib/contracts/experiments";
import {
  type Budget,
  type ModelInfo,
  type RunFlag,
  type RunMode,
  type RunStatus,
  type ScopeValue,
  type SkillSnapshot,
  TIERS,
  type Tier,
} from "@/lib/reflect/domain";
import { RunEvent } from "@/lib/reflect/events";
import type { RunSink } from "@/lib/reflect/ports";
import type { ReflectResultInput } from "@/lib/reflect/request";
import type { Db } from "../client";
import { processInstances, runs } from "../schema";
import {
  createDeltaEncoder,
  decodePack,
  deflatePayload,
  type EarlierEvents,
  encodePacks,
  expandDeltas,
  inflateRow,
  noEarlierEvents,
  noteEarlier,
  refersBefore,
  type StoredEvent,
  toRunEvent,
} from "./run-event-codec";

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
  /** The process instance that runs it (see registerInstance). */
  ownerId?: string | null;
  /** An LLM judge's run: the run whose answer it grades. */
  judgeOf?: string | null;
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
      ownerId: input.ownerId ?? null,
      judgeOf: input.judgeOf ?? null,
    })
    .returning();
  if (!row) throw new Error(`run ${input.id} was not created`);
  return row;
}

export type RunResult = ReflectResultInput & { finishedAt?: string; durationMs?: number };

/**
 * Completes a run that is still `running`. A final status is never overwritten: when the run was
 * already finished (or marked interrupted meanwhile), the row stays as it is and is returned.
 */
/**
 * Text a model wrote, storable everywhere: a lone surrogate becomes U+FFFD (as a local file's
 * UTF-8 stored it anyway) instead of a libSQL server refusing the whole statement, which left the
 * run `running` for as long as its process lived. JSON columns need nothing: JSON escapes it.
 */
export const storableText = (text: string): string =>
  text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");

/** The columns a run's result fills, for a run of this engine or an imported one. */
export function resultColumns(result: RunResult) {
  return {
    status: result.status,
    answer: storableText(result.answer),
    citations: result.citations,
    dropped: result.dropped,
    flags: result.flags,
    warnings: result.warnings,
    inputTokens: result.usage.inputTokens,
    outputTokens: result.usage.outputTokens,
    llmCalls: result.llmCalls,
    modelRequests: result.modelRequests ?? null,
    iterations: result.iterations,
    error: result.error,
  };
}

export async function finishRun(db: Db, runId: string, result: RunResult): Promise<RunRecord> {
  const run = await getRun(db, runId);
  if (!run) throw new AppError("not_found", `run ${runId} not found`);
  const finishedAt = new Date(result.finishedAt ?? Date.now()).toISOString();
  const events = await getRunEvents(db, runId);
  // What the sink recorded as it wrote, again from the whole log (events written another way, too).
  const facts = eventFacts(events);
  const [row] = await db
    .update(runs)
    .set({
      ...resultColumns(result),
      finishedAt,
      durationMs: result.durationMs ?? Math.max(0, Date.parse(finishedAt) - Date.parse(run.createdAt)),
      retrieved: retrievedBy(events),
      ...(facts.enabledTiers ? { enabledTiers: facts.enabledTiers as Tier[] } : {}),
    })
    .where(and(eq(runs.id, runId), eq(runs.status, "running")))
    .returning();
  if (row) {
    if (facts.mentalModelIds.length > 0) {
      await db.$client.execute({
        sql: "INSERT OR IGNORE INTO run_mental_model_reads (model_id, run_id) SELECT value, ? FROM json_each(?)",
        args: [runId, JSON.stringify(facts.mentalModelIds)],
      });
    }
    // Its events are final now (the sink writes only while the run is running): pack them.
    // A failure leaves them as rows, which read the same.
    await packRunEvents(db, runId, events).catch((err: unknown) =>
      console.warn(`run ${runId}: its events stay unpacked: ${err instanceof Error ? err.message : String(err)}`),
    );
    return row;
  }
  const current = await getRun(db, runId);
  if (!current) throw new AppError("not_found", `run ${runId} not found`);
  return current;
}

/**
 * Every memory the run's searches returned to the model, once, at its best rank in any one search
 * (its `tool.result` events list each tier's ids in result order).
 */
export function retrievedBy(events: readonly { type: string; payload: unknown }[]): RetrievedMemory[] {
  const best = new Map<string, RetrievedMemory>();
  for (const e of events) {
    if (e.type !== "tool.result") continue;
    const ids = ((e.payload as { ids?: unknown }).ids ?? {}) as Partial<Record<Tier, string[]>>;
    for (const tier of TIERS) {
      (ids[tier] ?? []).forEach((id, i) => {
        const key = `${tier}:${id}`;
        const seen = best.get(key);
        if (!seen || i + 1 < seen.rank) best.set(key, { id, tier, rank: i + 1 });
      });
    }
  }
  return [...best.values()];
}

/**
 * What the mental-model pages and retention read about a run without reading its events
 * (`runs.enabled_tiers`, `run_mental_model_reads`): the tiers its `run.started` enabled, and the
 * mental models its searches returned.
 */
export function eventFacts(events: readonly { type: string; payload: unknown }[]): {
  enabledTiers: unknown[] | null;
  mentalModelIds: string[];
} {
  let enabledTiers: unknown[] | null = null;
  const ids = new Set<string>();
  for (const e of events) {
    const p = e.payload as { enabledTiers?: unknown; ids?: { mental_models?: unknown } } | null;
    if (e.type === "run.started" && enabledTiers === null && Array.isArray(p?.enabledTiers))
      enabledTiers = p.enabledTiers;
    const read = e.type === "tool.result" ? p?.ids?.mental_models : undefined;
    if (Array.isArray(read)) for (const id of read) if (typeof id === "string") ids.add(id);
  }
  return { enabledTiers, mentalModelIds: [...ids] };
}

/** The judge runs of these runs, newest last, by the run they graded. */
export async function getJudgeRuns(db: Db, runIds: readonly string[]): Promise<Map<string, RunRecord>> {
  const out = new Map<string, RunRecord>();
  if (runIds.length === 0) return out;
  for (let i = 0; i < runIds.length; i += 500) {
    const rows = await db
      .select()
      .from(runs)
      .where(inArray(runs.judgeOf, runIds.slice(i, i + 500)))
      .orderBy(asc(runs.createdAt), asc(runs.id));
    for (const r of rows) if (r.judgeOf) out.set(r.judgeOf, r);
  }
  return out;
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
  /** `answer`: runs that answer a question; `judge`: LLM-judge runs (`judge_of` set). */
  kind?: "answer" | "judge";
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
  if (filter.kind) where.push(filter.kind === "judge" ? isNotNull(runs.judgeOf) : isNull(runs.judgeOf));
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

// ---------- a run's events: rows while it runs, packs once it has finished ----------

/**
 * A run's events are stored as `run_events` rows while it runs (each request a delta against the
 * previous one, big texts deflated one payload at a time: run-event-codec.ts) and, once it has
 * finished, as packs (`run_event_packs`) in their place (packRunEvents). Every read here returns
 * the events as the engine emitted them, whichever form they are in (docs/performance.md#stored-bytes-per-run),
 * so the timeline, Messages tab, compare, exports, OTLP and re-runs of any run, old or new, are what
 * they were. Each read is one statement, so packing a run while it is read is never half seen.
 */
interface StoredParts {
  packs: { firstSeq: number; lastSeq: number; format: number; data: Uint8Array }[];
  rows: StoredEvent[];
}

const bytes = (v: unknown): Uint8Array =>
  v instanceof Uint8Array ? v : v instanceof ArrayBuffer ? new Uint8Array(v) : Buffer.from(String(v), "base64");

function storedParts(rows: Record<string, unknown>[]): StoredParts {
  const parts: StoredParts = { packs: [], rows: [] };
  for (const r of rows) {
    if (Number(r.pack) === 1) {
      parts.packs.push({
        firstSeq: Number(r.seq),
        lastSeq: Number(r.at),
        format: Number(r.iteration),
        data: bytes(r.payload),
      });
    } else {
      parts.rows.push({
        seq: Number(r.seq),
        at: Number(r.at),
        type: String(r.type),
        iteration: r.iteration === null || r.iteration === undefined ? null : Number(r.iteration),
        payload: JSON.parse(String(r.payload)),
      });
    }
  }
  // A row a pack already holds (two processes packed the same run at once) is read from the pack.
  const packed = parts.packs.reduce((max, p) => Math.max(max, p.lastSeq), -1);
  parts.rows = parts.rows.filter((r) => r.seq > packed);
  return parts;
}

/** The packs and rows of events with `after < seq < before`, rows at most `limit` (one statement). */
async function readStored(
  db: Db,
  runId: string,
  range: { after?: number; before?: number; limit?: number },
): Promise<StoredParts> {
  const after = range.after ?? -1;
  const before = range.before ?? Number.MAX_SAFE_INTEGER;
  const { rows } = await db.$client.execute({
    sql: `SELECT 1 AS pack, first_seq AS seq, last_seq AS at, NULL AS type, format AS iteration, data AS payload
            FROM run_event_packs WHERE run_id = ?1 AND last_seq > ?2 AND first_seq < ?3
          UNION ALL
          SELECT * FROM (SELECT 0, seq, at, type, iteration, payload FROM run_events
            WHERE run_id = ?1 AND seq > ?2 AND seq < ?3 ORDER BY seq LIMIT ?4)
          ORDER BY 2`,
    args: [runId, after, before, range.limit ?? -1],
  });
  return storedParts(rows as unknown as Record<string, unknown>[]);
}

/**
 * Rows as emitted: inflated, and requests rebuilt from their deltas, from the rows themselves,
 * `known` (the events read before them), or else the run's earlier events, read for that.
 */
async function readableRows(db: Db, runId: string, rows: StoredEvent[], known: EarlierEvents): Promise<RunEvent[]> {
  for (const row of rows) inflateRow(row);
  const first = rows[0];
  if (first && refersBefore(rows, known)) {
    // A delta's base is not among the events read (a read after a seq, or of one event).
    const earlier = noEarlierEvents();
    for (const e of await readEvents(db, runId, { before: first.seq })) noteEarlier(earlier, e);
    expandDeltas(runId, rows, earlier);
  } else {
    expandDeltas(runId, rows, known);
  }
  return rows.map((r) => toRunEvent(runId, r));
}

async function readEvents(
  db: Db,
  runId: string,
  range: { after?: number; before?: number; limit?: number },
): Promise<RunEvent[]> {
  const { packs, rows } = await readStored(db, runId, range);
  const after = range.after ?? -1;
  const before = range.before ?? Number.MAX_SAFE_INTEGER;
  const limit = range.limit ?? Number.POSITIVE_INFINITY;
  const events: RunEvent[] = [];
  const known = noEarlierEvents();
  for (const pack of packs) {
    if (events.length >= limit) break;
    for (const e of await decodePack(runId, pack.format, pack.data)) {
      noteEarlier(known, e);
      if (e.seq > after && e.seq < before) events.push(e);
    }
  }
  if (rows.length > 0 && events.length < limit) events.push(...(await readableRows(db, runId, rows, known)));
  return events.length > limit ? events.slice(0, limit) : events;
}

/** Events of a run in `seq` order, optionally only those after `afterSeq` (for live following). */
export function getRunEvents(
  db: Db,
  runId: string,
  options: { afterSeq?: number; limit?: number } = {},
): Promise<RunEvent[]> {
  return readEvents(db, runId, { after: options.afterSeq, limit: options.limit });
}

/** The run's last event of one type (its `probe.finished`, say), or null: one row, or its packs newest first. */
export async function getLastRunEvent<T extends RunEvent["type"]>(
  db: Db,
  runId: string,
  type: T,
): Promise<Extract<RunEvent, { type: T }> | null> {
  const { rows } = await db.$client.execute({
    sql: `SELECT 1 AS pack, first_seq AS seq, last_seq AS at, NULL AS type, format AS iteration, data AS payload
            FROM run_event_packs WHERE run_id = ?1
          UNION ALL
          SELECT * FROM (SELECT 0, seq, at, type, iteration, payload FROM run_events
            WHERE run_id = ?1 AND type = ?2 ORDER BY seq DESC LIMIT 1)
          ORDER BY 2`,
    args: [runId, type],
  });
  const parts = storedParts(rows as unknown as Record<string, unknown>[]);
  const match = (e: RunEvent): e is Extract<RunEvent, { type: T }> => e.type === type;
  if (parts.rows.length > 0) {
    const [event] = await readableRows(db, runId, parts.rows, noEarlierEvents());
    return event && match(event) ? event : null;
  }
  for (const pack of parts.packs.reverse()) {
    const found = (await decodePack(runId, pack.format, pack.data)).findLast(match);
    if (found) return found;
  }
  return null;
}

export async function countRunEvents(db: Db, runId: string): Promise<number> {
  const { rows } = await db.$client.execute({
    sql: `SELECT (SELECT count(*) FROM run_events WHERE run_id = ?1)
               + (SELECT coalesce(sum(events), 0) FROM run_event_packs WHERE run_id = ?1) AS n`,
    args: [runId],
  });
  return Number(rows[0]?.n ?? 0);
}

/**
 * Stores a finished run's rows as packs (run-event-codec.ts), in one write: the packs in, the rows
 * they hold out. `events` are the run's events after its last pack, as emitted, when the caller
 * has just read them. Only a run that is no longer running is packed (no event can be appended to
 * it any more); a run whose process crashed stays rows, readable as they are, until it is marked
 * interrupted and a later pass packs it. Two processes packing one run at once store it once.
 */
export async function packRunEvents(
  db: Db,
  runId: string,
  events?: readonly RunEvent[],
): Promise<{ packs: number; events: number }> {
  let unpacked = events;
  if (!unpacked) {
    const { rows } = await db.$client.execute({
      sql: "SELECT coalesce(max(last_seq), -1) AS last FROM run_event_packs WHERE run_id = ?",
      args: [runId],
    });
    unpacked = await readEvents(db, runId, { after: Number(rows[0]?.last ?? -1) });
  }
  if (unpacked.length === 0) return { packs: 0, events: 0 };
  const packs = await encodePacks(unpacked);
  const finished = "EXISTS (SELECT 1 FROM runs WHERE id = ? AND status <> 'running')";
  const statements = packs.flatMap((p) => [
    {
      sql: `INSERT OR IGNORE INTO run_event_packs (run_id, first_seq, last_seq, events, format, data)
            SELECT ?, ?, ?, ?, ?, ? WHERE ${finished}`,
      args: [runId, p.firstSeq, p.lastSeq, p.events, p.format, p.data, runId],
    },
    {
      sql: `DELETE FROM run_events WHERE run_id = ? AND seq BETWEEN ? AND ? AND EXISTS
              (SELECT 1 FROM run_event_packs WHERE run_id = ? AND first_seq = ? AND last_seq = ?)`,
      args: [runId, p.firstSeq, p.lastSeq, runId, p.firstSeq, p.lastSeq],
    },
  ]);
  const results = await db.$client.batch(statements, "write");
  const stored = packs.filter((_, i) => (results[2 * i]?.rowsAffected ?? 0) > 0);
  return { packs: stored.length, events: stored.reduce((n, p) => n + p.events, 0) };
}

/**
 * Packs finished runs whose events are still rows — stored before packs existed, left by a process
 * that stopped (marked interrupted), or whose packing at finish failed — at most `limit` per call.
 * A run that cannot be packed is left as it is (its rows read as before) and counted in `failed`;
 * runs in `skip` (those that failed before) are passed over, so `limit` unpackable runs never stall
 * the packing of the runs after them.
 */
export async function packFinishedRuns(
  db: Db,
  limit = 200,
  skip: ReadonlySet<string> = new Set(),
): Promise<{ runs: number; events: number; failed: string[] }> {
  const { rows } = await db.$client.execute({
    sql: `SELECT r.id FROM runs r WHERE r.status <> 'running'
            AND EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = r.id)
            AND r.id NOT IN (SELECT value FROM json_each(?)) ORDER BY r.created_at LIMIT ?`,
    args: [JSON.stringify([...skip]), limit],
  });
  const done = { runs: 0, events: 0, failed: [] as string[] };
  for (const r of rows) {
    const id = String(r.id);
    try {
      const packed = await packRunEvents(db, id);
      if (packed.packs > 0) done.runs++;
      done.events += packed.events;
    } catch (err) {
      if (/CLIENT_CLOSED|closed/.test(`${err} ${(err as { cause?: unknown }).cause}`)) throw err;
      done.failed.push(id);
    }
  }
  return done;
}

// ---------- owners: which process runs what, and whether it is still alive ----------

export interface InstanceInfo {
  id: string;
  kind: string;
  pid: number;
  hostname: string;
  /** Which process holds the pid (lib/server/run-owner.ts `processIdentity`); null where unknown. */
  processStart?: string | null;
}

export async function registerInstance(db: Db, info: InstanceInfo, now = Date.now()): Promise<void> {
  await db.insert(processInstances).values({ ...info, startedAt: new Date(now).toISOString(), heartbeatAt: now });
}

/** An owner's row, or null when it was forgotten (silent for a day) or never registered. */
export async function getInstance(db: Db, id: string) {
  const [row] = await db.select().from(processInstances).where(eq(processInstances.id, id));
  return row ?? null;
}

export async function heartbeatInstance(db: Db, id: string, now = Date.now()): Promise<void> {
  await db.update(processInstances).set({ heartbeatAt: now }).where(eq(processInstances.id, id));
}

/** Instances silent since `before` (ms) own no running run once the sweep has run: forget them. */
export async function forgetInstances(db: Db, before: number): Promise<void> {
  await db.delete(processInstances).where(lt(processInstances.heartbeatAt, before));
}

/**
 * Marks `interrupted` the runs whose owner has stopped: no owner recorded (made before owners
 * existed), or an owner whose heartbeat is older than `staleAfterMs`.
 * Each gets `finishedAt` (the owner's last sign of life when known) and the reason in `error`.
 * The update is conditional on `running`, so a run that finished meanwhile keeps its status.
 */
export async function markInterruptedRuns(
  db: Db,
  options: {
    staleAfterMs: number;
    now?: number;
    /** Also runs with no owner (made before owners existed): a server's sweep on start, not its heartbeat. */
    includeUnowned?: boolean;
    /**
     * What the caller knows of an owner beyond its heartbeat (a process on this host: is its pid
     * alive?). "dead": its runs are interrupted at once, however fresh its last heartbeat; "alive":
     * they are left alone while the heartbeat is younger than `aliveGraceMs` (a heartbeat blocked
     * behind a long write lock is not death); "unknown": the heartbeat decides.
     */
    ownerLiveness?: (owner: {
      pid: number;
      hostname: string;
      processStart: string | null;
    }) => "alive" | "alive-verified" | "dead" | "unknown";
    aliveGraceMs?: number;
    /**
     * Since when the caller has seen the write lock free (its own heartbeats went through without
     * waiting). A heartbeat older than this is no sign of death: it may have waited behind the same
     * lock (a long import). Heartbeat ages count from the later of the two.
     */
    lockFreeSince?: number;
  },
): Promise<number> {
  const now = options.now ?? Date.now();
  const candidates = await db
    .select({
      id: runs.id,
      createdAt: runs.createdAt,
      ownerId: runs.ownerId,
      heartbeatAt: processInstances.heartbeatAt,
      kind: processInstances.kind,
      pid: processInstances.pid,
      hostname: processInstances.hostname,
      processStart: processInstances.processStart,
    })
    .from(runs)
    .leftJoin(processInstances, eq(processInstances.id, runs.ownerId))
    .where(
      options.includeUnowned === false
        ? and(eq(runs.status, "running"), sql`${runs.ownerId} IS NOT NULL`)
        : eq(runs.status, "running"),
    );
  let marked = 0;
  for (const c of candidates) {
    const verdict =
      c.pid !== null && c.hostname !== null
        ? (options.ownerLiveness?.({ pid: c.pid, hostname: c.hostname, processStart: c.processStart }) ?? "unknown")
        : "unknown";
    const age =
      c.heartbeatAt === null
        ? Number.POSITIVE_INFINITY
        : now - Math.max(c.heartbeatAt, options.lockFreeSince ?? Number.NEGATIVE_INFINITY);
    const alive =
      verdict === "dead"
        ? false
        : verdict === "alive-verified"
          ? true
          : verdict === "alive"
            ? age <= Math.max(options.staleAfterMs, options.aliveGraceMs ?? options.staleAfterMs)
            : age <= options.staleAfterMs;
    if (alive) continue;
    const lastSeen = c.heartbeatAt ?? now;
    const finishedAt = new Date(Math.max(lastSeen, Date.parse(c.createdAt))).toISOString();
    const owner = c.kind ? `${c.kind} process ${c.pid} on ${c.hostname}` : "process";
    const message =
      c.ownerId === null || c.kind === null
        ? "interrupted: the process that ran it stopped before it finished (it predates run owners)"
        : `interrupted: the ${owner} that ran it stopped (no heartbeat since ${new Date(lastSeen).toISOString()})`;
    const res = await db
      .update(runs)
      .set({
        status: "interrupted",
        finishedAt,
        durationMs: Math.max(0, Date.parse(finishedAt) - Date.parse(c.createdAt)),
        error: { message, phase: "interrupted" },
      })
      .where(and(eq(runs.id, c.id), eq(runs.status, "running")));
    marked += res.rowsAffected;
  }
  return marked;
}

/** Events a sink holds at most before it writes them without waiting for a flush point. */
const BUFFERED_EVENTS_MAX = 500;
/** A follower (the SSE stream, another process) sees an event at most this long after it is emitted. */
export const SINK_FLUSH_AFTER_MS = 50;

/**
 * The engine's run sink. `append` validates the event and buffers it; `flush` writes every buffered
 * event in one statement, in `seq` order, so an iteration's events cost one write instead of one
 * each (each write is a round-trip to the SQL writer thread and a commit).
 *
 * When events become durable (the flush points):
 * - before each live model call and before the engine returns its result (the engine calls
 *   `flush`, lib/reflect/run-log.ts): nothing is sent to a model, and no result is shown, until
 *   every event that led to it is stored;
 * - at most SINK_FLUSH_AFTER_MS after an event is appended (a timer), so a live view sees a slow
 *   search's `tool.call` while the search runs, not when the next model call starts;
 * - when BUFFERED_EVENTS_MAX events are waiting.
 * A process that crashes between flush points loses only events that nothing was shown or sent
 * on: the log stays gap-free and ordered, it just ends earlier, and the run is later marked
 * interrupted like any run whose process stopped.
 *
 * A write happens only while the run is still `running` here: once another process has ended it
 * (it judged this owner gone and marked it interrupted), the write is refused and the sink fails
 * from then on, so the owner stops at its next flush point at the latest, before calling the model
 * again, and never writes into a run the store says is over. Writes are serialized: a failed write
 * fails every later append and flush, so a lost batch can never leave a gap in `seq`.
 */
export function createRunSink(db: Db, runId: string): RunSink & { flush(): Promise<void> } {
  let buffered: RunEvent[] = [];
  let writing: Promise<void> = Promise.resolve();
  let failure: Error | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let lastSeq: number | null = null;
  /** Each event's stored form: requests as deltas against the run's previous one (run-event-codec.ts). */
  const encode = createDeltaEncoder();
  const running = "EXISTS (SELECT 1 FROM runs WHERE id = ? AND status = 'running')";

  const write = async (events: RunEvent[]) => {
    if (failure) throw failure;
    const insert = {
      sql: `INSERT INTO run_events (run_id, seq, at, type, iteration, payload)
            SELECT * FROM (VALUES ${events.map(() => "(?, ?, ?, ?, ?, ?)").join(", ")}) WHERE ${running}`,
      args: [
        ...events.flatMap((e) => [
          runId,
          e.seq,
          e.at,
          e.type,
          e.iteration ?? null,
          JSON.stringify(deflatePayload(e.type, encode(e))),
        ]),
        runId,
      ],
    };
    const facts = eventFacts(events);
    const statements = [insert];
    if (facts.enabledTiers) {
      statements.push({
        sql: `UPDATE runs SET enabled_tiers = ? WHERE id = ? AND status = 'running'`,
        args: [JSON.stringify(facts.enabledTiers), runId],
      });
    }
    if (facts.mentalModelIds.length > 0) {
      statements.push({
        sql: `INSERT OR IGNORE INTO run_mental_model_reads (model_id, run_id)
              SELECT value, ? FROM json_each(?) WHERE ${running}`,
        args: [runId, JSON.stringify(facts.mentalModelIds), runId],
      });
    }
    try {
      const [written] =
        statements.length === 1 ? [await db.$client.execute(insert)] : await db.$client.batch(statements, "write");
      if (!written || written.rowsAffected === 0) {
        throw new Error(`run ${runId} was ended by another process; this process stopped it here`);
      }
    } catch (err) {
      failure = err instanceof Error ? err : new Error(String(err));
      throw failure;
    }
  };

  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = null;
    const events = buffered;
    buffered = [];
    if (events.length > 0) writing = writing.then(() => write(events));
    else if (failure) return Promise.reject(failure);
    return writing;
  };

  return {
    async append(event) {
      if (failure) throw failure;
      const parsed = RunEvent.parse(event);
      if (parsed.runId !== runId) throw new Error(`event for run ${parsed.runId} appended to run ${runId}`);
      if (lastSeq !== null && parsed.seq !== lastSeq + 1) {
        throw new Error(
          `event seq ${parsed.seq} appended to run ${runId} after seq ${lastSeq}: the log would have a gap`,
        );
      }
      lastSeq = parsed.seq;
      buffered.push(parsed);
      if (buffered.length >= BUFFERED_EVENTS_MAX) return flush();
      // A timed flush's failure is kept in `failure` and reported by the next append or flush.
      timer ??= setTimeout(() => void flush().catch(() => {}), SINK_FLUSH_AFTER_MS);
    },
    flush,
  };
}
