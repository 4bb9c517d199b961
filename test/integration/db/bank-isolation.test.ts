/**
 * Each bank searches its own FTS5 index: no memory of another bank can come back, another bank's
 * words do not change a bank's ranking, and an index missing for any reason is rebuilt from the rows.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "@/db/client";
import { createMemoryStore } from "@/db/queries/memory-store";
import { OR_RANKED_AT_MOST, searchFacts, searchMentalModelIds, searchObservations } from "@/db/queries/search";
import { ftsTable, SEARCHED_TABLES, syncSearchIndexes } from "@/db/queries/search-index";
import type { BundleInput } from "@/lib/contracts/bundle";
import { importBundle } from "@/lib/server/services/bundle-io";
import { migratedUpTo, openTempDb } from "./temp-db";

/** The same texts, ids and tags in every bank: only the bank filter can tell them apart. */
function bank(id: string, extraFacts = 0): BundleInput {
  return {
    version: 1,
    bank: { id, name: id, permittedTeams: [] },
    facts: [
      {
        id: "f1",
        text: `Budget for ${id} is approved.`,
        kind: "world",
        tags: ["budget"],
        scope: "personal",
        recordedAt: "2026-01-01T00:00:00Z",
      },
      {
        id: "f2",
        text: "The rollout of the billing service slipped a week.",
        kind: "world",
        tags: [],
        scope: "personal",
        recordedAt: "2026-01-02T00:00:00Z",
      },
      {
        id: "f3",
        text: "Billing errors doubled after the rollout.",
        kind: "world",
        tags: ["incident"],
        scope: "personal",
        recordedAt: "2026-01-03T00:00:00Z",
      },
      ...Array.from({ length: extraFacts }, (_, i) => ({
        id: `noise-${i}`,
        text: `Billing billing note ${i} about invoices and the rollout calendar.`,
        kind: "world" as const,
        tags: [],
        scope: "personal" as const,
        recordedAt: "2026-01-04T00:00:00Z",
      })),
    ],
    observations: [
      {
        id: "o1",
        text: "Billing rollouts tend to slip.",
        tags: [],
        scope: "personal",
        sourceFactIds: ["f2"],
        updatedAt: "2026-01-05T00:00:00Z",
      },
    ],
    mentalModels: [
      { id: "mm1", name: "Billing", sourceQuery: "billing status", content: "Billing slipped.", tags: [] },
    ],
  };
}

const search = { query: "billing rollout", limit: 10, tags: [], scopes: ["personal" as const] };

