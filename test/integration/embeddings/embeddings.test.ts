/**
 * Embeddings end to end over the OpenAI SDK and the fake server's /v1/embeddings: settings,
 * backfill, hybrid retrieval through the memory port, dimension errors, and the CLI.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backfillEmbeddings } from "@/db/queries/embedding-backfill";
import { getEmbeddingDim } from "@/db/queries/embeddings";
import { createMemoryStore } from "@/db/queries/memory-store";
import type { BundleInput } from "@/lib/contracts/bundle";
import {
  createEmbedder,
  DEFAULT_EMBEDDING_DIM,
  DEFAULT_EMBEDDING_MODEL,
  EmbeddingDimensionMismatchError,
  readEmbeddingConfig,
} from "@/lib/llm/embeddings";
import { embedAfterImport, memoryStoreOptions } from "@/lib/server/runtime/embeddings";
import { importBundle } from "@/lib/server/services/bundle-io";
import { type FakeOpenAI, fakeEmbedding, startFakeOpenAI } from "../../fixtures/fake-openai-server";
import { CLI_ARGS } from "../cli/cli-process";
import { sampleBundle } from "../db/sample-bundle";
import { openTempDb } from "../db/temp-db";

const DIM = 64;
const root = resolve(import.meta.dirname, "../../..");

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI([], { embeddingDimensions: 8 });
});
afterAll(() => fake.close());

const embedder = (dimensions = DIM, model = DEFAULT_EMBEDDING_MODEL) =>
  createEmbedder({ model, dimensions, baseURL: fake.url, apiKey: "test-key" });

async function nullEmbeddings(db: Awaited<ReturnType<typeof openTempDb>>["db"]) {
  const res = await db.$client.execute(
    "SELECT (SELECT count(*) FROM facts WHERE embedding IS NULL) + (SELECT count(*) FROM observations WHERE embedding IS NULL) + (SELECT count(*) FROM mental_models WHERE embedding IS NULL) AS n",
  );
  return Number(res.rows[0]?.n);
}

describe("embedding settings", () => {
  it("are off unless REFLECT_EMBEDDINGS=openai", () => {
    expect(readEmbeddingConfig({})).toBeNull();
    expect(readEmbeddingConfig({ REFLECT_EMBEDDINGS: "off", OPENAI_API_KEY: "k" })).toBeNull();
  });

  it("default to text-embedding-3-small at 1536 dimensions and reuse the OpenAI key and URL", () => {
    expect(
      readEmbeddingConfig({ REFLECT_EMBEDDINGS: "openai", OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://x.test/v1" }),
    ).toEqual({
      model: DEFAULT_EMBEDDING_MODEL,
      dimensions: DEFAULT_EMBEDDING_DIM,
      apiKey: "k",
      baseURL: "http://x.test/v1",
    });
  });

  it("name the variable that is wrong", () => {
    expect(() => readEmbeddingConfig({ REFLECT_EMBEDDINGS: "openai" })).toThrow(/OPENAI_API_KEY is required/);
    expect(() =>
      readEmbeddingConfig({ REFLECT_EMBEDDINGS: "openai", OPENAI_API_KEY: "k", REFLECT_EMBEDDING_DIM: "big" }),
    ).toThrow(/REFLECT_EMBEDDING_DIM: must be a whole number/);
    expect(() => readEmbeddingConfig({ REFLECT_EMBEDDINGS: "yes" })).toThrow(/REFLECT_EMBEDDINGS/);
  });
});

describe("embedding backfill", () => {
  let t: Awaited<ReturnType<typeof openTempDb>>;
  beforeAll(async () => {
    t = await openTempDb("embeddings-backfill");
    await importBundle(t.db, sampleBundle());
  });
  afterAll(() => t.cleanup());

  it("fills a vector for every memory of every tier, in batches, and only once", async () => {
    expect(await getEmbeddingDim(t.db)).toBeNull();
    const before = fake.requests.length;
    const counts = await backfillEmbeddings(t.db, embedder(), { batchSize: 2 });
    const bundle = sampleBundle();
    expect(counts).toEqual({
      facts: bundle.facts?.length ?? 0,
      observations: bundle.observations?.length ?? 0,
      mental_models: bundle.mentalModels?.length ?? 0,
    });
    expect(await getEmbeddingDim(t.db)).toBe(DIM);
    expect(await nullEmbeddings(t.db)).toBe(0);
    const calls = fake.requests.slice(before).filter((r) => r.path === "/v1/embeddings");
    expect(calls.length).toBeGreaterThan(1);
    expect(calls[0]?.body).toMatchObject({ model: DEFAULT_EMBEDDING_MODEL, dimensions: DIM });
    expect(await backfillEmbeddings(t.db, embedder())).toEqual({ facts: 0, observations: 0, mental_models: 0 });
  });

  it("stores the model's vector: the stored fact is nearest to its own text", async () => {
    const [vector] = await embedder().embed(["Dana prefers async standups over meetings."]);
    const res = await t.db.$client.execute({
      sql: "SELECT id FROM facts ORDER BY vector_distance_cos(embedding, vector32(?)) LIMIT 1",
      args: [JSON.stringify(vector)],
    });
    expect(res.rows[0]?.id).toBe("f2");
  });

  it("rejects a model whose vectors have another size than configured, before changing the schema", async () => {
    const fresh = await openTempDb("embeddings-wrong-dim");
    try {
      await importBundle(fresh.db, sampleBundle());
      // A model that ignores `dimensions` answers with the fake server's 8.
      const wrong = embedder(16, "fake-embedding");
      const error = await backfillEmbeddings(fresh.db, wrong).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EmbeddingDimensionMismatchError);
      expect(String(error)).toMatch(/returned 8 dimensions but REFLECT_EMBEDDING_DIM is 16/);
      // No columns were added, so the right dimension can still be configured.
      expect(await getEmbeddingDim(fresh.db)).toBeNull();
      expect(await backfillEmbeddings(fresh.db, embedder(8, "fake-embedding"))).toMatchObject({ facts: 4 });
    } finally {
      fresh.cleanup();
    }
  });

  it("refuses to switch an embedded database to another dimension", async () => {
    await expect(backfillEmbeddings(t.db, embedder(32))).rejects.toThrow(/dimension 64; cannot switch to 32/);
  });
});

/** A word that shares no text with `target` but gets exactly its fake vector (same hash slot and sign). */
function synonymOf(target: string): string {
  const goal = JSON.stringify(fakeEmbedding(target, DIM));
  for (let i = 0; i < 10_000; i++) {
    const word = `zq${i.toString(36)}`;
    if (JSON.stringify(fakeEmbedding(word, DIM)) === goal) return word;
  }
  throw new Error(`no fake synonym of ${target}`);
}

