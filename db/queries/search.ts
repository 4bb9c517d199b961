/**
 * Retrieval inside a tier (docs/engine.md#memory-model): BM25 over the bank's own FTS5 index always (text and tags; see
 * search-index.ts); when a query embedding is given and the embedding columns exist, exact cosine
 * distance too, fused by reciprocal-rank fusion. Bank, scope and all-of tag filters are part of
 * each SQL WHERE clause, so they apply before the LIMIT.
 */
import type { InArgs, InValue } from "@libsql/client";
import { isoMatches, type WrittenDate } from "@/lib/reflect/dates";
import type { ScopeValue } from "@/lib/reflect/domain";
import { fuseRanked } from "@/lib/reflect/fusion";
import type { ObservationFreshness } from "@/lib/reflect/ports";
import { shapeQuery } from "@/lib/reflect/query-shape";
import { searchTerms } from "@/lib/reflect/terms";
import type { Db } from "../client";
import { bankKeySql, STORAGE_KEY_SQL } from "./bank-storage";
import {
  bankConversationProfile,
  CONVERSATION_TUNING,
  type ConversationTuning,
  neighbourRows,
  rerankConversation,
} from "./conversation-rank";
import { getEmbeddingDim, toVectorLiteral } from "./embeddings";
import { ALL_BUT_ONE_AT_MOST, ftsMatchesOf } from "./fts-query";
import {
  bm25,
  ensureBankIndex,
  ensureFreshIndex,
  ftsTable,
  isMissingIndexError,
  isReadOnlyError,
  PENDING_TABLE,
  type SearchedTable,
} from "./search-index";

export interface TierSearch {
  bankId: string;
  query: string;
  limit: number;
  /** All-of: a memory must carry every tag. */
  tags: string[];
  /** Memory scopes to read (see scope.ts); ignored for mental models. */
  scopes: ScopeValue[];
  /** Query embedding for hybrid search; ignored while no embedding columns exist. */
  embedding?: number[];
}

interface Filter {
  where: string;
  args: InValue[];
}

/**
 * Bank + scope + all-of tags on alias `m`. The scoped tiers (facts, observations) are stored under
 * the bank's storage key, mental models under its id (bank-storage.ts).
 */
function memoryFilter(q: Pick<TierSearch, "bankId" | "tags" | "scopes">, withScope: boolean): Filter {
  const parts = [`m.bank_id = ${withScope ? STORAGE_KEY_SQL : "?"}`];
  const args: InValue[] = [q.bankId];
  if (withScope) {
    parts.push(`m.scope IN (${q.scopes.map(() => "?").join(", ")})`);
    args.push(...q.scopes);
  }
  if (q.tags.length > 0) {
    parts.push(tagsAllOf("m.tags"));
    args.push(JSON.stringify(q.tags));
  }
  return { where: parts.join(" AND "), args };
}

/** True when the JSON array column carries every tag of the JSON array bound as the next argument. */
export function tagsAllOf(column: string): string {
  return `NOT EXISTS (SELECT 1 FROM json_each(?) qt WHERE qt.value NOT IN (SELECT value FROM json_each(${column})))`;
}

type Row = Record<string, unknown>;

async function rankedRows(db: Db, table: SearchedTable, columns: string, q: TierSearch): Promise<Row[]> {
  if (q.limit <= 0) return [];
  const filter = memoryFilter(q, table !== "mental_models");
  const lexical = await lexicalRows(db, table, columns, q, searchTerms(q.query), filter);
  if (!q.embedding || (await getEmbeddingDim(db)) === null) {
    // FTS5's bm25 is lower-is-better; hits carry it negated so every search score reads higher-is-better.
    return lexical.map((r, i) => ({ ...r, search_rank: i + 1, search_score: -Number(r.fts_score) }));
  }
  const vector = await toVectorLiteral(db, q.embedding);
  // Exact distance over the filtered rows rather than vector_top_k: an ANN top-k is global, so the
  // bank/scope/tag filters would only apply after its limit and could starve matching memories.
  const semantic = (
    await db.$client.execute({
      sql: `SELECT ${columns} FROM ${table} m
            WHERE m.embedding IS NOT NULL AND ${filter.where}
            ORDER BY vector_distance_cos(m.embedding, vector32(?)), m.id LIMIT ?`,
      args: [...filter.args, vector, q.limit] as InArgs,
    })
  ).rows;
  return fuseRanked([lexical, semantic], (r) => String(r.id))
    .slice(0, q.limit)
    .map(({ item, score }, i) => ({ ...item, search_rank: i + 1, search_score: score }));
}

