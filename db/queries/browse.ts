/**
 * Browsing a bank's memory in the inspector (not a run): every scope is visible, labelled, so a
 * curator can see what a run could and could not read. Searching reuses the tier searches.
 */
import type { ScopeValue } from "@/lib/reflect/domain";
import type { Db } from "../client";
import { STORAGE_KEY_SQL } from "./bank-storage";
import {
  FACT_COLUMNS,
  type FactRow,
  factRowOf,
  type ObservationRow,
  type SearchRank,
  searchFacts,
  searchObservations,
} from "./search";

export interface TierCounts {
  facts: number;
  observations: number;
  mentalModels: number;
}

export async function tierCounts(db: Db, bankId: string): Promise<TierCounts> {
  const res = await db.$client.execute({
    sql: `SELECT (SELECT COUNT(*) FROM facts WHERE bank_id = ${STORAGE_KEY_SQL}) AS facts,
                 (SELECT COUNT(*) FROM observations WHERE bank_id = ${STORAGE_KEY_SQL}) AS observations,
                 (SELECT COUNT(*) FROM mental_models WHERE bank_id = ?) AS mental_models`,
    args: [bankId, bankId, bankId],
  });
  const row = res.rows[0];
  return {
    facts: Number(row?.facts ?? 0),
    observations: Number(row?.observations ?? 0),
    mentalModels: Number(row?.mental_models ?? 0),
  };
}

/** Every scope that appears in the bank's memories. */
export async function bankScopes(db: Db, bankId: string): Promise<ScopeValue[]> {
  const res = await db.$client.execute({
    sql: `SELECT scope FROM facts WHERE bank_id = ${STORAGE_KEY_SQL} UNION SELECT scope FROM observations WHERE bank_id = ${STORAGE_KEY_SQL} ORDER BY 1`,
    args: [bankId, bankId],
  });
  return res.rows.map((r) => String(r.scope) as ScopeValue);
}

const parseList = (v: unknown): string[] => JSON.parse(String(v ?? "[]")) as string[];

/** Browsing lists memories in search order; the search's rank and score stay a run's concern. */
const withoutRank = <R extends SearchRank>({ rank: _rank, score: _score, ...row }: R) => row;

/** Facts newest first (by `recordedAt`), or ranked by BM25 when `query` is given. */
/** `AND id IN (?, …)` for a list of ids (one placeholder each); nothing for no list. */
function idFilter(ids: readonly string[] | undefined, table = ""): string {
  return ids?.length ? `AND ${table}id IN (${ids.map(() => "?").join(", ")})` : "";
}

export async function browseFacts(
  db: Db,
  q: { bankId: string; query?: string; limit: number; offset?: number; ids?: readonly string[] },
): Promise<FactRow[]> {
  if (q.query?.trim() && !q.ids?.length) {
    const scopes = await bankScopes(db, q.bankId);
    const found = await searchFacts(db, { bankId: q.bankId, query: q.query, limit: q.limit, tags: [], scopes });
    return found.map(withoutRank);
  }
  const res = await db.$client.execute({
    sql: `SELECT ${FACT_COLUMNS} FROM facts m
          WHERE m.bank_id = ${STORAGE_KEY_SQL} ${idFilter(q.ids, "m.")} ORDER BY m.recorded_at DESC, m.id DESC LIMIT ? OFFSET ?`,
    args: [q.bankId, ...(q.ids ?? []), q.limit, q.offset ?? 0],
  });
  return res.rows.map(factRowOf);
}

/** Observations newest first (by `updatedAt`), or ranked by BM25 when `query` is given. */
export async function browseObservations(
  db: Db,
  q: { bankId: string; query?: string; limit: number; offset?: number; ids?: readonly string[] },
): Promise<ObservationRow[]> {
  if (q.query?.trim() && !q.ids?.length) {
    const scopes = await bankScopes(db, q.bankId);
    const found = await searchObservations(db, { bankId: q.bankId, query: q.query, limit: q.limit, tags: [], scopes });
    return found.map(withoutRank);
  }
  const res = await db.$client.execute({
    sql: `SELECT id, text, tags, scope, source_fact_ids, updated_at FROM observations
          WHERE bank_id = ${STORAGE_KEY_SQL} ${idFilter(q.ids)} ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?`,
    args: [q.bankId, ...(q.ids ?? []), q.limit, q.offset ?? 0],
  });
  return res.rows.map((r) => ({
    id: String(r.id),
    text: String(r.text),
    tags: parseList(r.tags),
    scope: String(r.scope) as ScopeValue,
    sourceFactIds: parseList(r.source_fact_ids),
    updatedAt: String(r.updated_at),
  }));
}