describe("bank isolation", () => {
  let t: Awaited<ReturnType<typeof openTempDb>>;
  let alone: Awaited<ReturnType<typeof openTempDb>>;

  beforeAll(async () => {
    t = await openTempDb("isolation");
    alone = await openTempDb("isolation-alone");
    // "other" holds many more matching rows than "small", and ids that collide with it.
    await importBundle(t.db, bank("other", 300));
    await importBundle(t.db, bank("small"));
    await importBundle(t.db, bank("other-2", 50));
    await importBundle(alone.db, bank("small"));
  });
  afterAll(() => {
    t.cleanup();
    alone.cleanup();
  });

  it("never returns another bank's memory, in any tier, even when ids collide", async () => {
    const facts = await searchFacts(t.db, { ...search, bankId: "small", limit: 100 });
    expect(facts.map((f) => f.id).sort()).toEqual(["f2", "f3"]);
    expect(facts.every((f) => !f.text.includes("note"))).toBe(true);
    expect((await searchObservations(t.db, { ...search, bankId: "small" })).map((o) => o.id)).toEqual(["o1"]);
    expect((await searchMentalModelIds(t.db, { ...search, bankId: "small" })).map((m) => m.id)).toEqual(["mm1"]);
    // The budget fact names its own bank: "other" never sees small's and vice versa.
    const budget = await searchFacts(t.db, { ...search, bankId: "other", query: "budget approved small" });
    expect(budget.map((f) => f.text)).toEqual(["Budget for other is approved."]);
  });

  it("ranks a bank exactly as it ranks alone in its database", async () => {
    for (const query of ["billing rollout", "rollout slipped", "errors", "billing"]) {
      const shared = await searchFacts(t.db, { ...search, bankId: "small", query });
      const single = await searchFacts(alone.db, { ...search, bankId: "small", query });
      expect(shared).toEqual(single);
    }
  });

  it("a bank that does not exist finds nothing and gets no index", async () => {
    expect(await searchFacts(t.db, { ...search, bankId: "nope" })).toEqual([]);
    const names = await t.db.$client.execute({
      sql: "SELECT name FROM sqlite_master WHERE name = ?",
      args: [ftsTable("facts", "nope")],
    });
    expect(names.rows).toHaveLength(0);
  });

  it("replacing a bank re-indexes it and leaves the other banks' indexes alone", async () => {
    const replaced = bank("small");
    replaced.facts = [
      {
        id: "f9",
        text: "Billing moved to a new rollout plan.",
        kind: "world",
        tags: [],
        scope: "personal",
        recordedAt: "2026-02-01T00:00:00Z",
      },
    ];
    replaced.observations = [];
    await importBundle(t.db, replaced, { replace: true });
    expect((await searchFacts(t.db, { ...search, bankId: "small" })).map((f) => f.id)).toEqual(["f9"]);
    expect((await searchFacts(t.db, { ...search, bankId: "other", limit: 500 })).length).toBe(302);
  });
});

