/**
 * Review of issue #31's storage changes: a bank replaced by a JSONL `--replace` (its rows under a
 * storage key, db/queries/bank-storage.ts) searches exactly as the same file imported into a new
 * bank — on the connection that replaced it and on every connection opened afterwards (opening a
 * database brings its search indexes up to date: db/queries/search-index.ts `syncSearchIndexes`) —
 * whichever tiers the old and the new bank hold (a tier can be empty before or after the replace).
 */
import type { TransactionMode } from "@libsql/client";
import { describe, expect, it } from "vitest";
import { type Db, openDb } from "@/db/client";
import { tierCounts } from "@/db/queries/browse";
import { listMentalModels } from "@/db/queries/mental-models";
import { insertFacts } from "@/db/queries/retain";
import { countMemories, searchFacts, searchMentalModelTexts, searchObservations } from "@/db/queries/search";
import { syncSearchIndexes } from "@/db/queries/search-index";
import { termDocumentFrequencies } from "@/db/queries/term-stats";
import { runOwner } from "@/lib/server/runtime/run-owner";
import { exportBundle, importBundleLines } from "@/lib/server/services/bundle-io";
import { openTempDb } from "./temp-db";

type Tiers = { observations: boolean; models: boolean };

/** A bank's JSONL: `word` in every text, observations and a mental model when asked. */
function bankLines(word: string, facts: number, tiers: Tiers): string[] {
  const lines = [JSON.stringify({ version: 1, bank: { id: "twin", name: `Bank ${word}`, permittedTeams: [] } })];
  for (let i = 0; i < facts; i++)
    lines.push(
      JSON.stringify({
        fact: {
          id: `f${i}`,
          text: `Note ${i}: the ${word} launch moved to week ${i % 52}${i % 4 ? "" : " after the billing review"}.`,
          kind: "world",
          tags: i % 2 ? ["billing"] : [],
          scope: "personal",
          recordedAt: "2026-01-02T00:00:00Z",
        },
      }),
    );
  if (tiers.observations)
    lines.push(
      JSON.stringify({
        observation: {
          id: "o1",
          text: `The ${word} launch keeps slipping.`,
          tags: [],
          scope: "personal",
          sourceFactIds: ["f1", "f2"],
          updatedAt: "2026-02-01T00:00:00Z",
        },
      }),
    );
  if (tiers.models)
    lines.push(
      JSON.stringify({
        mentalModel: {
          id: "mm1",
          name: `The ${word} launch`,
          sourceQuery: `${word} launch`,
          content: `The ${word} launch moved twice.`,
          tags: [],
          refreshedAt: "2026-01-15T00:00:00Z",
        },
      }),
    );
  return lines;
}

async function* linesOf(lines: string[]) {
  for (const line of lines) yield line;
}

/** What a reader of the bank finds: every tier's search, the term statistics, the counts. */
async function searchView(db: Db, word: string) {
  const q = { bankId: "twin", limit: 10, tags: [], scopes: ["personal" as const] };
  return {
    facts: await searchFacts(db, { ...q, query: `${word} launch week 7` }),
    tagged: await searchFacts(db, { ...q, query: "billing review", tags: ["billing"] }),
    stale: await searchFacts(db, { ...q, query: "quokka" }),
    observations: await searchObservations(db, { ...q, query: `${word} slipping` }),
    staleObservations: await searchObservations(db, { ...q, query: "quokka" }),
    models: await searchMentalModelTexts(db, { ...q, query: `${word} launch` }),
    staleModels: await searchMentalModelTexts(db, { ...q, query: "quokka" }),
    terms: await termDocumentFrequencies(db, "twin", [word, "launch", "quokka", "billing"]),
    memories: await countMemories(db, q),
    counts: await tierCounts(db, "twin"),
    listed: (await listMentalModels(db, "twin")).map((m) => m.id),
    export: await exportBundle(db, "twin"),
  };
}

