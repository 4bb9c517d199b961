/**
 * Embedding backfill as a service: the CLI's `embed` and an import's follow-up fill the vectors a
 * bank's memories lack (db/queries/embedding-backfill.ts does the batches).
 */
import type { Db } from "@/db/client";
import { type BackfillCounts, backfillEmbeddings } from "@/db/queries/embedding-backfill";
import type { Embedder } from "@/lib/llm/embeddings";

export type { BackfillCounts };

/** Embeds every memory without a vector, in one bank or all. */
export function embedMissing(db: Db, embedder: Embedder, bankId?: string): Promise<BackfillCounts> {
  return backfillEmbeddings(db, embedder, { bankId });
}
