/**
 * Embeddings wiring: when `REFLECT_EMBEDDINGS=openai`, retrieval embeds each query for hybrid
 * search and imports embed the new memories. Off (the default), everything stays BM25-only.
 */
import type { Db } from "@/db/client";
import { type BackfillCounts, backfillEmbeddings } from "@/db/queries/embedding-backfill";
import type { MemoryStoreOptions } from "@/db/queries/memory-store";
import { createEmbedder, type Embedder, readEmbeddingConfig } from "@/lib/llm/embeddings";

let cached: { embedder: Embedder | null } | undefined;

/** The configured embedder from the environment (read once per process), or null when off. */
export function getEmbedder(): Embedder | null {
  if (!cached) {
    const config = readEmbeddingConfig(process.env);
    cached = { embedder: config ? createEmbedder(config) : null };
  }
  return cached.embedder;
}

/** Recent query vectors: one run searches every tier with the same text, so embed it once. */
const QUERY_CACHE_SIZE = 256;

/** A one-text embedder for the memory store's query side, with a small LRU cache. */
export function queryEmbedder(embedder: Embedder): (text: string) => Promise<number[]> {
  const recent = new Map<string, Promise<number[]>>();
  return (text) => {
    const hit = recent.get(text);
    if (hit) {
      recent.delete(text);
      recent.set(text, hit);
      return hit;
    }
    const vector = embedder.embed([text]).then(([v]) => {
      if (!v) throw new Error("the embedding model returned no vector for the query");
      return v;
    });
    // A failed call is not remembered: the next search retries.
    vector.catch(() => recent.delete(text));
    recent.set(text, vector);
    if (recent.size > QUERY_CACHE_SIZE) recent.delete(recent.keys().next().value as string);
    return vector;
  };
}

/** Memory-store options for the current configuration: hybrid search when embeddings are on. */
export function memoryStoreOptions(embedder: Embedder | null = getEmbedder()): MemoryStoreOptions {
  return embedder ? { embed: queryEmbedder(embedder) } : {};
}

/**
 * Embeds a bank's memories that have no vector yet (after an import or a retain). Returns the
 * counts, or null when embeddings are off.
 */
export async function embedAfterImport(
  db: Db,
  bankId: string,
  embedder: Embedder | null = getEmbedder(),
): Promise<BackfillCounts | null> {
  return embedder ? backfillEmbeddings(db, embedder, { bankId }) : null;
}