/**
 * The OR query is ranked as it is while it matches at most this many memories; beyond, the
 * stricter matches go first (counting up to here costs no bm25, a small fraction of ranking them).
 */
export const OR_RANKED_AT_MOST = 1_000;

/**
 * BM25 over the bank's own index (search-index.ts). Every memory with any query word is ranked
 * (OR) while there are at most `OR_RANKED_AT_MOST`; past that, strictest match first: when at least
 * `limit` memories that pass the filters contain every word, they are the answer, ranked by bm25
 * (which scores them exactly as the OR query would); else the same with every word but one (three
 * words or more); else the OR query. bm25 costs a lookup per matched row, and on a large bank the
 * stricter matches score a small fraction of the OR's rows (bench: the OR's top 10 kept at 99 %).
 *
 * A word the bank holds nowhere adds nothing to any memory's bm25, so it is dropped before the
 * ladder goes past the AND (docs/performance.md#search-at-a-million-facts): "open action items on
 * budget" in a bank without "open" ranks the memories holding the other three words — exactly the
 * OR's order for them — instead of every memory holding three of the four.
 *
 * The first statement does what every search needs (`firstRows`): it checks the bank's index is up
 * to date, counts the OR's matches and ranks the first match expression that count chooses, so a
 * search answered by it costs one statement; the stricter levels' fallbacks run only when needed.
 */
async function lexicalRows(
  db: Db,
  table: SearchedTable,
  columns: string,
  q: TierSearch,
  terms: readonly string[],
  filter: Filter,
  pruned = false,
  repaired = 0,
  flushed = false,
): Promise<Row[]> {
  const matches = ftsMatchesOf(terms);
  if (!matches) return [];
  const fts = ftsTable(table, q.bankId);
  try {
    const first = await firstRows(db, q.bankId, table, fts, columns, q.limit, matches, filter);
    if (first.pending && !flushed) {
      // Something was written without its index update (another process, raw SQL): apply it, search
      // again — once: a read-only file keeps its pending rows, and its index is read as it is.
      await ensureFreshIndex(db, q.bankId);
      return lexicalRows(db, table, columns, q, terms, filter, pruned, repaired, true);
    }
    // Mental models are a few curated rows per bank: only the OR query, ranked directly.
    const tried = table !== "mental_models" && first.orMatches > OR_RANKED_AT_MOST ? matches : [matches.at(-1)!];
    if (tried.length > 1 && !pruned && first.rows.length < q.limit) {
      const held = await heldTerms(db, fts, terms);
      if (held.length < terms.length) return lexicalRows(db, table, columns, q, held, filter, true, repaired, flushed);
    }
    let every: Row[] = [];
    for (const [i, match] of tried.entries()) {
      const rows =
        i === 0
          ? first.exact
            ? first.rows
            : await filteredFtsRows(db, table, fts, columns, q.limit, match, filter)
          : i === 1 && tried.length === 3
            ? terms.length <= ALL_BUT_ONE_AT_MOST
              ? await allButOneRows(db, table, fts, columns, q.limit, terms, every, filter)
              : []
            : await candidateRows(db, table, fts, columns, q.limit, match, filter);
      if (i === 0) every = rows;
      if (rows.length >= q.limit || i === tried.length - 1) return rows.map(withoutCandidateColumns);
    }
    return [];
  } catch (error) {
    if (!isMissingIndexError(error, fts) || repaired >= 2) throw error;
    // No index for the tier: a bank that does not exist, or a tier without rows, finds nothing
    // (search-index.ts makes a tier's index with its first row). Rows still pending get it from
    // the flush; rows without one (a bank inserted with raw SQL) from a rebuild.
    const { rows } = await db.$client.execute({
      sql: `SELECT EXISTS (SELECT 1 FROM banks WHERE id = ?) AS bank, EXISTS (SELECT 1 FROM ${table} WHERE bank_id = ${bankKeySql(table)}) AS held`,
      args: [q.bankId, q.bankId],
    });
    if (Number(rows[0]?.bank ?? 0) === 0 || Number(rows[0]?.held ?? 0) === 0) return [];
    if (repaired === 0) await ensureFreshIndex(db, q.bankId);
    else
      try {
        await ensureBankIndex(db, q.bankId);
      } catch (err) {
        // A read-only file cannot build it: its index, as it is, has none of the tier's rows.
        if (isReadOnlyError(err)) return [];
        throw err;
      }
    return lexicalRows(db, table, columns, q, terms, filter, pruned, repaired + 1, flushed);
  }
}

