/**
 * Writes keep each bank's index right without touching any other bank's index, and their cost does
 * not depend on the number of banks: three triggers per tier whatever the banks, and a flush that
 * only applies the rows the bank changed (db/queries/search-index.ts, migration 0009).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { drizzle } from "drizzle-orm/libsql";
import { describe, expect, it } from "vitest";
import { createReadOnlyFileClient, openDb } from "@/db/client";
import { saveMentalModel } from "@/db/queries/mental-models";
import { insertFacts } from "@/db/queries/retain";
import { searchFacts, searchMentalModelIds, searchMentalModelTextsMany, searchObservations } from "@/db/queries/search";
import {
  ensureBankIndex,
  ftsTable,
  PENDING_TABLE,
  SEARCHED_TABLES,
  syncSearchIndexes,
} from "@/db/queries/search-index";
import { termDocumentFrequencies } from "@/db/queries/term-stats";
import * as schema from "@/db/schema";
import type { BundleInput } from "@/lib/contracts/bundle";
import { importBundle, importBundleLines } from "@/lib/server/services/bundle-io";
import { migratedUpTo, openTempDb } from "./temp-db";

function bundle(id: string, texts: string[]): BundleInput {
  return {
    version: 1,
    bank: { id, name: id, permittedTeams: [] },
    facts: texts.map((text, i) => ({
      id: `f${i + 1}`,
      text,
      kind: "world" as const,
      tags: i === 0 ? ["launch"] : [],
      scope: "personal" as const,
      recordedAt: "2026-01-01T00:00:00Z",
    })),
    observations: [],
    mentalModels: [],
    skills: [],
  };
}

const q = { limit: 10, tags: [], scopes: ["personal" as const] };
const ids = async (db: Parameters<typeof searchFacts>[0], bankId: string, query: string) =>
  (await searchFacts(db, { ...q, bankId, query })).map((f) => f.id).sort();

/** The bank's FTS5 tables in the file (one per tier that holds rows). */
async function bankIndexes(db: Parameters<typeof searchFacts>[0], bankId: string): Promise<string[]> {
  const names = SEARCHED_TABLES.map((table) => ftsTable(table, bankId));
  const { rows } = await db.$client.execute({
    sql: `SELECT name FROM sqlite_master WHERE name IN (${names.map(() => "?").join(", ")}) ORDER BY name`,
    args: names,
  });
  return rows.map((r) => String(r.name));
}

/** Every stored byte of a bank's indexes (FTS5 shadow tables). */
async function indexBytes(db: Parameters<typeof searchFacts>[0], bankId: string): Promise<string> {
  const parts: string[] = [];
  for (const fts of await bankIndexes(db, bankId)) {
    parts.push(fts);
    for (const shadow of ["data", "idx", "docsize", "config"]) {
      const { rows } = await db.$client.execute(`SELECT * FROM ${fts}_${shadow} ORDER BY 1, 2`);
      parts.push(JSON.stringify(rows, (_k, v) => (v instanceof ArrayBuffer ? Buffer.from(v).toString("hex") : v)));
    }
  }
  return parts.join("|");
}