describe("an index missing for a bank", () => {
  it("is built from the bank's rows by the first search (a bank inserted with raw SQL)", async () => {
    const t = await openTempDb("isolation-raw");
    try {
      await t.db.$client.execute("INSERT INTO banks (id, name, permitted_teams) VALUES ('raw', 'Raw', '[]')");
      await t.db.$client.execute(
        `INSERT INTO facts (id, bank_id, text, kind, tags, scope, recorded_at, updated_at)
         VALUES ('r1', 'raw', 'Raw SQL billing fact', 'world', '[]', 'personal', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
      );
      expect((await searchFacts(t.db, { ...search, bankId: "raw" })).map((f) => f.id)).toEqual(["r1"]);
      // From then on the bank's triggers keep it current.
      await t.db.$client.execute(
        `INSERT INTO facts (id, bank_id, text, kind, tags, scope, recorded_at, updated_at)
         VALUES ('r2', 'raw', 'Second billing fact', 'world', '[]', 'personal', '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z')`,
      );
      expect((await searchFacts(t.db, { ...search, bankId: "raw" })).map((f) => f.id).sort()).toEqual(["r1", "r2"]);
    } finally {
      t.cleanup();
    }
  });

  it("is built when the database is opened, and the index of a deleted bank is dropped", async () => {
    const t = await openTempDb("isolation-sync");
    try {
      await importBundle(t.db, bank("kept"));
      await importBundle(t.db, bank("gone"));
      // The observations index of "kept" is gone (e.g. dropped by hand).
      await t.db.$client.execute(`DROP TABLE ${ftsTable("observations", "kept")}`);
      await t.db.$client.execute("DELETE FROM banks WHERE id = 'gone'");
      expect(await syncSearchIndexes(t.db)).toEqual({ built: ["kept"], dropped: ["gone"] });
      expect((await searchObservations(t.db, { ...search, bankId: "kept" })).map((o) => o.id)).toEqual(["o1"]);
      const left = await t.db.$client.execute(
        "SELECT name FROM sqlite_master WHERE name LIKE '%\\_fts\\_%' ESCAPE '\\'",
      );
      const gone = SEARCHED_TABLES.map((table) => ftsTable(table, "gone"));
      expect(left.rows.map((r) => String(r.name)).filter((n) => gone.some((g) => n.startsWith(g)))).toEqual([]);
      expect(await syncSearchIndexes(t.db)).toEqual({ built: [], dropped: [] });
    } finally {
      t.cleanup();
    }
  });
});

describe("tags are searchable", () => {
  let t: Awaited<ReturnType<typeof openTempDb>>;
  beforeAll(async () => {
    t = await openTempDb("tag-search");
    await importBundle(t.db, {
      version: 1,
      bank: { id: "tags", name: "Tags", permittedTeams: [] },
      facts: [
        {
          id: "tagged",
          text: "We ship on the 20th.",
          kind: "world",
          tags: ["launch"],
          scope: "personal",
          recordedAt: "2026-01-01T00:00:00Z",
        },
        {
          id: "said",
          text: "The launch is on the 20th.",
          kind: "world",
          tags: [],
          scope: "personal",
          recordedAt: "2026-01-01T00:00:00Z",
        },
        {
          id: "other",
          text: "We ship the docs later.",
          kind: "world",
          tags: ["docs"],
          scope: "personal",
          recordedAt: "2026-01-01T00:00:00Z",
        },
        {
          id: "hyphen",
          text: "Follow up with legal.",
          kind: "world",
          tags: ["action-item"],
          scope: "personal",
          recordedAt: "2026-01-01T00:00:00Z",
        },
      ],
      observations: [
        {
          id: "o-tagged",
          text: "Shipping dates hold.",
          tags: ["launch"],
          scope: "personal",
          sourceFactIds: [],
          updatedAt: "2026-01-02T00:00:00Z",
        },
      ],
      mentalModels: [
        { id: "mm-tagged", name: "Dates", sourceQuery: "when do we ship", content: "The 20th.", tags: ["launch"] },
      ],
    });
  });
  afterAll(() => t.cleanup());

  it('"launch" finds the fact tagged launch whose text says "ship", after the fact that says launch', async () => {
    const memory = createMemoryStore(t.db);
    const hits = await memory.recall({ bankId: "tags", query: "launch", limit: 10, tags: [], scope: "personal" });
    expect(hits.map((h) => h.id)).toEqual(["said", "tagged"]);
    const observations = await memory.searchObservations({
      bankId: "tags",
      query: "launch",
      limit: 10,
      tags: [],
      scope: "personal",
    });
    expect(observations.observations.map((o) => o.id)).toEqual(["o-tagged"]);
    const models = await memory.searchMentalModels({
      bankId: "tags",
      query: "launch",
      limit: 5,
      tags: [],
      scope: "personal",
    });
    expect(models.map((m) => m.id)).toEqual(["mm-tagged"]);
  });

  it("a hyphenated tag matches its words", async () => {
    const hits = await searchFacts(t.db, {
      bankId: "tags",
      query: "open action items",
      limit: 5,
      tags: [],
      scopes: ["personal"],
    });
    expect(hits.map((h) => h.id)).toEqual(["hyphen"]);
  });

  it("a tag edit re-indexes the fact", async () => {
    await t.db.$client.execute(`UPDATE facts SET tags = '["release"]' WHERE bank_id = 'tags' AND id = 'tagged'`);
    const q = { bankId: "tags", limit: 10, tags: [], scopes: ["personal" as const] };
    expect((await searchFacts(t.db, { ...q, query: "launch" })).map((h) => h.id)).toEqual(["said"]);
    expect((await searchFacts(t.db, { ...q, query: "release" })).map((h) => h.id)).toEqual(["tagged"]);
  });
});

describe("AND first, OR when too few memories have every word", () => {
  let t: Awaited<ReturnType<typeof openTempDb>>;
  const fact = (id: string, text: string, scope = "personal") => ({
    id,
    text,
    kind: "world" as const,
    tags: [],
    scope,
    recordedAt: "2026-01-01T00:00:00Z",
  });

  /** The same facts in a small bank, and in a large one where the OR query matches too many. */
  const facts = (atlasNotes: number) => [
    // Six facts with both words; the team ones are out of a personal search's scope.
    fact("both-1", "Pricing review for the Atlas renewal with the whole account team and legal."),
    fact("both-2", "Atlas pricing moved to per seat after a long and winding discussion with finance."),
    fact("both-3", "Atlas pricing, as discussed on the call with the customer success team."),
    fact("both-team-1", "Atlas pricing for team x, written up after the quarterly planning meeting.", "team:x"),
    fact("both-team-2", "Atlas pricing notes of team x from the offsite in the mountains last spring.", "team:x"),
    fact("both-team-3", "Atlas pricing plan of team x, still a draft that nobody has reviewed yet.", "team:x"),
    // One word only, but short: under OR they outrank longer facts with both words.
    fact("pricing-only", "Pricing pricing pricing."),
    fact("atlas-only", "Atlas."),
    ...Array.from({ length: 20 }, (_, i) => fact(`filler-${i}`, `Filler note ${i} about the office.`)),
    ...Array.from({ length: atlasNotes }, (_, i) =>
      fact(`note-${i}`, `Atlas weekly note ${i}: nothing new on the dashboard builder, the connectors or the docs.`),
    ),
  ];

  beforeAll(async () => {
    t = await openTempDb("and-first");
    const bank = (id: string) => ({ id, name: id, permittedTeams: ["x"] });
    await importBundle(t.db, { version: 1, bank: bank("and"), facts: facts(OR_RANKED_AT_MOST) });
    await importBundle(t.db, { version: 1, bank: bank("small"), facts: facts(0) });
  });
  afterAll(() => t.cleanup());

  /** The plain OR definition: every memory with any word, ranked by bm25 then id. */
  async function orRanking(scopes: string[], limit: number, words = ["atlas", "pricing"]): Promise<string[]> {
    const fts = ftsTable("facts", "and");
    const res = await t.db.$client.execute({
      sql: `SELECT m.id FROM ${fts} JOIN facts m ON m.pk = ${fts}.rowid
            WHERE ${fts} MATCH ? AND m.scope IN (${scopes.map(() => "?").join(", ")})
            ORDER BY bm25(${fts}, 1.0, 0.5), m.id LIMIT ?`,
      args: [words.map((w) => `"${w}"`).join(" OR "), ...scopes, limit],
    });
    return res.rows.map((r) => String(r.id));
  }
  const ids = (scopes: ("personal" | "team:x")[], limit: number) =>
    searchFacts(t.db, { bankId: "and", query: "Atlas pricing", limit, tags: [], scopes }).then((r) =>
      r.map((f) => f.id),
    );

  it("returns the memories with every word, in the OR query's order, when there are enough", async () => {
    const found = await ids(["personal", "team:x"], 5);
    expect(found).toHaveLength(5);
    expect(found.every((id) => id.startsWith("both"))).toBe(true);
    // Same scores as the OR query gives them: the OR ranking restricted to those memories.
    const or = await orRanking(["personal", "team:x"], 100);
    expect(found).toEqual(or.filter((id) => id.startsWith("both")).slice(0, 5));
    // …which is not the OR top 5: a one-word memory would have been in it.
    expect(or.slice(0, 5)).not.toEqual(found);
  });

  it("falls back to the OR ranking when the scope leaves fewer than limit memories with every word", async () => {
    // Only 3 personal memories have both words: limit 5 needs the OR query, filtered before its limit.
    const found = await ids(["personal"], 5);
    expect(found).toEqual(await orRanking(["personal"], 5));
    expect(found).toContain("pricing-only");
    expect(found.some((id) => id.startsWith("both-team"))).toBe(false);
  });

  it("with three words, tries every word but one before any word", async () => {
    // Only both-1 says "renewal": too few with all three words, six with two of them.
    const found = await searchFacts(t.db, {
      bankId: "and",
      query: "Atlas pricing renewal",
      limit: 3,
      tags: [],
      scopes: ["personal", "team:x"],
    }).then((r) => r.map((f) => f.id));
    const or = await orRanking(["personal", "team:x"], 100, ["atlas", "pricing", "renewal"]);
    expect(found).toEqual(or.filter((id) => id.startsWith("both")).slice(0, 3));
    expect(or.slice(0, 3).some((id) => id.endsWith("-only"))).toBe(true);
  });

  it("ranks every memory with any word while the OR query matches few enough", async () => {
    const found = await searchFacts(t.db, {
      bankId: "small",
      query: "Atlas pricing",
      limit: 5,
      tags: [],
      scopes: ["personal", "team:x"],
    }).then((r) => r.map((f) => f.id));
    expect(found.some((id) => id.endsWith("-only"))).toBe(true);
  });

  it("with one word there is only the OR query", async () => {
    const found = await searchFacts(t.db, {
      bankId: "and",
      query: "pricing",
      limit: 3,
      tags: [],
      scopes: ["personal"],
    });
    expect(found[0]?.id).toBe("pricing-only");
  });
});

describe("upgrade from the shared FTS index (migration 0003)", () => {
  it("rebuilds every bank's index, tags included, from the rows of an existing database", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { resolve } = await import("node:path");
    const dir = mkdtempSync(resolve(process.cwd(), "test/.tmp/upgrade-"));
    try {
      // A database as the previous release left it: migrations 0000–0002 only, with data.
      const { url, client } = await migratedUpTo(dir, "0003");
      const statements = [
        "INSERT INTO banks (id, name, permitted_teams) VALUES ('a', 'A', '[]'), ('b', 'B', '[]')",
        `INSERT INTO facts (id, bank_id, text, kind, tags, scope, recorded_at, updated_at) VALUES
           ('f1', 'a', 'We ship on the 20th.', 'world', '["launch"]', 'personal', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'),
           ('f1', 'b', 'We ship on the 21st.', 'world', '["launch"]', 'personal', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
        `INSERT INTO observations (id, bank_id, text, tags, scope, source_fact_ids, updated_at) VALUES
           ('o1', 'a', 'Dates hold.', '["launch"]', 'personal', '[]', '2026-01-02T00:00:00.000Z')`,
        `INSERT INTO mental_models (id, bank_id, name, source_query, content, tags, refreshed_at, stale_override, based_on_ids, version, updated_at)
           VALUES ('mm1', 'a', 'Dates', 'when', 'The 20th.', '["launch"]', NULL, NULL, '[]', 1, NULL)`,
      ];
      for (const sql of statements) await client.execute(sql);
      expect((await client.execute(`SELECT rowid FROM facts_fts WHERE facts_fts MATCH 'ship'`)).rows).toHaveLength(2);
      client.close();

      const db = await openDb(url);
      try {
        const tables = (await db.$client.execute("SELECT name FROM sqlite_master")).rows.map((r) => String(r.name));
        expect(tables).not.toContain("facts_fts");
        expect(tables.filter((n) => n.endsWith("_fts_ai"))).toEqual([]);
        const q = { query: "launch", limit: 5, tags: [], scopes: ["personal" as const] };
        expect((await searchFacts(db, { ...q, bankId: "a" })).map((f) => f.text)).toEqual(["We ship on the 20th."]);
        expect((await searchFacts(db, { ...q, bankId: "b" })).map((f) => f.text)).toEqual(["We ship on the 21st."]);
        expect((await searchObservations(db, { ...q, bankId: "a" })).map((o) => o.id)).toEqual(["o1"]);
        expect((await searchMentalModelIds(db, { ...q, bankId: "a" })).map((m) => m.id)).toEqual(["mm1"]);
        // Writes after the upgrade go to the new indexes.
        await db.$client.execute(
          `UPDATE facts SET text = 'Launch moved to the 27th.' WHERE bank_id = 'a' AND id = 'f1'`,
        );
        expect((await searchFacts(db, { ...q, bankId: "a", query: "27th" })).map((f) => f.id)).toEqual(["f1"]);
      } finally {
        db.$client.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
