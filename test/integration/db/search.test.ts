import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStore } from "@/db/queries/memory-store";
import { searchFacts } from "@/db/queries/search";
import { ftsTable, SEARCHED_TABLES } from "@/db/queries/search-index";
import type { BundleInput } from "@/lib/contracts/bundle";
import { NothingToSearchError, ScopeNotPermittedError } from "@/lib/reflect/errors";
import type { MemoryPort } from "@/lib/reflect/ports";
import { importBundle } from "@/lib/server/services/bundle-io";
import { sampleBundle } from "./sample-bundle";
import { openTempDb } from "./temp-db";

let t: Awaited<ReturnType<typeof openTempDb>>;
let memory: MemoryPort;

beforeAll(async () => {
  t = await openTempDb("search");
  memory = createMemoryStore(t.db);
  await importBundle(t.db, sampleBundle());
});
afterAll(() => t.cleanup());

const q = (query: string, extra: Partial<Parameters<MemoryPort["recall"]>[0]> = {}) => ({
  bankId: "acme",
  query,
  limit: 10,
  tags: [],
  scope: "personal" as const,
  ...extra,
});

describe("migrations", () => {
  it("apply from empty and re-opening the same file is a no-op", async () => {
    const tables = await t.db.$client.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    const names = tables.rows.map((r) => r.name);
    const indexes = SEARCHED_TABLES.map((table) => ftsTable(table, "acme"));
    for (const name of ["banks", "facts", ...indexes, "run_events", "meta"]) {
      expect(names).toContain(name);
    }
    const { openDb } = await import("@/db/client");
    const again = await openDb(`file:${t.path}`);
    const applied = await again.$client.execute("SELECT COUNT(*) AS n FROM __drizzle_migrations");
    const { readFileSync } = await import("node:fs");
    const journal = JSON.parse(readFileSync("db/migrations/meta/_journal.json", "utf8")) as { entries: unknown[] };
    expect(Number(applied.rows[0]?.n)).toBe(journal.entries.length);
    again.$client.close();
  });
});

describe("BM25 retrieval", () => {
  it("ranks the more relevant fact first", async () => {
    const launch = await memory.recall(q("billing launch date", { scope: "team:core" }));
    expect(launch.map((h) => h.id)).toEqual(["f3", "f1"]);
    const migration = await memory.recall(q("postgres migration billing", { scope: "team:core" }));
    expect(migration.map((h) => h.id)).toEqual(["f1", "f3"]);
    expect(migration[0]).toMatchObject({ kind: "world", tags: ["billing", "infra"], scope: "personal" });
  });

  it("refuses a query of only stop words (nothing to search), and FTS syntax is no SQL error", async () => {
    // The store's SQL finds nothing; the port says nothing was searched rather than "no hits".
    expect(
      await searchFacts(t.db, { bankId: "acme", query: "the and of", limit: 5, tags: [], scopes: ["personal"] }),
    ).toEqual([]);
    await expect(memory.recall(q("the and of"))).rejects.toBeInstanceOf(NothingToSearchError);
    await expect(memory.searchMentalModels(q("what is it?"))).rejects.toBeInstanceOf(NothingToSearchError);
    // With semantic search configured any text can be searched: no refusal.
    expect(await createMemoryStore(t.db, { embed: async () => [1, 0, 0] }).recall(q("the and of"))).toEqual([]);
    expect(await memory.recall(q('" OR ( NEAR * -'))).toEqual([]);
    expect((await memory.recall(q('billing" OR "x'))).length).toBeGreaterThan(0);
  });

  it("keeps the full-text index in sync when a fact is updated or deleted", async () => {
    const t2 = await openTempDb("search-sync");
    try {
      await importBundle(t2.db, sampleBundle());
      const store = createMemoryStore(t2.db);
      await t2.db.$client.execute("UPDATE facts SET text = 'Kubernetes cluster upgraded' WHERE id = 'f1'");
      expect((await store.recall(q("postgres"))).map((h) => h.id)).toEqual([]);
      expect((await store.recall(q("kubernetes"))).map((h) => h.id)).toEqual(["f1"]);
      await t2.db.$client.execute("DELETE FROM facts WHERE id = 'f1'");
      expect(await store.recall(q("kubernetes"))).toEqual([]);
      await t2.db.$client.execute("UPDATE mental_models SET content = 'Zebras everywhere' WHERE id = 'mm-team'");
      expect((await store.searchMentalModels(q("zebras"))).map((m) => m.id)).toEqual(["mm-team"]);
    } finally {
      t2.cleanup();
    }
  });
});