function semanticBank(): BundleInput {
  const fact = (id: string, text: string) => ({
    id,
    text,
    kind: "world" as const,
    tags: [],
    scope: "personal" as const,
    recordedAt: "2025-03-10T10:00:00Z",
  });
  return {
    version: 1,
    bank: { id: "semantic", name: "Semantic", permittedTeams: [] },
    facts: [
      fact("s1", "The quarterly roadmap review moved to Thursday."),
      fact("s2", "Kubernetes"),
      fact("s3", "Lunch orders close at eleven."),
    ],
  };
}

describe("hybrid retrieval", () => {
  let t: Awaited<ReturnType<typeof openTempDb>>;
  beforeAll(async () => {
    t = await openTempDb("embeddings-hybrid");
    await importBundle(t.db, semanticBank());
  });
  afterAll(() => t.cleanup());

  const recall = (store: ReturnType<typeof createMemoryStore>, query: string) =>
    store.recall({ bankId: "semantic", query, limit: 5, tags: [], scope: "personal" });

  it("embeds an imported bank and then recalls a memory that matches by meaning, not by words", async () => {
    const query = synonymOf("Kubernetes");
    const lexicalOnly = createMemoryStore(t.db, memoryStoreOptions(null));
    expect((await recall(lexicalOnly, query)).map((f) => f.id)).not.toContain("s2");

    expect(await embedAfterImport(t.db, "semantic", embedder())).toEqual({
      facts: 3,
      observations: 0,
      mental_models: 0,
    });
    const hybrid = createMemoryStore(t.db, memoryStoreOptions(embedder()));
    const hits = await recall(hybrid, query);
    expect(hits[0]?.id).toBe("s2");
  });

  it("keeps BM25 matches in the fused ranking", async () => {
    const hybrid = createMemoryStore(t.db, memoryStoreOptions(embedder()));
    const hits = await recall(hybrid, "roadmap review");
    expect(hits[0]?.id).toBe("s1");
  });

  it("does nothing after an import while embeddings are off", async () => {
    expect(await embedAfterImport(t.db, "semantic", null)).toBeNull();
  });
});

describe("cli embed", () => {
  let t: Awaited<ReturnType<typeof openTempDb>>;
  beforeAll(async () => {
    t = await openTempDb("embeddings-cli");
  });
  afterAll(() => t.cleanup());

  /** Async: the fake server answers from this process while the CLI runs. */
  function cli(env: Record<string, string>, ...args: string[]) {
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      const child = spawn(process.execPath, [...CLI_ARGS, ...args], {
        cwd: root,
        env: { ...process.env, DATABASE_URL: `file:${t.path}`, REFLECT_LLM: "offline", OPENAI_API_KEY: "", ...env },
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => {
        stdout += d;
      });
      child.stderr.on("data", (d) => {
        stderr += d;
      });
      child.on("close", (code) => done({ code, stdout, stderr }));
    });
  }

  it("embeds the seeded demo bank, then backfills only what lacks a vector", async () => {
    const env = {
      REFLECT_EMBEDDINGS: "openai",
      REFLECT_EMBEDDING_DIM: String(DIM),
      OPENAI_API_KEY: "test-key",
      OPENAI_BASE_URL: fake.url,
    };
    // The first CLI use seeds the demo bank, which embeds it since embeddings are on.
    const out = await cli(env, "embed", "--bank", "demo");
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /embedded \d+ facts, \d+ observations, \d+ mental models in bank demo \(64 dimensions\)/,
    );
    expect(await nullEmbeddings(t.db)).toBe(0);
    await t.db.$client.execute("UPDATE facts SET embedding = NULL WHERE id IN ('f-001', 'f-002')");
    const again = await cli(env, "embed");
    expect(again.stdout).toContain("embedded 2 facts, 0 observations, 0 mental models");
    expect(await nullEmbeddings(t.db)).toBe(0);
  }, 60_000);

  it("explains how to turn embeddings on when they are off", async () => {
    const out = await cli({}, "embed");
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/REFLECT_EMBEDDINGS=openai/);
  }, 60_000);
});