describe("search index upkeep on writes", () => {
  it("has the same triggers with one bank as with many", async () => {
    const t = await openTempDb("writes-triggers");
    try {
      const triggers = async () =>
        (await t.db.$client.execute("SELECT tbl_name, name FROM sqlite_master WHERE type = 'trigger' ORDER BY name"))
          .rows;
      await importBundle(t.db, bundle("a", ["We ship on the 20th."]));
      const one = await triggers();
      expect(one.filter((r) => SEARCHED_TABLES.includes(String(r.tbl_name) as never)).length).toBeGreaterThan(0);
      for (const id of ["b", "c", "d"]) await importBundle(t.db, bundle(id, ["We ship on the 20th."]));
      expect(await triggers()).toEqual(one);
    } finally {
      t.cleanup();
    }
  });

  it("a bank's retain, update, delete and re-import leave every other bank's index byte for byte as it was", async () => {
    const t = await openTempDb("writes-isolation");
    try {
      await importBundle(t.db, bundle("a", ["We ship on the 20th.", "Budget approved."]));
      await importBundle(t.db, bundle("b", ["We ship on the 21st.", "Budget pending."]));
      const before = await indexBytes(t.db, "b");
      expect(await bankIndexes(t.db, "b")).toEqual([ftsTable("facts", "b")]);
      await insertFacts(t.db, "a", [{ text: "Ship date moved.", kind: "world", tags: [], scope: "personal" }]);
      await t.db.$client.execute("UPDATE facts SET text = 'Budget cut.' WHERE bank_id = 'a' AND id = 'f2'");
      await t.db.$client.execute("DELETE FROM facts WHERE bank_id = 'a' AND id = 'f1'");
      await saveMentalModel(t.db, {
        bankId: "a",
        name: "Dates",
        sourceQuery: "when do we ship",
        content: "The 27th.",
        tags: [],
        expectedVersion: 0,
        refreshedAt: null,
        staleOverride: null,
      });
      expect(await ids(t.db, "a", "budget")).toEqual(["f2"]);
      await importBundle(t.db, bundle("a", ["Zebras crossed the road."]), { replace: true });
      expect(await ids(t.db, "a", "zebras")).toEqual(["f1"]);
      expect(await indexBytes(t.db, "b")).toBe(before);
      const pending = await t.db.$client.execute(`SELECT * FROM ${PENDING_TABLE} WHERE bank_id = 'b'`);
      expect(pending.rows).toEqual([]);
      expect(await ids(t.db, "b", "ship")).toEqual(["f1"]);
    } finally {
      t.cleanup();
    }
  });

  it("search stays right through retain, rewrite, raw update, delete and re-import, and ranks as a rebuilt index", async () => {
    const t = await openTempDb("writes-correct");
    try {
      await importBundle(t.db, bundle("a", ["We ship on the 20th.", "Budget approved.", "Hiring paused."]));
      const { inserted } = await insertFacts(t.db, "a", [
        { text: "The ship date is the 27th.", kind: "world", tags: ["ship"], scope: "personal" },
        { text: "Ship ship ship: the launch slipped.", kind: "world", tags: [], scope: "personal" },
      ]);
      expect(await ids(t.db, "a", "ship")).toEqual(["f1", ...inserted].sort());
      // Retain with an existing id rewrites the fact: its old words stop matching.
      await insertFacts(t.db, "a", [{ id: "f2", text: "Budget frozen.", kind: "world", tags: [], scope: "personal" }]);
      expect(await ids(t.db, "a", "approved")).toEqual([]);
      expect(await ids(t.db, "a", "frozen")).toEqual(["f2"]);
      // Raw SQL writes (no flush by the writer) are applied before the next search.
      await t.db.$client.execute(
        "UPDATE facts SET text = 'Hiring resumed in March.' WHERE bank_id = 'a' AND id = 'f3'",
      );
      await t.db.$client.execute("UPDATE facts SET tags = '[\"launch\"]' WHERE bank_id = 'a' AND id = 'f2'");
      expect(await ids(t.db, "a", "paused")).toEqual([]);
      expect(await ids(t.db, "a", "march")).toEqual(["f3"]);
      expect(await ids(t.db, "a", "launch")).toEqual([inserted[1], "f1", "f2"].sort());
      await t.db.$client.execute("DELETE FROM facts WHERE bank_id = 'a' AND id = 'f1'");
      expect(await ids(t.db, "a", "ship")).toEqual([...inserted].sort());
      const stems = ["ship", "launch", "march", "budget"];
      const incremental = await termDocumentFrequencies(t.db, "a", stems);
      const ranked = (await searchFacts(t.db, { ...q, bankId: "a", query: "ship launch" })).map((f) => f.id);
      // The same rows indexed from scratch: the same statistics and ranking.
      await ensureBankIndex(t.db, "a");
      expect(await termDocumentFrequencies(t.db, "a", stems)).toEqual(incremental);
      expect((await searchFacts(t.db, { ...q, bankId: "a", query: "ship launch" })).map((f) => f.id)).toEqual(ranked);
      // Re-import replaces everything the index held.
      await importBundle(t.db, bundle("a", ["Only this remains."]), { replace: true });
      expect(await ids(t.db, "a", "ship")).toEqual([]);
      expect(await ids(t.db, "a", "remains")).toEqual(["f1"]);
      expect((await termDocumentFrequencies(t.db, "a", ["ship", "remain"])).frequencies).toEqual(
        new Map([["remain", 1]]),
      );
      // A mental model written after the import is found.
      await saveMentalModel(t.db, {
        bankId: "a",
        name: "Remains",
        sourceQuery: "what remains",
        content: "One fact.",
        tags: [],
        expectedVersion: 0,
        refreshedAt: null,
        staleOverride: null,
      });
      expect(await searchMentalModelIds(t.db, { ...q, bankId: "a", query: "remains" })).toHaveLength(1);
    } finally {
      t.cleanup();
    }
  });
});