/**
 * The "every word but one" level, ranked as the OR would rank it: each memory holding exactly
 * n − 1 of the words is scored by the AND of those words as by the OR (bm25 sums per word with
 * the same IDFs, and the missing word adds nothing), so each AND's top rows are merged with
 * `every` (the fewer than `limit` memories holding all the words, already scored as by the OR).
 * Each AND scores only its own matches, where the one expression OR-ing them repeated every word
 * n − 1 times in bm25 and scored their union.
 */
async function allButOneRows(
  db: Db,
  table: SearchedTable,
  fts: string,
  columns: string,
  limit: number,
  terms: readonly string[],
  every: Row[],
  filter: Filter,
): Promise<Row[]> {
  const byId = new Map<string, Row>();
  for (const [skip] of terms.entries()) {
    const and = terms
      .filter((_, i) => i !== skip)
      .map((t) => `"${t}"`)
      .join(" AND ");
    // A memory with every word ranks in each AND below its OR score: ask for room for all of them.
    for (const r of await candidateRows(db, table, fts, columns, limit + every.length, and, filter))
      byId.set(String(r.id), r);
  }
  for (const r of every) byId.set(String(r.id), r);
  return [...byId.values()]
    .sort((a, b) => Number(a.fts_score) - Number(b.fts_score) || (String(a.id) < String(b.id) ? -1 : 1))
    .slice(0, limit);
}

/**
 * Words up to which the every-word-but-one level runs (one AND per word); a longer query goes from
 * the AND to the OR, so a pasted paragraph costs two rankings, not one per word (fts-query.ts
 * writes that level's expression only up to it).
 */
export { ALL_BUT_ONE_AT_MOST };

/** The terms that at least one memory of the index holds (one statement; each check stops at its first match). */
async function heldTerms(db: Db, fts: string, terms: readonly string[]): Promise<string[]> {
  const { rows } = await db.$client.execute({
    sql: `SELECT ${terms.map((_, i) => `EXISTS (SELECT 1 FROM ${fts} WHERE ${fts} MATCH ?) AS h${i}`).join(", ")}`,
    args: terms.map((t) => `"${t}"`),
  });
  return terms.filter((_, i) => Number(rows[0]?.[`h${i}`] ?? 0) !== 0);
}

const CANDIDATE_COLUMNS = ["fts_candidates", "fts_pending", "fts_matches"];

function withoutCandidateColumns(r: Row): Row {
  if (!CANDIDATE_COLUMNS.some((c) => c in r)) return r;
  const out: Row = {};
  for (const [k, v] of Object.entries(r)) if (!CANDIDATE_COLUMNS.includes(k)) out[k] = v;
  return out;
}

/** Every FTS match joined to its row and filtered, then ranked: exact at any size (`match`: the MATCH's right side). */
function filteredSql(table: SearchedTable, fts: string, columns: string, filter: Filter, match = "?"): string {
  return `SELECT ${columns}, ${bm25(table, fts)} AS fts_score
          FROM ${fts} JOIN ${table} m ON m.pk = ${fts}.rowid
          WHERE ${fts} MATCH ${match} AND ${filter.where}
          ORDER BY fts_score, m.id LIMIT ?`;
}

/** Candidates taken from the bare FTS5 ranking before the filters; see `candidateSql`. */
const FTS_CANDIDATES_PER_RESULT = 25;
const MIN_FTS_CANDIDATES = 100;

const candidatesFor = (limit: number) => Math.max(MIN_FTS_CANDIDATES, limit * FTS_CANDIDATES_PER_RESULT);

/**
 * The bare FTS5 ranking (every match scored once, no row read) cut after its `n`-th best score —
 * every match tied with that score included, so a tie never hides a row — then the candidates
 * joined to their rows, filtered and ranked by bm25 then id. Each row carries the number of
 * matches, which `isExactAnswer` reads. Args: the match, `n - 1`, the filter's, the limit.
 */
