/**
 * Issue #31: a JSONL `--replace` swaps the staged bank in by its storage key (db/queries/bank-storage.ts,
 * docs/operations.md#big-imports): the swap's transaction touches as many rows whatever the banks'
 * sizes, every reader sees the replaced bank as it would see the same file imported into a new one,
 * the old rows and indexes are removed afterwards, and a database of the previous release upgrades.
 */
import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import type { Client, InStatement, Transaction, TransactionMode } from "@libsql/client";
import { describe, expect, it } from "vitest";
import { type Db, openDb } from "@/db/client";
import { getBank, listBanks } from "@/db/queries/banks";
import { bankScopes, browseFacts, browseObservations, tierCounts } from "@/db/queries/browse";
import { listMentalModels } from "@/db/queries/mental-models";
import { insertFacts } from "@/db/queries/retain";
import { createRun, getRun } from "@/db/queries/runs";
import { countMemories, observationFreshness, searchFacts, searchObservations } from "@/db/queries/search";
import { syncSearchIndexes } from "@/db/queries/search-index";
import { termDocumentFrequencies } from "@/db/queries/term-stats";
import { RetainBody } from "@/lib/contracts/memory";
import { runOwner } from "@/lib/server/runtime/run-owner";
import {
  exportBundle,
  importBundle,
  importBundleLines,
  removeAbandonedImports,
  removeRetiredStorage,
} from "@/lib/server/services/bundle-io";
import { retainFacts } from "@/lib/server/services/retain";
import { migratedUpTo, openTempDb } from "./temp-db";

const header = (id: string, name = `Bank ${id}`) =>
  JSON.stringify({ version: 1, bank: { id, name, permittedTeams: [] } });
const fact = (i: number, text: string) =>
  JSON.stringify({
    fact: {
      id: `f${i}`,
      text,
      kind: "world",
      tags: i % 2 ? ["billing"] : [],
      scope: i % 3 ? "personal" : "team:platform",
      recordedAt: `2026-01-${String((i % 28) + 1).padStart(2, "0")}T00:00:00Z`,
      ...(i % 5 === 0 ? { speaker: "Ann", sessionId: `s${i % 7}`, position: i } : {}),
    },
  });
const observation = (id: string, sources: string[], text: string) =>
  JSON.stringify({
    observation: {
      id,
      text,
      tags: ["billing"],
      scope: "personal",
      sourceFactIds: sources,
      updatedAt: "2026-02-01T00:00:00Z",
    },
  });
const model = (content: string) =>
  JSON.stringify({
    mentalModel: {
      id: "mm1",
      name: "Billing",
      sourceQuery: "billing",
      content,
      tags: [],
      refreshedAt: "2026-01-15T00:00:00Z",
    },
  });

async function* linesOf(lines: string[]) {
  for (const line of lines) yield line;
}

const oldBank = (n: number) => [
  header("swap", "Old"),
  ...Array.from({ length: n }, (_, i) => fact(i, `Old note ${i}: the quokka budget was approved in week ${i % 52}.`)),
  observation("o1", ["f1", "f2"], "Quokka budgets pass."),
  model("Quokkas."),
];
const newBank = (n: number) => [
  header("swap", "New"),
  ...Array.from({ length: n }, (_, i) => fact(i, `New note ${i}: the wombat launch moved to week ${i % 52}.`)),
  observation("o1", ["f1", "f3"], "Wombat launches slip."),
  model("Wombats."),
];

/**
 * The rows the import's last transaction — the one that makes it visible, the swap — changes on its
 * connection: `total_changes()`, which counts the rows triggers change too (index notes, tag rows).
 */
function countSwapChanges(db: Db): { changes?: number } {
  const seen: { changes?: number } = {};
  const client = db.$client as Client;
  const transaction = client.transaction.bind(client);
  client.transaction = async (mode?: TransactionMode) => {
    const tx: Transaction = await transaction(mode);
    const batch = tx.batch.bind(tx);
    const total = async () => Number((await tx.execute("SELECT total_changes() AS n")).rows[0]?.n);
    tx.batch = async (statements: InStatement[]) => {
      const before = await total();
      const result = await batch(statements);
      const last = statements.at(-1);
      if (
        typeof last === "object" &&
        last.sql.startsWith("UPDATE banks SET import_owner = NULL WHERE id = ? AND import_owner = ?")
      )
        seen.changes = (await total()) - before;
      return result;
    };
    return tx;
  };
  return seen;
}

