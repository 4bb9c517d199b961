import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EmbeddingDimensionError,
  ensureEmbeddingColumns,
  getEmbeddingDim,
  setEmbedding,
} from "@/db/queries/embeddings";
import { createMemoryStore } from "@/db/queries/memory-store";
import { searchFacts } from "@/db/queries/search";
import { importBundle } from "@/lib/server/services/bundle-io";
import { sampleBundle } from "./sample-bundle";
import { openTempDb } from "./temp-db";

let t: Awaited<ReturnType<typeof openTempDb>>;
beforeAll(async () => {
  t = await openTempDb("embeddings");
  await importBundle(t.db, sampleBundle());
});
afterAll(() => t.cleanup());

const search = { bankId: "acme", limit: 10, tags: [], scopes: ["personal" as const] };

describe("embeddings", () => {
  it("retrieval is BM25-only before embedding columns exist, even with a query vector", async () => {
    expect(await getEmbeddingDim(t.db)).toBeNull();
    const hits = await searchFacts(t.db, { ...search, query: "standups", embedding: [1, 0, 0, 0] });
    expect(hits.map((h) => h.id)).toEqual(["f2"]);
  });

  it("adds the columns once and refuses a different dimension later", async () => {
    await ensureEmbeddingColumns(t.db, 4);
    await ensureEmbeddingColumns(t.db, 4);
    expect(await getEmbeddingDim(t.db)).toBe(4);
    await expect(ensureEmbeddingColumns(t.db, 8)).rejects.toThrow(/dimension 4; cannot switch to 8/);
  });

  it("rejects a vector with the wrong number of dimensions", async () => {
    await expect(setEmbedding(t.db, "facts", { bankId: "acme", id: "f1" }, [1, 0, 0])).rejects.toBeInstanceOf(
      EmbeddingDimensionError,
    );
    await expect(searchFacts(t.db, { ...search, query: "x", embedding: [1, 2, 3, 4, 5] })).rejects.toThrow(/expects 4/);
  });

  it("fuses lexical and vector rankings (RRF) so a semantic-only match is found", async () => {
    await setEmbedding(t.db, "facts", { bankId: "acme", id: "f1" }, [1, 0, 0, 0]);
    await setEmbedding(t.db, "facts", { bankId: "acme", id: "f2" }, [0, 1, 0, 0]);
    // Lexically "standups" only matches f2; the vector points at f1.
    const lexical = await searchFacts(t.db, { ...search, query: "standups" });
    expect(lexical.map((h) => h.id)).toEqual(["f2"]);
    const hybrid = await searchFacts(t.db, { ...search, query: "standups", embedding: [0.9, 0.1, 0, 0] });
    expect(hybrid.map((h) => h.id).sort()).toEqual(["f1", "f2"]);
    // Both lists agree on f2 for a vector pointing at it: it ranks first.
    const agree = await searchFacts(t.db, { ...search, query: "standups", embedding: [0, 1, 0, 0] });
    expect(agree[0]?.id).toBe("f2");
  });

  it("keeps scope filters on the vector side too", async () => {
    await setEmbedding(t.db, "facts", { bankId: "acme", id: "f4" }, [1, 0, 0, 0]);
    const hits = await searchFacts(t.db, { ...search, query: "nothing", embedding: [1, 0, 0, 0] });
    expect(hits.map((h) => h.id)).not.toContain("f4");
  });

  it("the memory port embeds the query when given an embedder", async () => {
    const memory = createMemoryStore(t.db, { embed: async () => [1, 0, 0, 0] });
    const hits = await memory.recall({ bankId: "acme", query: "standups", limit: 5, tags: [], scope: "personal" });
    expect(hits.map((h) => h.id).sort()).toEqual(["f1", "f2"]);
  });
});