function candidateSql(table: SearchedTable, fts: string, columns: string, filter: Filter, match = "?"): string {
  // CROSS JOINs keep the cut and the candidates as the outer loops: one row lookup per candidate.
  return `WITH ranked AS MATERIALIZED (SELECT rowid AS pk, ${bm25(table, fts)} AS score FROM ${fts} WHERE ${fts} MATCH ${match}),
               cut AS (SELECT COALESCE((SELECT score FROM ranked ORDER BY score LIMIT 1 OFFSET ?), 1e308) AS score,
                              (SELECT COUNT(*) FROM ranked) AS matches)
          SELECT ${columns}, c.score AS fts_score, cut.matches AS fts_candidates
          FROM cut CROSS JOIN ranked c CROSS JOIN ${table} m ON m.pk = c.pk
          WHERE c.score <= cut.score AND ${filter.where}
          ORDER BY c.score, m.id LIMIT ?`;
}

/**
 * Whether a `candidateSql` answer is the exact filtered top-`limit`: the candidates were every
 * match, or `limit` filtered rows were found among them (a row outside scores worse than the cut,
 * so worse than every candidate: it can neither beat nor tie them).
 */
function isExactAnswer(rows: Row[], limit: number, n: number): boolean {
  const last = rows.at(-1);
  return last !== undefined && (rows.length >= limit || Number(last.fts_candidates) <= n);
}

interface FirstRows {
  /** The bank has index changes still to apply: nothing else here counts. */
  pending: boolean;
  /** The OR query's matches, counted up to `OR_RANKED_AT_MOST + 1` (0 when not counted: see `firstRows`). */
  orMatches: number;
  /** The answer of the first match expression the count chooses (see `lexicalRows`), from its candidates. */
  rows: Row[];
  /** `rows` is that expression's exact answer (else its full filtered ranking must run: `filteredFtsRows`). */
  exact: boolean;
}

/**
 * One statement: whether the bank's index has changes still to apply (search-index.ts), the OR's
 * match count, and the filtered answer of the first expression that count chooses — the OR while
 * the count is at most `OR_RANKED_AT_MOST`, else the AND — ranked over the bare FTS5 ranking's
 * top candidates (`candidateSql`: on a large bank, joining every match to its row to filter costs
 * as much again as ranking it). The MATCH's right side is chosen inside the statement, so a search
 * answered at this level costs one statement; the flag is read in the same snapshot as the rows,
 * so rows of a stale index are never used. Mental models and one-word queries have one
 * expression: nothing to count.
 */
async function firstRows(
  db: Db,
  bankId: string,
  table: SearchedTable,
  fts: string,
  columns: string,
  limit: number,
  matches: string[],
  filter: Filter,
): Promise<FirstRows> {
  const any = matches.at(-1)!;
  const counted = table !== "mental_models" && matches.length > 1;
  const count = counted ? `(SELECT COUNT(*) FROM (SELECT 1 FROM ${fts} WHERE ${fts} MATCH ? LIMIT ?))` : "0";
  const match = counted ? `(CASE WHEN (SELECT n FROM s) > ${OR_RANKED_AT_MOST} THEN ? ELSE ? END)` : "?";
  const n = candidatesFor(limit);
  const { rows } = await db.$client.execute({
    sql: `WITH s AS (SELECT EXISTS (SELECT 1 FROM ${PENDING_TABLE} WHERE bank_id IN (?, ${STORAGE_KEY_SQL})) AS pending, ${count} AS n)
          SELECT s.pending AS fts_pending, s.n AS fts_matches, r.*
          FROM s LEFT JOIN (${candidateSql(table, fts, columns, filter, match)}) r ON 1
          ORDER BY r.fts_score, r.id`,
    args: [
      bankId,
      bankId,
      ...(counted ? [any, OR_RANKED_AT_MOST + 1, matches[0]!, any] : [any]),
      n - 1,
      ...filter.args,
      limit,
    ] as InArgs,
  });
  const orMatches = Number(rows[0]?.fts_matches ?? 0);
  // The LEFT JOIN gives the flag and count a row when nothing matched.
  const found = rows.filter((r) => r.id !== null && r.id !== undefined);
  return {
    pending: Number(rows[0]?.fts_pending ?? 0) !== 0,
    orMatches,
    rows: found,
    // Counted and nothing matches any word: the empty answer is exact.
    exact: isExactAnswer(found, limit, n) || (counted && orMatches === 0),
  };
}