const count = async (db: Db, sql: string, args: (string | number)[] = []) =>
  Number((await db.$client.execute({ sql, args })).rows[0]?.n);

/** Everything a reader of the bank sees, by every reader of facts and observations. */
async function readerView(db: Db, bankId: string) {
  const scopes = ["personal", "team:platform"] as const;
  const q = { bankId, limit: 10, tags: [], scopes: [...scopes] };
  return {
    export: await exportBundle(db, bankId),
    counts: await tierCounts(db, bankId),
    scopes: await bankScopes(db, bankId),
    browse: await browseFacts(db, { bankId, limit: 5 }),
    browseQuery: await browseFacts(db, { bankId, query: "launch week", limit: 5 }),
    browseIds: await browseFacts(db, { bankId, limit: 5, ids: ["f1", "f5"] }),
    observations: await browseObservations(db, { bankId, limit: 5 }),
    facts: await searchFacts(db, { ...q, query: "wombat launch week 7" }),
    tagged: await searchFacts(db, { ...q, query: "launch", tags: ["billing"] }),
    conversation: await searchFacts(db, { ...q, query: "what did Ann say about week 10" }),
    searchedObservations: await searchObservations(db, { ...q, query: "wombat" }),
    freshness: await observationFreshness(db, q),
    memories: await countMemories(db, q),
    terms: await termDocumentFrequencies(db, bankId, ["wombat", "launch", "quokka"]),
    models: (await listMentalModels(db, bankId)).map(({ bankId: _b, ...m }) => m),
  };
}

