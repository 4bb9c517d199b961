/**
 * Embedding columns for the three tiers. The dimension depends on the embedding model, so the
 * `embedding F32_BLOB(dim)` columns and their libSQL vector indexes are added at runtime, once;
 * the dimension is recorded in `meta` and every vector written or queried is checked against it.
 */

import { TIER_TABLES } from "@/lib/reflect/domain";
import type { Db } from "../client";
import { bankKeySql } from "./bank-storage";

/** Every tier's table has an embedding column (lib/reflect/domain.ts TIER_REGISTRY `table`). */
export const EMBEDDED_TABLES = [...TIER_TABLES].reverse() as ["facts", "observations", "mental_models"];
export type EmbeddedTable = (typeof EMBEDDED_TABLES)[number];

const DIM_KEY = "embedding_dim";

export class EmbeddingDimensionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EmbeddingDimensionError";
  }
}

export async function getEmbeddingDim(db: Db): Promise<number | null> {
  const res = await db.$client.execute({ sql: "SELECT value FROM meta WHERE key = ?", args: [DIM_KEY] });
  const value = res.rows[0]?.value;
  return value === undefined || value === null ? null : Number(value);
}

/** Adds the columns and indexes (idempotent for the same `dim`); a different `dim` later is an error. */
export async function ensureEmbeddingColumns(db: Db, dim: number): Promise<void> {
  if (!Number.isInteger(dim) || dim < 1 || dim > 65_536) {
    throw new EmbeddingDimensionError(`embedding dimension must be an integer in 1..65536, got ${dim}`);
  }
  const existing = await getEmbeddingDim(db);
  if (existing === dim) return;
  if (existing !== null) {
    throw new EmbeddingDimensionError(
      `embedding columns already exist with dimension ${existing}; cannot switch to ${dim} (re-embed into a fresh database)`,
    );
  }
  await db.$client.batch(
    [
      ...EMBEDDED_TABLES.flatMap((t) => [
        `ALTER TABLE ${t} ADD COLUMN embedding F32_BLOB(${dim})`,
        `CREATE INDEX ${t}_embedding_idx ON ${t}(libsql_vector_idx(embedding, 'metric=cosine'))`,
      ]),
      { sql: "INSERT INTO meta (key, value) VALUES (?, ?)", args: [DIM_KEY, String(dim)] },
    ],
    "write",
  );
}

/** Validates a vector against the configured dimension and returns its `vector32()` literal. */
export async function toVectorLiteral(db: Db, vector: readonly number[]): Promise<string> {
  const dim = await getEmbeddingDim(db);
  if (dim === null) throw new EmbeddingDimensionError("no embedding columns: call ensureEmbeddingColumns first");
  if (vector.length !== dim) {
    throw new EmbeddingDimensionError(`embedding has ${vector.length} numbers; this database expects ${dim}`);
  }
  if (!vector.every(Number.isFinite)) throw new EmbeddingDimensionError("embedding contains a non-finite number");
  return JSON.stringify(vector);
}

/** Stores (or clears, with null) the embedding of one memory of a bank. */
export async function setEmbedding(
  db: Db,
  table: EmbeddedTable,
  key: { bankId: string; id: string },
  vector: readonly number[] | null,
): Promise<void> {
  const literal = vector === null ? null : await toVectorLiteral(db, vector);
  await db.$client.execute({
    sql: `UPDATE ${table} SET embedding = ${literal === null ? "NULL" : "vector32(?)"} WHERE bank_id = ${bankKeySql(table)} AND id = ?`,
    args: literal === null ? [key.bankId, key.id] : [literal, key.bankId, key.id],
  });
}