/**
 * BM25 top-`limit` of the filtered rows, ordered by bm25 then id. Joining every FTS match to its
 * row to filter costs ~2× the bare FTS5 ranking on large banks, so the filters first run on the
 * bare ranking's top candidates (`candidateSql`); when that answer is not provably exact
 * (`isExactAnswer`), the full filtered query runs.
 */
async function candidateRows(
  db: Db,
  table: SearchedTable,
  fts: string,
  columns: string,
  limit: number,
  match: string,
  filter: Filter,
): Promise<Row[]> {
  const n = candidatesFor(limit);
  const { rows } = await db.$client.execute({
    sql: candidateSql(table, fts, columns, filter),
    args: [match, n - 1, ...filter.args, limit] as InArgs,
  });
  if (isExactAnswer(rows, limit, n)) return rows;
  return filteredFtsRows(db, table, fts, columns, limit, match, filter);
}

/** Every FTS match joined to its row and filtered, then ranked: exact at any size. */
async function filteredFtsRows(
  db: Db,
  table: SearchedTable,
  fts: string,
  columns: string,
  limit: number,
  match: string,
  filter: Filter,
): Promise<Row[]> {
  const { rows } = await db.$client.execute({
    sql: filteredSql(table, fts, columns, filter),
    args: [match, ...filter.args, limit] as InArgs,
  });
  return rows;
}

/** Where a search placed a hit: 1-based rank and its score (higher is better; see `rankedRows`). */
export interface SearchRank {
  rank: number;
  score: number;
}

const rankOf = (r: Row): SearchRank => ({ rank: Number(r.search_rank), score: Number(r.search_score) });
const parseTags = (v: unknown): string[] => JSON.parse(String(v)) as string[];
const str = (v: unknown): string => String(v);
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export interface FactRow {
  id: string;
  text: string;
  kind: "world" | "experience";
  tags: string[];
  scope: ScopeValue;
  occurredAt: string | null;
  recordedAt: string;
  updatedAt: string;
  speaker: string | null;
  sessionId: string | null;
  position: number | null;
}

/** The columns a `FactRow` is read from (alias `m`). */
export const FACT_COLUMNS =
  "m.id, m.text, m.kind, m.tags, m.scope, m.occurred_at, m.recorded_at, m.updated_at, m.speaker, m.session_id, m.position";

export function factRowOf(r: Row): FactRow {
  return {
    id: str(r.id),
    text: str(r.text),
    kind: r.kind === "experience" ? "experience" : "world",
    tags: parseTags(r.tags),
    scope: str(r.scope) as ScopeValue,
    occurredAt: strOrNull(r.occurred_at),
    recordedAt: str(r.recorded_at),
    updatedAt: str(r.updated_at),
    speaker: strOrNull(r.speaker),
    sessionId: strOrNull(r.session_id),
    position: r.position === null || r.position === undefined ? null : Number(r.position),
  };
}

/**
 * Raw facts for a query. A bank of conversations (speakers, sessions) or a query that states a
 * date is reranked over its BM25 candidates (conversation-rank.ts); anything else is BM25 as is.
 */
export async function searchFacts(
  db: Db,
  q: TierSearch,
  tuning: ConversationTuning = CONVERSATION_TUNING,
): Promise<(FactRow & SearchRank)[]> {
  if (q.limit <= 0) return [];
  const profile = await bankConversationProfile(db, q.bankId);
  // Without a speaker preference, the query's names are searched as words like any other.
  const shape = shapeQuery(q.query, tuning.speaker === 1 ? [] : profile.speakers, { dates: tuning.date !== 1 });
  const reranked = profile.sessions || profile.speakers.length > 0 || shape.dates.length > 0 || shape.months.length > 0;
  if (!reranked) {
    const rows = await rankedRows(db, "facts", FACT_COLUMNS, q);
    return rows.map((r) => ({ ...factRowOf(r), ...rankOf(r) }));
  }
  const limit = Math.max(q.limit, tuning.candidates);
  const rows = await rankedRows(db, "facts", FACT_COLUMNS, { ...q, query: shape.lexical, limit });
  const candidates = rows.map((r) => ({ ...factRowOf(r), score: Number(r.search_score) }));
  // A query that states a date and no word any memory holds ("1 January 2024", "what happened on
  // 3 March 2024?") is about that day: its memories are the candidates, below any word match.
  if (candidates.length === 0 && shape.dates.length > 0) {
    candidates.push(...(await factsOnDates(db, q, shape.dates, limit)).map((f) => ({ ...f, score: DATE_ONLY_SCORE })));
  }
  const neighbours = profile.sessions
    ? (await neighbourRows(db, candidates, FACT_COLUMNS, memoryFilter(q, true))).map(factRowOf)
    : [];
  const conversation = profile.sessions || profile.speakers.length > 0;
  const sourced = conversation
    ? await observationSources(db, { ...q, query: shape.lexical }, tuning)
    : new Map<string, number>();
  const present = new Set([...candidates, ...neighbours].map((f) => f.id));
  const missing = [...sourced.keys()].filter((id) => !present.has(id));
  const sources = missing.length > 0 ? (await factsById(db, q, missing)).map(factRowOf) : [];
  return rerankConversation(shape, candidates, [...neighbours, ...sources], tuning, sourced)
    .slice(0, q.limit)
    .map((f, i) => ({ ...f, rank: i + 1 }));
}