describe("import --replace swaps by storage key", () => {
  it("the swap's transaction changes as many rows for a 4,000-fact bank as for a 400-fact one", async () => {
    const touched: number[] = [];
    for (const n of [400, 4_000]) {
      const t = await openTempDb(`swap-o1-${n}`);
      try {
        const ownerId = await runOwner(t.db);
        await importBundleLines(t.db, linesOf(oldBank(n)), { ownerId });
        const swap = countSwapChanges(t.db);
        await importBundleLines(t.db, linesOf(newBank(n)), { replace: true, ownerId, rowsPerCommit: 1_000 });
        expect(swap.changes).toBeDefined();
        touched.push(swap.changes!);
        expect((await exportBundle(t.db, "swap"))?.facts).toHaveLength(n);
      } finally {
        t.cleanup();
      }
    }
    // The old swap moved n rows and deleted n (thousands of changes with their tags and index notes).
    expect(touched[1]).toBe(touched[0]);
    expect(touched[0]).toBeLessThan(50);
  }, 120_000);

  it("every reader sees the replaced bank as the same file imported into a new bank, and the old storage is removed", async () => {
    const t = await openTempDb("swap-readers");
    const fresh = await openTempDb("swap-fresh");
    try {
      const ownerId = await runOwner(t.db);
      await importBundleLines(t.db, linesOf(oldBank(1_500)), { ownerId });
      const run = await createRun(t.db, {
        id: "run_before",
        bankId: "swap",
        question: "billing?",
        skill: null,
        budget: "low",
        mode: "facts",
        scope: "personal",
        model: { kind: "offline", name: "offline" },
      });
      await importBundleLines(t.db, linesOf(newBank(1_200)), { replace: true, ownerId, rowsPerCommit: 300 });
      await importBundleLines(fresh.db, linesOf(newBank(1_200)), { ownerId: await runOwner(fresh.db) });

      const replaced = await readerView(t.db, "swap");
      expect(replaced).toEqual(await readerView(fresh.db, "swap"));
      expect(replaced.export?.bank.name).toBe("New");
      expect(replaced.facts.length).toBeGreaterThan(0);
      expect(
        await searchFacts(t.db, { bankId: "swap", query: "quokka", limit: 5, tags: [], scopes: ["personal"] }),
      ).toEqual([]);
      // The run made before the replace still names the bank.
      expect((await getRun(t.db, run.id))?.bankId).toBe("swap");

      // The rows live under the staging's key now; the old ones (under the bank's own id) are gone,
      // and so are the old indexes. The storage row is no bank.
      const storage = String(
        (await t.db.$client.execute("SELECT storage_id FROM banks WHERE id = 'swap'")).rows[0]?.storage_id,
      );
      expect(storage).toMatch(/^~import-/);
      expect(await count(t.db, "SELECT count(*) AS n FROM facts WHERE bank_id = 'swap'")).toBe(0);
      expect(await count(t.db, "SELECT count(*) AS n FROM facts WHERE bank_id = ?", [storage])).toBe(1_200);
      expect(await count(t.db, "SELECT count(*) AS n FROM observations")).toBe(1);
      expect(await count(t.db, "SELECT count(*) AS n FROM search_index_pending")).toBe(0);
      expect((await listBanks(t.db)).map((b) => b.id)).toEqual(["swap"]);
      expect(await getBank(t.db, storage)).toBeNull();
      expect(await exportBundle(t.db, storage)).toBeNull();
      const indexes = async () =>
        (
          await t.db.$client.execute(
            "SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%' AND name LIKE '%\\_fts\\_%' ESCAPE '\\' ORDER BY name",
          )
        ).rows.map((r) => String(r.name));
      const hex = Buffer.from("swap").toString("hex");
      // One index per tier the bank holds rows of; vocab tables live per connection, not in the file.
      const live = ["facts", "mental_models", "observations"].map((t) => `${t}_fts_${hex}`);
      expect(await indexes()).toEqual(live);

      // The storage row is no bank for a writer either: a retain naming it changes nothing.
      const body = RetainBody.parse({ facts: [{ text: "Sneaked in.", kind: "world" }] });
      await expect(retainFacts(t.db, storage, body)).rejects.toThrow(/unknown bank/);
      await expect(retainFacts(t.db, `${storage}~replaced`, body)).rejects.toThrow(/unknown bank/);
      expect(await count(t.db, "SELECT count(*) AS n FROM facts WHERE text = 'Sneaked in.'")).toBe(0);

      // Writes after the swap go to the storage and are found; opening again changes nothing.
      await insertFacts(t.db, "swap", [
        { text: "The platypus review is on Friday.", kind: "world", scope: "personal", tags: [] },
      ]);
      expect(
        await searchFacts(t.db, { bankId: "swap", query: "platypus", limit: 5, tags: [], scopes: ["personal"] }),
      ).toHaveLength(1);
      expect(await count(t.db, "SELECT count(*) AS n FROM facts WHERE bank_id = ?", [storage])).toBe(1_201);
      expect(await syncSearchIndexes(t.db)).toEqual({ built: [], dropped: [] });

      // A second replace retires the first storage row too; a JSON replace writes into the storage.
      await importBundleLines(t.db, linesOf(newBank(300)), { replace: true, ownerId });
      expect(await count(t.db, "SELECT count(*) AS n FROM banks WHERE id LIKE '~%'")).toBe(1);
      expect(await count(t.db, "SELECT count(*) AS n FROM facts")).toBe(300);
      const bundle = (await exportBundle(fresh.db, "swap"))!;
      await importBundle(t.db, bundle, { replace: true });
      expect(await exportBundle(t.db, "swap")).toEqual(bundle);
      expect(await readerView(t.db, "swap")).toEqual(await readerView(fresh.db, "swap"));
      expect(await indexes()).toEqual(live);
    } finally {
      t.cleanup();
      fresh.cleanup();
    }
  }, 120_000);

  it("old rows a stopped process left are removed by the sweep, never rows a bank reads", async () => {
    const t = await openTempDb("swap-sweep");
    try {
      const ownerId = await runOwner(t.db);
      await importBundleLines(t.db, linesOf(oldBank(50)), { ownerId });
      await importBundleLines(t.db, linesOf(newBank(50)), { replace: true, ownerId });
      const storage = String(
        (await t.db.$client.execute("SELECT storage_id FROM banks WHERE id = 'swap'")).rows[0]?.storage_id,
      );
      // What a process killed right after the swap leaves: old rows under the bank's own id (even
      // with the ids of current ones) and a retired storage row with rows of its own.
      await t.db.$client.batch(
        [
          "INSERT INTO banks (id, name, permitted_teams) VALUES ('~import-old', 'Old', '[]')",
          `INSERT INTO facts (id, bank_id, text, kind, tags, scope, recorded_at, updated_at) VALUES
             ('f1', 'swap', 'Left quokka', 'world', '["billing"]', 'personal', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'),
             ('f1', '~import-old', 'Left quokka too', 'world', '[]', 'personal', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
        ],
        "write",
      );
      const before = await readerView(t.db, "swap");
      expect(before.export?.facts).toHaveLength(50);
      // Search still flushes what the garbage noted, and finds none of it.
      expect(
        await searchFacts(t.db, { bankId: "swap", query: "left quokka", limit: 5, tags: [], scopes: ["personal"] }),
      ).toEqual([]);
      expect(await removeAbandonedImports(t.db, async () => true)).toEqual([]);
      expect(await count(t.db, "SELECT count(*) AS n FROM facts WHERE bank_id <> ?", [storage])).toBe(0);
      expect(await count(t.db, "SELECT count(*) AS n FROM banks WHERE id = '~import-old'")).toBe(0);
      expect(await count(t.db, "SELECT count(*) AS n FROM memory_tags WHERE bank_id <> ?", [storage])).toBe(0);
      expect(await readerView(t.db, "swap")).toEqual(before);
      // Nothing left: another sweep finds nothing to do (no write).
      expect(await removeRetiredStorage(t.db)).toEqual([]);

      // A sweep removes for a bounded time (a server's heartbeat waits for it): the rest is the next one's.
      await t.db.$client.execute({
        sql: `INSERT INTO facts (id, bank_id, text, kind, tags, scope, recorded_at, updated_at)
                SELECT 'g' || value, 'swap', 'Left ' || value, 'world', '[]', 'personal', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'
                FROM generate_series(1, 12000)`,
      });
      expect(await removeRetiredStorage(t.db, { budgetMs: 0 })).toEqual(["swap"]);
      const left = await count(t.db, "SELECT count(*) AS n FROM facts WHERE bank_id = 'swap'");
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThan(12_000);
      await removeAbandonedImports(t.db, async () => true);
      await removeRetiredStorage(t.db);
      expect(await count(t.db, "SELECT count(*) AS n FROM facts WHERE bank_id = 'swap'")).toBe(0);
      expect(await readerView(t.db, "swap")).toEqual(before);
    } finally {
      t.cleanup();
    }
  });

  it("two replaces of one bank at once: the last swap wins whole, and nothing of the other is left", async () => {
    const t = await openTempDb("swap-race");
    try {
      const ownerId = await runOwner(t.db);
      await importBundleLines(t.db, linesOf(oldBank(300)), { ownerId });
      const other = (n: number) => [
        header("swap", "Other"),
        ...Array.from({ length: n }, (_, i) => fact(i, `Other note ${i}: the numbat audit is in week ${i % 52}.`)),
      ];
      const results = await Promise.allSettled([
        importBundleLines(t.db, linesOf(newBank(900)), { replace: true, ownerId, rowsPerCommit: 100 }),
        importBundleLines(t.db, linesOf(other(700)), { replace: true, ownerId, rowsPerCommit: 100 }),
      ]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
      const bank = await exportBundle(t.db, "swap");
      const name = bank?.bank.name;
      expect(["New", "Other"]).toContain(name);
      const word = name === "New" ? "wombat" : "numbat";
      expect(bank?.facts).toHaveLength(name === "New" ? 900 : 700);
      expect(bank?.facts.every((f) => f.text.includes(word))).toBe(true);
      await removeRetiredStorage(t.db);
      expect(await count(t.db, "SELECT count(*) AS n FROM facts")).toBe(bank?.facts.length ?? -1);
      expect(await count(t.db, "SELECT count(*) AS n FROM banks WHERE id LIKE '~%'")).toBe(1);
      expect(await count(t.db, "SELECT count(*) AS n FROM search_index_pending")).toBe(0);
      const q = { bankId: "swap", limit: 5, tags: [], scopes: ["personal" as const] };
      expect(await searchFacts(t.db, { ...q, query: word })).toHaveLength(5);
      expect(await searchFacts(t.db, { ...q, query: word === "wombat" ? "numbat" : "wombat" })).toEqual([]);
      expect(await searchFacts(t.db, { ...q, query: "quokka" })).toEqual([]);
    } finally {
      t.cleanup();
    }
  }, 120_000);

  it("a staging a sweep has begun to remove is never swapped in half removed: the replace is refused, the old bank stays", async () => {
    const t = await openTempDb("swap-removing");
    try {
      const ownerId = await runOwner(t.db);
      await importBundleLines(t.db, linesOf(oldBank(100)), { ownerId });
      const before = await exportBundle(t.db, "swap");
      let release = () => {};
      const gate = new Promise<void>((r) => (release = r));
      let reached = () => {};
      const staged = new Promise<void>((r) => (reached = r));
      async function* lines() {
        for (const [i, line] of newBank(1_000).entries()) {
          if (i === 900) {
            reached();
            await gate;
          }
          yield line;
        }
      }
      const importing = importBundleLines(t.db, lines(), { replace: true, ownerId, rowsPerCommit: 100 }).catch(
        (e: unknown) => e,
      );
      await staged;
      // A sweep that judged the importer gone removes its staging; right after the removal's first
      // chunk the import goes on to its end.
      const client = t.db.$client;
      const batch = client.batch.bind(client);
      let resumed = false;
      client.batch = async (statements, mode) => {
        const result = await batch(statements, mode);
        if (!resumed && JSON.stringify(statements).includes("LIMIT 5000")) {
          resumed = true;
          release();
          await importing;
        }
        return result;
      };
      expect(await removeAbandonedImports(t.db, async (owner) => owner === ownerId)).toHaveLength(1);
      expect(resumed).toBe(true);
      expect(String(await importing)).toMatch(/staging was removed/);
      expect(await exportBundle(t.db, "swap")).toEqual(before);
      expect(await count(t.db, "SELECT count(*) AS n FROM facts")).toBe(100);
      expect(await count(t.db, "SELECT count(*) AS n FROM banks WHERE id LIKE '~%'")).toBe(0);
    } finally {
      t.cleanup();
    }
  });

  it("a database of the previous release upgrades when opened: its banks read as before and replace by storage key", async () => {
    const dir = resolve(process.cwd(), "test/.tmp", `swap-upgrade-${process.pid}-${Date.now()}`);
    mkdirSync(dir, { recursive: true });
    try {
      const { url, client } = await migratedUpTo(dir, "0018");
      const columns = (await client.execute("PRAGMA table_info(banks)")).rows.map((r) => String(r.name));
      expect(columns).not.toContain("storage_id");
      await client.batch(
        [
          "INSERT INTO banks (id, name, permitted_teams) VALUES ('a', 'A', '[]'), ('b', 'B', '[]')",
          `INSERT INTO facts (id, bank_id, text, kind, tags, scope, recorded_at, updated_at) VALUES
             ('f1', 'a', 'We ship on the 20th.', 'world', '["launch"]', 'personal', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'),
             ('f1', 'b', 'We ship on the 21st.', 'world', '["launch"]', 'personal', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
          `INSERT INTO mental_models (id, bank_id, name, source_query, content, tags, refreshed_at, stale_override, based_on_ids, version, updated_at)
             VALUES ('mm1', 'a', 'Dates', 'when', 'The 20th.', '[]', '2025-12-01T00:00:00.000Z', NULL, '[]', 1, NULL)`,
        ],
        "write",
      );
      client.close();
      const db = await openDb(url);
      try {
        const q = { query: "ship", limit: 5, tags: [], scopes: ["personal" as const] };
        expect((await searchFacts(db, { ...q, bankId: "a" })).map((f) => f.text)).toEqual(["We ship on the 20th."]);
        expect((await searchFacts(db, { ...q, bankId: "b" })).map((f) => f.text)).toEqual(["We ship on the 21st."]);
        expect((await listMentalModels(db, "a"))[0]?.isStale).toBe(true);
        expect(await count(db, "SELECT count(*) AS n FROM banks WHERE storage_id IS NOT NULL")).toBe(0);
        // A replace of an upgraded bank swaps by storage key and leaves the other bank alone.
        const ownerId = await runOwner(db);
        await importBundleLines(db, linesOf([header("a"), fact(1, "We ship on the 27th.")]), {
          replace: true,
          ownerId,
        });
        expect((await searchFacts(db, { ...q, bankId: "a" })).map((f) => f.text)).toEqual(["We ship on the 27th."]);
        expect((await searchFacts(db, { ...q, bankId: "b" })).map((f) => f.text)).toEqual(["We ship on the 21st."]);
        expect(await count(db, "SELECT count(*) AS n FROM facts WHERE bank_id = 'a'")).toBe(0);
      } finally {
        db.$client.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