/** The bank's objects in the file: every sqlite_master row named after one of its indexes. */
async function schemaRows(db: Parameters<typeof searchFacts>[0], bankId: string): Promise<string[]> {
  const { rows } = await db.$client.execute("SELECT name FROM sqlite_master ORDER BY name");
  const prefixes = SEARCHED_TABLES.map((table) => ftsTable(table, bankId));
  return rows.map((r) => String(r.name)).filter((n) => prefixes.some((p) => n === p || n.startsWith(`${p}_`)));
}

const fact = (id: string, bankId: string, text: string) =>
  `INSERT INTO facts (id, bank_id, text, kind, tags, scope, recorded_at, updated_at) VALUES ('${id}', '${bankId}', '${text}', 'world', '[]', 'personal', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`;
const observation = (id: string, bankId: string, text: string) =>
  `INSERT INTO observations (id, bank_id, text, tags, scope, source_fact_ids, updated_at) VALUES ('${id}', '${bankId}', '${text}', '[]', 'personal', '[]', '2026-01-02T00:00:00.000Z')`;

describe("schema objects per bank (docs/performance.md#import-into-a-new-bank)", () => {
  it("a new bank gets an index only for the tiers it holds rows of, and no vocab table in the file", async () => {
    const t = await openTempDb("writes-lazy-tiers");
    try {
      await importBundle(t.db, bundle("a", ["We ship on the 20th.", "Budget approved."]));
      // One FTS5 table and its four shadow tables: the facts tier only.
      const fts = ftsTable("facts", "a");
      expect(await schemaRows(t.db, "a")).toEqual(
        [fts, ...["config", "data", "docsize", "idx"].map((s) => `${fts}_${s}`)].sort(),
      );
      // The tiers without rows find nothing, and the offline model's statistics read what there is.
      expect(await searchObservations(t.db, { ...q, bankId: "a", query: "ship" })).toEqual([]);
      expect(await searchMentalModelIds(t.db, { ...q, bankId: "a", query: "ship" })).toEqual([]);
      // The probe's batched mental-model search (one entry per query) finds nothing too.
      expect(await searchMentalModelTextsMany(t.db, { ...q, bankId: "a" }, ["ship", "budget"])).toEqual([
        { hits: [] },
        { hits: [] },
      ]);
      expect(await termDocumentFrequencies(t.db, "a", ["ship", "budget", "zebra"])).toEqual({
        documents: 2,
        frequencies: new Map([
          ["ship", 1],
          ["budget", 1],
        ]),
      });
      expect(await schemaRows(t.db, "a")).toHaveLength(5);
      // A tier's first row (written without a flush: raw SQL, as consolidation leaves it pending)
      // makes its index, at the next search of any tier.
      await t.db.$client.execute(observation("o1", "a", "Shipping dates hold."));
      expect((await searchFacts(t.db, { ...q, bankId: "a", query: "budget" })).map((f) => f.id)).toEqual(["f2"]);
      expect(await bankIndexes(t.db, "a")).toEqual([ftsTable("facts", "a"), ftsTable("observations", "a")]);
      expect((await searchObservations(t.db, { ...q, bankId: "a", query: "ship" })).map((o) => o.id)).toEqual(["o1"]);
      // Or at the search of that very tier, whose index does not exist yet.
      await saveMentalModel(t.db, {
        bankId: "a",
        name: "Ship dates",
        sourceQuery: "when do we ship",
        content: "The 20th.",
        tags: [],
        expectedVersion: 0,
        refreshedAt: null,
        staleOverride: null,
      });
      expect(await searchMentalModelIds(t.db, { ...q, bankId: "a", query: "ship" })).toHaveLength(1);
      expect(await bankIndexes(t.db, "a")).toHaveLength(3);
      const many = await searchMentalModelTextsMany(t.db, { ...q, bankId: "a" }, ["ship", "budget"]);
      expect(many.map((m) => ("hits" in m ? m.hits.map((h) => h.name) : m))).toEqual([["Ship dates"], []]);
      expect((await termDocumentFrequencies(t.db, "a", ["ship"])).frequencies).toEqual(new Map([["ship", 3]]));
      const files = await t.db.$client.execute("SELECT name FROM sqlite_master WHERE name LIKE '%vocab%'");
      expect(files.rows).toEqual([]);
    } finally {
      t.cleanup();
    }
  });

  it("a tier whose rows have no index and nothing pending (raw SQL with the triggers off) is built by its first search", async () => {
    const t = await openTempDb("writes-lazy-raw");
    try {
      await importBundle(t.db, bundle("a", ["We ship on the 20th."]));
      const triggers = await t.db.$client.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'observations'",
      );
      await t.db.$client.batch(
        [
          ...triggers.rows.map((r) => `DROP TRIGGER ${String(r.name)}`),
          observation("o1", "a", "Shipping dates hold."),
          ...triggers.rows.map((r) => String(r.sql)),
        ],
        "write",
      );
      expect((await searchObservations(t.db, { ...q, bankId: "a", query: "ship" })).map((o) => o.id)).toEqual(["o1"]);
      expect((await termDocumentFrequencies(t.db, "a", ["ship"])).frequencies).toEqual(new Map([["ship", 2]]));
    } finally {
      t.cleanup();
    }
  });

  it("a replace by JSON lines keeps only the tiers the new rows fill", async () => {
    const t = await openTempDb("writes-lazy-replace");
    try {
      await importBundle(t.db, {
        ...bundle("a", ["We ship on the 20th."]),
        observations: [
          {
            id: "o1",
            text: "Ship dates hold.",
            tags: [],
            scope: "personal",
            sourceFactIds: ["f1"],
            updatedAt: "2026-01-02T00:00:00Z",
          },
        ],
      });
      expect(await bankIndexes(t.db, "a")).toHaveLength(2);
      const lines = [
        JSON.stringify({ version: 1, bank: { id: "a", name: "a", permittedTeams: [] } }),
        JSON.stringify({
          fact: {
            id: "g1",
            text: "Zebras crossed.",
            kind: "world",
            tags: [],
            scope: "personal",
            recordedAt: "2026-01-01T00:00:00Z",
          },
        }),
      ];
      async function* source() {
        yield* lines;
      }
      await importBundleLines(t.db, source(), { replace: true, ownerId: "test-owner" });
      expect(await bankIndexes(t.db, "a")).toEqual([ftsTable("facts", "a")]);
      expect((await searchFacts(t.db, { ...q, bankId: "a", query: "zebras" })).map((f) => f.id)).toEqual(["g1"]);
      expect(await searchObservations(t.db, { ...q, bankId: "a", query: "ship" })).toEqual([]);
      const left = await t.db.$client.execute(
        "SELECT name FROM sqlite_master WHERE name LIKE '%\\_fts\\_%' ESCAPE '\\'",
      );
      expect(left.rows.map((r) => String(r.name)).filter((n) => !n.startsWith(ftsTable("facts", "a")))).toEqual([]);
    } finally {
      t.cleanup();
    }
  });

  it("a read-only file with rows still pending is searched as its index is, without looping", async () => {
    const t = await openTempDb("writes-readonly-pending");
    try {
      await importBundle(t.db, bundle("a", ["We ship on the 20th."]));
      // A write left pending (as consolidation leaves it), then the file turns read-only.
      await t.db.$client.execute(observation("o1", "a", "Shipping dates hold."));
      await t.db.$client.execute(fact("f9", "a", "Ship the docs too."));
      await t.db.$client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
      const client = createReadOnlyFileClient(t.path, 1_000, false);
      const ro = drizzle({ client, schema }) as unknown as Parameters<typeof searchFacts>[0];
      try {
        // The index as it was: f1 (f9 is pending, and a read-only file cannot apply it).
        expect((await searchFacts(ro, { ...q, bankId: "a", query: "ship" })).map((f) => f.id)).toEqual(["f1"]);
        expect(await searchObservations(ro, { ...q, bankId: "a", query: "ship" })).toEqual([]);
        // The offline model's statistics: every row counted, words from the indexes there are.
        expect(await termDocumentFrequencies(ro, "a", ["ship"])).toEqual({
          documents: 3,
          frequencies: new Map([["ship", 1]]),
        });
      } finally {
        client.close();
      }
    } finally {
      t.cleanup();
    }
  });

  it("upgrades a file of the previous release: in-file vocab tables and empty tier indexes are dropped, answers unchanged", async () => {
    const t = await openTempDb("writes-upgrade-vocab");
    try {
      await importBundle(t.db, bundle("a", ["We ship on the 20th.", "Budget approved.", "Ship ship ship."]));
      await importBundle(t.db, bundle("b", ["Zebras ship."]));
      // The previous release: all three tiers indexed for every bank, each with its vocab table in the file.
      const columns = {
        facts: "text, tags",
        observations: "text, tags",
        mental_models: "name, source_query, content, tags",
      };
      for (const bankId of ["a", "b"])
        for (const table of SEARCHED_TABLES) {
          const fts = ftsTable(table, bankId);
          await t.db.$client.batch(
            [
              `CREATE VIRTUAL TABLE IF NOT EXISTS ${fts} USING fts5(${columns[table]}, content='', contentless_delete=1, tokenize='porter unicode61')`,
              `CREATE VIRTUAL TABLE main.${fts}_vocab USING fts5vocab(${fts}, 'row')`,
            ],
            "write",
          );
        }
      expect(await schemaRows(t.db, "a")).toHaveLength(18);
      const before = {
        ranked: (await searchFacts(t.db, { ...q, bankId: "a", query: "ship budget" })).map((f) => f.id),
        stats: await termDocumentFrequencies(t.db, "a", ["ship", "budget"]),
      };
      const db = await openDb(`file:${t.path}`);
      try {
        expect(await schemaRows(db, "a")).toHaveLength(5);
        expect(await schemaRows(db, "b")).toHaveLength(5);
        expect((await searchFacts(db, { ...q, bankId: "a", query: "ship budget" })).map((f) => f.id)).toEqual(
          before.ranked,
        );
        expect(await termDocumentFrequencies(db, "a", ["ship", "budget"])).toEqual(before.stats);
        expect(await ids(db, "b", "ship")).toEqual(["f1"]);
        // Opening again finds nothing to do.
        expect(await syncSearchIndexes(db)).toEqual({ built: [], dropped: [] });
        expect(await schemaRows(db, "a")).toHaveLength(5);
      } finally {
        db.$client.close();
      }
    } finally {
      t.cleanup();
    }
  });
});