describe("filters apply in SQL before the limit", () => {
  it("finds the one tagged match even when 50 better-ranked untagged rows exist (limit 5)", async () => {
    const t2 = await openTempDb("search-limit");
    try {
      const bundle: BundleInput = {
        version: 1,
        bank: { id: "big", name: "Big", permittedTeams: [] },
        facts: [
          ...Array.from({ length: 50 }, (_, i) => ({
            id: `noise-${String(i).padStart(2, "0")}`,
            text: "deploy deploy deploy pipeline",
            kind: "world" as const,
            tags: ["ops"],
            scope: "personal",
            recordedAt: "2025-01-01T00:00:00Z",
          })),
          {
            id: "target",
            text: "a long note that mentions deploy once among many other unrelated words here",
            kind: "world",
            tags: ["ops", "release"],
            scope: "personal",
            recordedAt: "2025-01-01T00:00:00Z",
          },
        ],
      };
      await importBundle(t2.db, bundle);
      const unfiltered = await searchFacts(t2.db, {
        bankId: "big",
        query: "deploy",
        limit: 5,
        tags: [],
        scopes: ["personal"],
      });
      expect(unfiltered.map((f) => f.id)).not.toContain("target");
      const tagged = await createMemoryStore(t2.db).recall({
        bankId: "big",
        query: "deploy",
        limit: 5,
        tags: ["release", "ops"],
        scope: "personal",
      });
      expect(tagged.map((f) => f.id)).toEqual(["target"]);
    } finally {
      t2.cleanup();
    }
  });

  it("requires all of the tags", async () => {
    expect((await memory.recall(q("billing", { tags: ["billing", "infra"] }))).map((f) => f.id)).toEqual(["f1"]);
    expect(await memory.recall(q("billing", { tags: ["billing", "nope"] }))).toEqual([]);
  });
});

describe("scope", () => {
  it("a personal run never sees team facts", async () => {
    const ids = (await memory.recall(q("billing secret launch discounts"))).map((f) => f.id);
    expect(ids).not.toContain("f3");
    expect(ids).not.toContain("f4");
  });

  it("a permitted team reads personal plus that team's facts, never another team's", async () => {
    const ids = (await memory.recall(q("billing secret launch discounts", { scope: "team:core" }))).map((f) => f.id);
    expect(ids).toContain("f3");
    expect(ids).toContain("f1");
    expect(ids).not.toContain("f4");
  });

  it("a team the bank does not permit is a policy rejection for observations and facts", async () => {
    await expect(memory.recall(q("billing", { scope: "team:growth" }))).rejects.toBeInstanceOf(ScopeNotPermittedError);
    await expect(memory.searchObservations(q("billing", { scope: "team:growth" }))).rejects.toBeInstanceOf(
      ScopeNotPermittedError,
    );
    // Mental models are bank-wide: the scope does not apply to them.
    expect((await memory.searchMentalModels(q("billing", { scope: "team:growth" }))).length).toBe(1);
  });

  it("counts only personal memories when the team is not permitted", async () => {
    // personal: f1, f2, o1; core adds f3; plus 2 mental models.
    expect(await memory.countInScope({ bankId: "acme", scope: "personal" })).toBe(5);
    expect(await memory.countInScope({ bankId: "acme", scope: "team:core" })).toBe(6);
    expect(await memory.countInScope({ bankId: "acme", scope: "team:growth" })).toBe(5);
    expect(await memory.countMentalModels("acme")).toBe(2);
  });
});

describe("tiers through the memory port", () => {
  it("mental-model hits carry staleness, usability, version and rank-derived relevance", async () => {
    const hits = await memory.searchMentalModels(q("billing postgres team async"));
    expect(hits.map((h) => h.id).sort()).toEqual(["mm-billing", "mm-team"]);
    expect(hits[0]?.relevance).toBe(1);
    expect(hits[1]?.relevance).toBeLessThan(1);
    expect(hits.find((h) => h.id === "mm-billing")).toMatchObject({
      version: 2,
      isStale: false,
      stalenessReason: "no newer memories in scope",
      usable: true,
    });
  });

  it("observation search reports facts recorded after the newest observation as pending", async () => {
    const personal = await memory.searchObservations(q("billing postgres"));
    expect(personal.observations.map((o) => o.id)).toEqual(["o1"]);
    // f2 (recorded 03-11) is newer than o1 (03-10 12:00); f1 (03-10 10:00) is not.
    expect(personal).toMatchObject({ pending: 1, freshness: "slightly_stale", isStale: true });
    const core = await memory.searchObservations(q("billing", { scope: "team:core", tags: ["billing"] }));
    expect(core).toMatchObject({ pending: 1, freshness: "slightly_stale" });
    const infra = await memory.searchObservations(q("billing", { tags: ["infra"] }));
    expect(infra).toMatchObject({ observations: [], pending: 1 });
  });
});
