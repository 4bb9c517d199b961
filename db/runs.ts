/**
 * Runs and their append-only event log. A run row is written when the run starts (status
 * `running`) and completed by `finishRun`; events arrive through the `RunSink` adapter.
 */
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { and, asc, desc, eq, gt, gte, inArray, isNotNull, isNull, lt, or, type SQL, sql } from "drizzle-orm";
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
import type { Db } from "./client";
import { processInstances, runEvents, runs } from "./schema";

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
/** The columns a run's result fills, for a run of this engine or an imported one. */
export function resultColumns(result: RunResult) {
  return {
    status: result.status,
    answer: result.answer,
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
  const retrieved = await retrievedBy(db, runId);
  const [row] = await db
    .update(runs)
    .set({
      ...resultColumns(result),
      finishedAt,
      durationMs: result.durationMs ?? Math.max(0, Date.parse(finishedAt) - Date.parse(run.createdAt)),
      retrieved,
    })
    .where(and(eq(runs.id, runId), eq(runs.status, "running")))
    .returning();
  if (row) return row;
  const current = await getRun(db, runId);
  if (!current) throw new AppError("not_found", `run ${runId} not found`);
  return current;
}

/**
 * Every memory the run's searches returned to the model, once, at its best rank in any one search
 * (its `tool.result` events list each tier's ids in result order).
 */
async function retrievedBy(db: Db, runId: string): Promise<RetrievedMemory[]> {
  const { rows } = await db.$client.execute({
    // Only the ids: a result's content (up to the cap, per search) never crosses to this thread.
    sql: "SELECT json_extract(payload, '$.ids') AS ids FROM run_events WHERE run_id = ? AND type = 'tool.result' ORDER BY seq",
    args: [runId],
  });
  const best = new Map<string, RetrievedMemory>();
  for (const r of rows) {
    const ids = (r.ids === null ? {} : JSON.parse(String(r.ids))) as Partial<Record<Tier, string[]>>;
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

// ---------- llm.request messages stored as a delta against the run's previous request ----------

/**
 * A model request repeats the whole conversation so far: stored whole, a run's requests were most
 * of its bytes. The sink stores each `llm.request` after a run's first with `messagesFrom: {seq}`
 * (the run's previous request) and, in `messages`, each message that request already sent as its
 * index there (a number; a message is always an object), a tool message repeating a search result
 * of the run as a reference to it (encodeRequest), and every other message whole. Every read
 * here rebuilds the list, so readers (timeline, messages, compare, OTLP, export, re-runs) see the
 * event as the engine emitted it. Requests stored before this, or sharing no message with the
 * previous one, are stored whole.
 */
interface MessagesFrom {
  seq: number;
}
type StoredRequest = { messages: unknown[]; messagesFrom?: MessagesFrom } & Record<string, unknown>;

/** Search results this run's sink has written, by call id: a tool message repeating one is stored as a reference. */
type WrittenResults = Map<string, { seq: number; content: string }>;

/** A tool message stored as a reference to the `tool.result` at `contentOf` (its content is that result's). */
interface ToolMessageRef {
  role: "tool";
  content: "";
  contentOf: number;
}
const isToolRef = (m: unknown): m is ToolMessageRef =>
  typeof m === "object" &&
  m !== null &&
  (m as ToolMessageRef).role === "tool" &&
  typeof (m as ToolMessageRef).contentOf === "number";

/**
 * The stored form of a request given the run's previous one (its seq and messages as JSON): a
 * message the previous request sent is its index there; a tool message whose content is exactly a
 * search result this run stored is `{role, tool_call_id, content: "", contentOf: <its seq>}`.
 */
function encodeRequest(
  payload: StoredRequest,
  /** Each of `payload.messages` as JSON (computed once: the next request's base needs it too). */
  json: string[],
  previous: { seq: number; messages: string[] } | null,
  results: WrittenResults,
): StoredRequest {
  if (!previous) return payload;
  const index = new Map<string, number>();
  previous.messages.forEach((json, i) => {
    if (!index.has(json)) index.set(json, i);
  });
  let shared = 0;
  const messages = payload.messages.map((m, k) => {
    const i = index.get(json[k] as string);
    if (i !== undefined) {
      shared++;
      return i;
    }
    const tool = m as { role?: unknown; tool_call_id?: unknown; content?: unknown };
    const result = typeof tool.tool_call_id === "string" ? results.get(tool.tool_call_id) : undefined;
    if (tool.role === "tool" && result && result.content === tool.content) {
      shared++;
      return { ...tool, content: "", contentOf: result.seq };
    }
    return m;
  });
  if (shared === 0) return payload;
  return { ...payload, messages, messagesFrom: { seq: previous.seq } };
}

/**
 * The two big texts of a run — a request's messages (after the delta above) and a search's result
 * `content` — are stored deflated (base64, as `messagesZ` / `contentZ` beside an empty `messages` /
 * `content`) when that is shorter. Nothing reads them in SQL (the queries on events read ids, tiers
 * and versions), and every read here inflates them first.
 */
const PACK_OVER_CHARS = 400;
const pack = (text: string) => deflateRawSync(Buffer.from(text, "utf8")).toString("base64");
const unpack = (base64: string) => inflateRawSync(Buffer.from(base64, "base64")).toString("utf8");

function packPayload(type: string, payload: unknown): unknown {
  if (type === "llm.request") {
    const request = payload as StoredRequest;
    const json = JSON.stringify(request.messages);
    if (json.length <= PACK_OVER_CHARS) return request;
    const packed = pack(json);
    return packed.length < json.length ? { ...request, messages: [], messagesZ: packed } : request;
  }
  if (type === "tool.result") {
    const result = payload as { content?: unknown };
    if (typeof result.content !== "string" || result.content.length <= PACK_OVER_CHARS) return payload;
    const packed = pack(result.content);
    return packed.length < result.content.length ? { ...result, content: "", contentZ: packed } : payload;
  }
  return payload;
}

/** Inflates, in place, what packPayload deflated (keys keep their order: the emptied key is refilled). */
function unpackRow(row: { type: string; payload: unknown }): void {
  const p = row.payload as Record<string, unknown> | null;
  if (!p || typeof p !== "object") return;
  if (row.type === "llm.request" && typeof p.messagesZ === "string") {
    const { messagesZ, ...rest } = p;
    rest.messages = JSON.parse(unpack(messagesZ));
    row.payload = rest;
  } else if (row.type === "tool.result" && typeof p.contentZ === "string") {
    const { contentZ, ...rest } = p;
    rest.content = unpack(contentZ);
    row.payload = rest;
  }
}

/** Events as stored → as emitted: inflated, and requests rebuilt from their deltas (rows in seq order). */
async function readableEvents(
  db: Db,
  runId: string,
  rows: { seq: number; type: string; payload: unknown }[],
): Promise<void> {
  for (const row of rows) unpackRow(row);
  await expandRequests(db, runId, rows);
}

/** Rebuilds, in place, the messages of the `llm.request` rows stored as deltas (rows in seq order). */
async function expandRequests(
  db: Db,
  runId: string,
  rows: { seq: number; type: string; payload: unknown }[],
): Promise<void> {
  if (!rows.some((r) => r.type === "llm.request" && (r.payload as StoredRequest).messagesFrom)) return;
  const full = new Map<number, unknown[]>();
  const results = new Map<number, string>();
  const noteResult = (seq: number, payload: unknown) => {
    const content = (payload as { content?: unknown }).content;
    if (typeof content === "string") results.set(seq, content);
  };
  for (const r of rows) if (r.type === "tool.result") noteResult(r.seq, r.payload);
  let earlierResultsRead = false;
  /** The run's search results before `seq`, when a request refers to one that is not among the rows read. */
  const readResults = async (stored: StoredRequest, seq: number) => {
    if (earlierResultsRead || !stored.messages.some((m) => isToolRef(m) && !results.has(m.contentOf))) return;
    earlierResultsRead = true;
    const earlier = await db
      .select({ seq: runEvents.seq, payload: runEvents.payload })
      .from(runEvents)
      .where(and(eq(runEvents.runId, runId), eq(runEvents.type, "tool.result"), lt(runEvents.seq, seq)))
      .orderBy(asc(runEvents.seq));
    for (const e of earlier) {
      const unpacked = { type: "tool.result", payload: e.payload };
      unpackRow(unpacked);
      noteResult(e.seq, unpacked.payload);
    }
  };
  const expand = (row: { seq: number; payload: unknown }) => {
    const stored = row.payload as StoredRequest;
    if (!stored.messagesFrom) {
      full.set(row.seq, stored.messages);
      return;
    }
    const { messagesFrom, ...rest } = stored;
    const base = full.get(messagesFrom.seq);
    const messages = stored.messages.map((m) => {
      if (typeof m === "number") return base?.[m];
      if (!isToolRef(m)) return m;
      const content = results.get(m.contentOf);
      if (content === undefined) return undefined;
      const { contentOf: _, ...message }: Record<string, unknown> = { ...m };
      message.content = content;
      return message;
    });
    if (!base || messages.some((m) => m === undefined)) {
      throw new Error(`run ${runId}: llm.request ${row.seq} refers to request ${messagesFrom.seq}, which is missing`);
    }
    row.payload = { ...rest, messages };
    full.set(row.seq, messages);
  };
  for (const row of rows) {
    if (row.type !== "llm.request") continue;
    const from = (row.payload as StoredRequest).messagesFrom;
    if (from && !full.has(from.seq)) {
      // The base is not among the rows read (a read after a seq, or of one event): read the run's
      // earlier requests, each rebuilt from the one before.
      const earlier = await db
        .select({ seq: runEvents.seq, payload: runEvents.payload })
        .from(runEvents)
        .where(and(eq(runEvents.runId, runId), eq(runEvents.type, "llm.request"), lt(runEvents.seq, row.seq)))
        .orderBy(asc(runEvents.seq));
      for (const e of earlier) {
        if (full.has(e.seq)) continue;
        const unpacked = { type: "llm.request", payload: e.payload };
        unpackRow(unpacked);
        await readResults(unpacked.payload as StoredRequest, row.seq);
        expand({ seq: e.seq, payload: unpacked.payload });
      }
    }
    await readResults(row.payload as StoredRequest, row.seq);
    expand(row);
  }
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
  await readableEvents(db, runId, rows);
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

/** The run's last event of one type (its `probe.finished`, say), or null: one row, read newest first. */
export async function getLastRunEvent<T extends RunEvent["type"]>(
  db: Db,
  runId: string,
  type: T,
): Promise<Extract<RunEvent, { type: T }> | null> {
  const [row] = await db
    .select()
    .from(runEvents)
    .where(and(eq(runEvents.runId, runId), eq(runEvents.type, type)))
    .orderBy(desc(runEvents.seq))
    .limit(1);
  if (!row) return null;
  await readableEvents(db, runId, [row]);
  return {
    runId: row.runId,
    seq: row.seq,
    at: row.at,
    type: row.type,
    ...(row.iteration === null ? {} : { iteration: row.iteration }),
    payload: row.payload,
  } as Extract<RunEvent, { type: T }>;
}

export async function countRunEvents(db: Db, runId: string): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)` }).from(runEvents).where(eq(runEvents.runId, runId));
  return row?.n ?? 0;
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
  /** The run's last `llm.request` as written: its seq and each message as JSON (the next one's base). */
  let previousRequest: { seq: number; messages: string[] } | null = null;
  const results: WrittenResults = new Map();

  const stored = (e: RunEvent): unknown => {
    if (e.type === "tool.result") results.set(e.payload.callId, { seq: e.seq, content: e.payload.content });
    if (e.type !== "llm.request") return packPayload(e.type, e.payload);
    const payload = e.payload as unknown as StoredRequest;
    const json = payload.messages.map((m) => JSON.stringify(m));
    const encoded = encodeRequest(payload, json, previousRequest, results);
    previousRequest = { seq: e.seq, messages: json };
    return packPayload(e.type, encoded);
  };

  const write = async (events: RunEvent[]) => {
    if (failure) throw failure;
    const rows = events.map(
      (e) => sql`(${runId}, ${e.seq}, ${e.at}, ${e.type}, ${e.iteration ?? null}, ${JSON.stringify(stored(e))})`,
    );
    try {
      const written = await db.run(sql`
        INSERT INTO ${runEvents} (run_id, seq, at, type, iteration, payload)
        SELECT * FROM (VALUES ${sql.join(rows, sql`, `)})
        WHERE EXISTS (SELECT 1 FROM ${runs} WHERE ${runs.id} = ${runId} AND ${runs.status} = 'running')`);
      if (written.rowsAffected === 0) {
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