/** The per-bank index of migrations 0005–0008: external content over a view, three triggers per bank. */
function legacyBankIndex(bankId: string): string[] {
  const columns: Record<string, string[]> = {
    facts: ["text", "tags"],
    observations: ["text", "tags"],
    mental_models: ["name", "source_query", "content", "tags"],
  };
  return SEARCHED_TABLES.flatMap((table) => {
    const fts = ftsTable(table, bankId);
    const list = columns[table]!.join(", ");
    const values = (row: string) => columns[table]!.map((c) => `${row}.${c}`).join(", ");
    return [
      `CREATE VIEW ${fts}_rows AS SELECT pk, ${list} FROM ${table} WHERE bank_id = '${bankId}'`,
      `CREATE VIRTUAL TABLE ${fts} USING fts5(${list}, content='${fts}_rows', content_rowid='pk', tokenize='porter unicode61')`,
      `CREATE TRIGGER ${fts}_ai AFTER INSERT ON ${table} WHEN new.bank_id = '${bankId}' BEGIN
         INSERT INTO ${fts}(rowid, ${list}) VALUES (new.pk, ${values("new")}); END`,
      `CREATE TRIGGER ${fts}_ad AFTER DELETE ON ${table} WHEN old.bank_id = '${bankId}' BEGIN
         INSERT INTO ${fts}(${fts}, rowid, ${list}) VALUES ('delete', old.pk, ${values("old")}); END`,
      `CREATE TRIGGER ${fts}_au AFTER UPDATE OF ${list}, bank_id ON ${table}
         WHEN old.bank_id = '${bankId}' OR new.bank_id = '${bankId}' BEGIN
         INSERT INTO ${fts}(${fts}, rowid, ${list}) SELECT 'delete', old.pk, ${values("old")} WHERE old.bank_id = '${bankId}';
         INSERT INTO ${fts}(rowid, ${list}) SELECT new.pk, ${values("new")} WHERE new.bank_id = '${bankId}'; END`,
      `INSERT INTO ${fts}(${fts}) VALUES ('rebuild')`,
      `CREATE VIRTUAL TABLE ${fts}_vocab USING fts5vocab(${fts}, 'row')`,
    ];
  });
}