const CASES: { name: string; old: Tiers; next: Tiers }[] = [
  {
    name: "every tier before and after",
    old: { observations: true, models: true },
    next: { observations: true, models: true },
  },
  {
    name: "observations and models before, facts only after",
    old: { observations: true, models: true },
    next: { observations: false, models: false },
  },
  {
    name: "facts only before, every tier after",
    old: { observations: false, models: false },
    next: { observations: true, models: true },
  },
];

describe("a replaced bank searches as a new bank with the same file, now and after reopening", () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const t = await openTempDb("replace-reopen");
      const fresh = await openTempDb("replace-reopen-fresh");
      try {
        const ownerId = await runOwner(t.db);
        await importBundleLines(t.db, linesOf(bankLines("quokka", 400, c.old)), { ownerId });
        await importBundleLines(t.db, linesOf(bankLines("wombat", 300, c.next)), {
          replace: true,
          ownerId,
          rowsPerCommit: 100,
        });
        await importBundleLines(fresh.db, linesOf(bankLines("wombat", 300, c.next)), {
          ownerId: await runOwner(fresh.db),
        });
        const expected = await searchView(fresh.db, "wombat");
        expect(expected.facts.length).toBeGreaterThan(0);
        expect(expected.observations.length).toBe(c.next.observations ? 1 : 0);
        expect(expected.models.length).toBe(c.next.models ? 1 : 0);
        expect(expected.stale).toEqual([]);

        expect(await searchView(t.db, "wombat")).toEqual(expected);
        await syncSearchIndexes(t.db);
        expect(await searchView(t.db, "wombat")).toEqual(expected);

        // Another connection to the file (a server started afterwards, the next CLI command).
        const again = await openDb(`file:${t.path}`);
        try {
          expect(await searchView(again, "wombat")).toEqual(expected);
        } finally {
          again.$client.close();
        }
        // And the connection that replaced it, after that one opened the file.
        expect(await searchView(t.db, "wombat")).toEqual(expected);
      } finally {
        t.cleanup();
        fresh.cleanup();
      }
    }, 120_000);
  }
});

describe("a replace racing a write that makes the bank's first index", () => {
  it("a retain that gives an empty bank its first facts just before the swap: the replace still swaps whole", async () => {
    const t = await openTempDb("replace-race");
    try {
      const ownerId = await runOwner(t.db);
      // A bank with no memories yet: no index at all (a tier gets one with its first rows).
      await importBundleLines(t.db, linesOf(bankLines("empty", 0, { observations: false, models: false })), {
        ownerId,
      });
      // Just before the replace's last transaction (the swap: every row is staged), a writer
      // retains the bank's first facts, which gives it its first index.
      const client = t.db.$client;
      const transaction = client.transaction.bind(client);
      let raced = false;
      client.transaction = (async (mode?: TransactionMode) => {
        const staged = await client.execute("SELECT count(*) AS n FROM facts WHERE bank_id LIKE '~import-%'");
        if (!raced && Number(staged.rows[0]?.n) === 120) {
          raced = true;
          await insertFacts(t.db, "twin", [{ text: "The platypus note.", kind: "world", scope: "personal", tags: [] }]);
        }
        return transaction(mode);
      }) as typeof client.transaction;
      try {
        await importBundleLines(t.db, linesOf(bankLines("wombat", 120, { observations: false, models: false })), {
          replace: true,
          ownerId,
          rowsPerCommit: 50,
        });
      } finally {
        client.transaction = transaction;
      }
      expect(raced).toBe(true);
      const q = { bankId: "twin", limit: 5, tags: [], scopes: ["personal" as const] };
      expect(await searchFacts(t.db, { ...q, query: "wombat" })).toHaveLength(5);
      // The retained fact went to the storage the swap retired: replaced with the rest.
      expect(await searchFacts(t.db, { ...q, query: "platypus" })).toEqual([]);
      expect((await exportBundle(t.db, "twin"))?.facts).toHaveLength(120);
    } finally {
      t.cleanup();
    }
  }, 60_000);
});