/**
 * The facts behind the observations that best match the query, each with the weight of the best
 * observation it backs (1 for the top one, 1/2 for the next, …). An observation is written in the
 * words people summarise with ("hobbies", "financial status") where the turns it comes from say
 * "camping" or "a promotion": its sources are what the query means.
 */
async function observationSources(db: Db, q: TierSearch, t: ConversationTuning): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (t.observation <= 0 || t.observations <= 0) return out;
  let rows: Row[] = [];
  try {
    rows = await rankedRows(db, "observations", "m.id, m.source_fact_ids", { ...q, limit: t.observations });
  } catch {
    return out; // nothing searchable: the facts' own search says so
  }
  for (const r of rows) {
    const weight = 1 / Number(r.search_rank);
    for (const id of parseTags(r.source_fact_ids)) out.set(id, Math.max(out.get(id) ?? 0, weight));
  }
  return out;
}

/** The score of a memory found by its date alone: above nothing, below any word match. */
const DATE_ONLY_SCORE = 1e-6;

/** Facts that happened on one of the dates (UTC, as `isoMatches` reads them), in the search's bank, scopes and tags. */
async function factsOnDates(db: Db, q: TierSearch, dates: readonly WrittenDate[], limit: number): Promise<FactRow[]> {
  const filter = memoryFilter(q, true);
  const years = [...new Set(dates.map((d) => String(d.year).padStart(4, "0")))];
  // A stored time with an offset can fall on the next or previous UTC year: read a year either side, then check.
  const { rows } = await db.$client.execute({
    sql: `SELECT ${FACT_COLUMNS} FROM facts m
          WHERE ${filter.where} AND m.occurred_at IS NOT NULL
            AND CAST(substr(m.occurred_at, 1, 4) AS INTEGER) BETWEEN ? AND ?
          ORDER BY m.occurred_at, m.session_id, m.position, m.id`,
    args: [...filter.args, Math.min(...years.map(Number)) - 1, Math.max(...years.map(Number)) + 1] as InArgs,
  });
  return rows
    .map(factRowOf)
    .filter((f) => dates.some((d) => isoMatches(f.occurredAt!, d)))
    .slice(0, limit);
}

/** Facts by id, read in the search's bank, scopes and tags. */
async function factsById(db: Db, q: TierSearch, ids: readonly string[]): Promise<Row[]> {
  const filter = memoryFilter(q, true);
  const { rows } = await db.$client.execute({
    sql: `SELECT ${FACT_COLUMNS} FROM facts m WHERE m.id IN (SELECT value FROM json_each(?)) AND ${filter.where}`,
    args: [JSON.stringify(ids), ...filter.args] as InArgs,
  });
  return rows as unknown as Row[];
}

/**
 * The turns right before and after each given fact in its session, read in the same scopes (a
 * neighbour the scope cannot read is left out). Facts without a session have none.
 */
