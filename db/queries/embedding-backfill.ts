/**
 * Fills the embedding of every memory that has none yet (all tiers, one bank or all), in batches,
 * so the first import, a new bank and an upgrade from BM25-only all end in the same state.
 */
import type { InArgs, InStatement } from "@libsql/client";
import type { Db } from "../client";
import { bankKeySql } from "./bank-storage";
import {
  EMBEDDED_TABLES,
  type EmbeddedTable,
  ensureEmbeddingColumns,
  getEmbeddingDim,
  toVectorLiteral,
} from "./embeddings";

/** What the backfill needs from an embedding model (lib/llm's Embedder fits). */
export interface BackfillEmbedder {
  dimensions: number;
  embed(texts: string[]): Promise<number[][]>;
}

export type BackfillCounts = Record<EmbeddedTable, number>;

/** The text a memory is embedded from: what its FTS index covers too. */
const EMBEDDED_TEXT: Record<EmbeddedTable, string> = {
  facts: "text",
  observations: "text",
  mental_models: "name || char(10) || source_query || char(10) || content",
};

export const DEFAULT_BACKFILL_BATCH = 64;

export async function backfillEmbeddings(
  db: Db,
  embedder: BackfillEmbedder,
  options: { bankId?: string; batchSize?: number } = {},
): Promise<BackfillCounts> {
  const batchSize = options.batchSize ?? DEFAULT_BACKFILL_BATCH;
  if ((await getEmbeddingDim(db)) === null) {
    // Columns cannot change size once added: prove the model's vectors fit before adding them.
    await embedder.embed(["dimension check"]);
  }
  await ensureEmbeddingColumns(db, embedder.dimensions);
  const counts: BackfillCounts = { facts: 0, observations: 0, mental_models: 0 };
  for (const table of EMBEDDED_TABLES) {
    // Rows are taken by ascending pk, so each batch starts after the last one even if a row's
    // embedding stays NULL (an empty text is skipped: embedding APIs reject empty input).
    let afterPk = -1;
    for (;;) {
      const bankFilter = options.bankId === undefined ? "" : `AND bank_id = ${bankKeySql(table)}`;
      const res = await db.$client.execute({
        sql: `SELECT pk, bank_id, id, ${EMBEDDED_TEXT[table]} AS body FROM ${table}
              WHERE embedding IS NULL AND pk > ? ${bankFilter} ORDER BY pk LIMIT ?`,
        args: [afterPk, ...(options.bankId === undefined ? [] : [options.bankId]), batchSize] as InArgs,
      });
      if (res.rows.length === 0) break;
      afterPk = Number(res.rows.at(-1)?.pk);
      const rows = res.rows
        .map((r) => ({ bankId: String(r.bank_id), id: String(r.id), text: String(r.body ?? "").trim() }))
        .filter((r) => r.text !== "");
      const vectors = await embedder.embed(rows.map((r) => r.text));
      const updates: InStatement[] = [];
      for (const [i, row] of rows.entries()) {
        const vector = vectors[i];
        if (!vector) throw new Error(`the embedder returned no vector for ${table} ${row.id}`);
        updates.push({
          sql: `UPDATE ${table} SET embedding = vector32(?) WHERE bank_id = ? AND id = ?`,
          args: [await toVectorLiteral(db, vector), row.bankId, row.id],
        });
      }
      // One batch per chunk: a round trip per row is slow on a file and slower against a server.
      if (updates.length > 0) await db.$client.batch(updates, "write");
      counts[table] += rows.length;
    }
  }
  return counts;
}
