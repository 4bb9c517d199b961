/**
 * Top-10 agreement of the fast search path with an exhaustive ranking (docs/performance.md#search-at-a-million-facts):
 * the exhaustive answer is every memory holding any query word (the OR), filtered by bank and
 * scope, ranked by bm25 then id — what the search would return with no candidate bound and no
 * strictness ladder. Shared by the `million` bench section and the 100k agreement test.
 */
import type { InArgs } from "@libsql/client";
import type { Db } from "@/db/client";
import { buildFtsQuery } from "@/db/fts-query";
import { bm25, ftsTable } from "@/db/search-index";

/** The top `limit` fact ids of the exhaustive OR ranking. */
export async function exhaustiveFactIds(
  db: Db,
  bankId: string,
  query: string,
  scopes: readonly string[],
  limit = 10,
): Promise<string[]> {
  const match = buildFtsQuery(query);
  if (!match) return [];
  const fts = ftsTable("facts", bankId);
  const { rows } = await db.$client.execute({
    sql: `SELECT m.id FROM ${fts} JOIN facts m ON m.pk = ${fts}.rowid
          WHERE ${fts} MATCH ? AND m.bank_id = ? AND m.scope IN (${scopes.map(() => "?").join(", ")})
          ORDER BY ${bm25("facts", fts)}, m.id LIMIT ?`,
    args: [match, bankId, ...scopes, limit] as InArgs,
  });
  return rows.map((r) => String(r.id));
}

/** Of the exhaustive top ids, how many the fast answer's top (as many) holds. */
export function agreement(exhaustive: readonly string[], fast: readonly string[]): { shared: number; of: number } {
  const top = new Set(fast.slice(0, exhaustive.length));
  return { shared: exhaustive.filter((id) => top.has(id)).length, of: exhaustive.length };
}