export async function factContext(
  db: Db,
  q: Pick<TierSearch, "bankId" | "scopes">,
  hits: readonly Pick<FactRow, "id" | "sessionId" | "position">[],
): Promise<Map<string, { before: FactRow | null; after: FactRow | null }>> {
  const wanted = hits.flatMap((h) =>
    h.sessionId !== null && h.position !== null
      ? [
          [h.sessionId, h.position - 1],
          [h.sessionId, h.position + 1],
        ]
      : [],
  );
  const out = new Map<string, { before: FactRow | null; after: FactRow | null }>();
  if (wanted.length === 0) return out;
  const filter = memoryFilter({ ...q, tags: [] }, true);
  const { rows } = await db.$client.execute({
    sql: `SELECT ${FACT_COLUMNS} FROM json_each(?) j
          CROSS JOIN facts m INDEXED BY facts_bank_session_idx
            ON m.session_id = json_extract(j.value, '$[0]') AND m.position = json_extract(j.value, '$[1]')
          WHERE ${filter.where}`,
    args: [JSON.stringify(wanted), ...filter.args] as InArgs,
  });
  const at = new Map(rows.map((r) => factRowOf(r)).map((f) => [`${f.sessionId}\u0000${f.position}`, f]));
  for (const h of hits) {
    if (h.sessionId === null || h.position === null) continue;
    out.set(h.id, {
      before: at.get(`${h.sessionId}\u0000${h.position - 1}`) ?? null,
      after: at.get(`${h.sessionId}\u0000${h.position + 1}`) ?? null,
    });
  }
  return out;
}

export interface ObservationRow {
  id: string;
  text: string;
  tags: string[];
  scope: ScopeValue;
  sourceFactIds: string[];
  updatedAt: string;
}

export async function searchObservations(db: Db, q: TierSearch): Promise<(ObservationRow & SearchRank)[]> {
  const rows = await rankedRows(
    db,
    "observations",
    "m.id, m.text, m.tags, m.scope, m.source_fact_ids, m.updated_at",
    q,
  );
  return rows.map((r) => ({
    id: str(r.id),
    text: str(r.text),
    tags: parseTags(r.tags),
    scope: str(r.scope) as ScopeValue,
    sourceFactIds: parseTags(r.source_fact_ids),
    updatedAt: str(r.updated_at),
    ...rankOf(r),
  }));
}

export interface RankedMentalModel extends SearchRank {
  id: string;
  /** Rank-derived relevance in (0, 1]: 1 for the best hit, 1/2 for the next, … */
  relevance: number;
}

/** Mental models are bank-wide: `scopes` is ignored, tags still filter (all-of). */
export async function searchMentalModelIds(db: Db, q: TierSearch): Promise<RankedMentalModel[]> {
  const rows = await rankedRows(db, "mental_models", "m.id", q);
  return rows.map((r, i) => ({ id: str(r.id), relevance: 1 / (i + 1), ...rankOf(r) }));
}

/** The same search with each model's name and content (no staleness: see the memory port's `probeSearch`). */
export async function searchMentalModelTexts(
  db: Db,
  q: TierSearch,
): Promise<({ id: string; name: string; content: string } & SearchRank)[]> {
  const rows = await rankedRows(db, "mental_models", "m.id, m.name, m.content", q);
  return rows.map((r) => ({ id: str(r.id), name: str(r.name), content: str(r.content), ...rankOf(r) }));
}

/**
 * `searchMentalModelTexts` for several queries in one statement (the missed-evidence probe searches
 * the question and each model query: docs/performance.md#the-probe-at-100k). Mental models are ranked by
 * the OR of their words over the bare FTS5 ranking's candidates (`candidateSql`), so each query is
 * one arm of a UNION ALL, with its own LIMIT. A query whose arm is not provably its exact answer
 * (`isExactAnswer`), a bank with index changes to apply, a missing index or a query embedding: that
 * query goes through `searchMentalModelTexts` as before. Entries: the hits, or the reason that
 * query searched nothing (a query of only common words).
 */