describe("upgrade from per-bank triggers (migrations 0005–0008)", () => {
  it("drops every per-bank trigger, rebuilds each bank's index, and search and writes work after", async () => {
    const dir = mkdtempSync(resolve(process.cwd(), "test/.tmp/upgrade-triggers-"));
    try {
      const { url, client } = await migratedUpTo(dir, "0009");
      await client.execute("INSERT INTO banks (id, name, permitted_teams) VALUES ('a', 'A', '[]'), ('b', 'B', '[]')");
      for (const statement of [...legacyBankIndex("a"), ...legacyBankIndex("b")]) await client.execute(statement);
      await client.execute(`INSERT INTO facts (id, bank_id, text, kind, tags, scope, recorded_at, updated_at) VALUES
        ('f1', 'a', 'We ship on the 20th.', 'world', '["launch"]', 'personal', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'),
        ('f1', 'b', 'We ship on the 21st.', 'world', '[]', 'personal', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`);
      expect(
        (
          await client.execute(
            `SELECT rowid FROM ${ftsTable("facts", "a")} WHERE ${ftsTable("facts", "a")} MATCH 'ship'`,
          )
        ).rows,
      ).toHaveLength(1);
      client.close();

      const db = await openDb(url);
      try {
        const triggers = await db.$client.execute(
          "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%\\_fts\\_%' ESCAPE '\\'",
        );
        expect(triggers.rows).toEqual([]);
        const views = await db.$client.execute("SELECT name FROM sqlite_master WHERE type = 'view'");
        expect(views.rows).toEqual([]);
        expect(await ids(db, "a", "launch")).toEqual(["f1"]);
        expect(await ids(db, "b", "ship")).toEqual(["f1"]);
        await insertFacts(db, "b", [
          { id: "f2", text: "Ship date moved.", kind: "world", tags: [], scope: "personal" },
        ]);
        await db.$client.execute(
          "UPDATE facts SET text = 'Launch moved to the 27th.' WHERE bank_id = 'a' AND id = 'f1'",
        );
        expect(await ids(db, "a", "27th")).toEqual(["f1"]);
        expect(await ids(db, "a", "ship")).toEqual([]);
        expect(await ids(db, "b", "ship")).toEqual(["f1", "f2"]);
      } finally {
        db.$client.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