export async function searchMentalModelTextsMany(
  db: Db,
  q: Omit<TierSearch, "query">,
  queries: readonly string[],
): Promise<({ hits: ({ id: string; name: string; content: string } & SearchRank)[] } | { error: unknown })[]> {
  const one = async (query: string) => {
    try {
      return { hits: await searchMentalModelTexts(db, { ...q, query }) };
    } catch (error) {
      return { error };
    }
  };
  const matches = queries.map((query) => ftsMatchesOf(searchTerms(query))?.at(-1) ?? null);
  const batched = matches.flatMap((m, i) => (m === null ? [] : [i]));
  if (q.limit <= 0 || q.embedding || batched.length < 2) return Promise.all(queries.map(one));
  const fts = ftsTable("mental_models", q.bankId);
  const filter = memoryFilter(q, false);
  const columns = "m.id, m.name, m.content";
  const n = candidatesFor(q.limit);
  let rows: Row[];
  try {
    rows = (
      await db.$client.execute({
        sql: `WITH s AS (SELECT EXISTS (SELECT 1 FROM ${PENDING_TABLE} WHERE bank_id IN (?, ${STORAGE_KEY_SQL})) AS pending)
              SELECT s.pending AS fts_pending, r.* FROM s LEFT JOIN (${batched
                .map((i) => `SELECT ${i} AS fts_query, * FROM (${candidateSql("mental_models", fts, columns, filter)})`)
                .join(" UNION ALL ")}) r ON 1
              ORDER BY r.fts_query, r.fts_score, r.id`,
        args: [q.bankId, q.bankId, ...batched.flatMap((i) => [matches[i]!, n - 1, ...filter.args, q.limit])] as InArgs,
      })
    ).rows;
  } catch (error) {
    if (!isMissingIndexError(error, fts)) throw error;
    // No index: a bank without mental models has none (search-index.ts), so each query that
    // searches finds nothing; models waiting for their first index get it from the first search.
    const { rows: held } = await db.$client.execute({
      sql: "SELECT EXISTS (SELECT 1 FROM mental_models WHERE bank_id = ?) AS held",
      args: [q.bankId],
    });
    if (Number(held[0]?.held ?? 1) !== 0) return Promise.all(queries.map(one));
    return Promise.all(queries.map((query, i) => (matches[i] === null ? one(query) : { hits: [] })));
  }
  if (Number(rows[0]?.fts_pending ?? 0) !== 0) return Promise.all(queries.map(one));
  return Promise.all(
    queries.map(async (query, i) => {
      const found = rows.filter((r) => r.id !== null && r.id !== undefined && Number(r.fts_query) === i);
      if (matches[i] === null || !isExactAnswer(found, q.limit, n)) return one(query);
      return {
        hits: found.map((r, rank) => ({
          id: str(r.id),
          name: str(r.name),
          content: str(r.content),
          rank: rank + 1,
          score: -Number(r.fts_score),
        })),
      };
    }),
  );
}

export interface ObservationFreshnessResult {
  pending: number;
  freshness: ObservationFreshness;
  isStale: boolean;
}

export function freshnessOf(pending: number): ObservationFreshness {
  if (pending === 0) return "up_to_date";
  return pending < 10 ? "slightly_stale" : "stale";
}

/**
 * Pending facts are counted up to here: "stale" starts at 10, and counting a million-fact bank
 * without observations read every row (2.4 s; docs/performance.md#search-at-a-million-facts).
 */
export const PENDING_COUNTED_AT_MOST = 1_000;

/**
 * `pending` = facts in scope recorded after the newest observation in scope (all facts when there
 * is none), counted up to `PENDING_COUNTED_AT_MOST`.
 */
export async function observationFreshness(
  db: Db,
  q: Pick<TierSearch, "bankId" | "tags" | "scopes">,
): Promise<ObservationFreshnessResult> {
  const filter = memoryFilter(q, true);
  const res = await db.$client.execute({
    sql: `SELECT COUNT(*) AS pending FROM (SELECT 1 FROM facts m WHERE ${filter.where} AND m.recorded_at >
            COALESCE((SELECT MAX(m.updated_at) FROM observations m WHERE ${filter.where}), '') LIMIT ?)`,
    args: [...filter.args, ...filter.args, PENDING_COUNTED_AT_MOST],
  });
  const pending = Number(res.rows[0]?.pending ?? 0);
  return { pending, freshness: freshnessOf(pending), isStale: pending > 0 };
}

/** Memories of a tier counted up to here (a run only asks whether any is in scope; a full count read a 1M-fact bank row by row). */
export const MEMORIES_COUNTED_AT_MOST = 10_000;

/** Facts + observations readable in the given scopes, each counted up to `MEMORIES_COUNTED_AT_MOST`. */
export async function countMemories(db: Db, q: { bankId: string; scopes: ScopeValue[] }): Promise<number> {
  const filter = memoryFilter({ ...q, tags: [] }, true);
  const res = await db.$client.execute({
    sql: `SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM facts m WHERE ${filter.where} LIMIT ?)) +
                 (SELECT COUNT(*) FROM (SELECT 1 FROM observations m WHERE ${filter.where} LIMIT ?)) AS n`,
    args: [...filter.args, MEMORIES_COUNTED_AT_MOST, ...filter.args, MEMORIES_COUNTED_AT_MOST],
  });
  return Number(res.rows[0]?.n ?? 0);
}
