/**
 * (Slow project: building the bank takes ~30 s.) The fast search path on a generated 100k-fact bank (docs/performance.md#search-at-a-million-facts): the strictness
 * ladder, the bare FTS5 candidates cut at the n-th score and the words the bank holds nowhere
 * dropped must give the same top 10 as the exhaustive ranking (every memory holding any word,
 * filtered, bm25 then id) for at least 95 % of its ids, under scope filters, on a bank large
 * enough that the bounded path is the one taken.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFtsQuery } from "@/db/fts-query";
import { OR_RANKED_AT_MOST, searchFacts } from "@/db/search";
import { ftsTable } from "@/db/search-index";
import { agreement, exhaustiveFactIds } from "../bench/agreement";
import { BENCH_BANK, createBenchBank, insertFacts, question } from "../bench/corpus";
import { prng } from "../bench/report";
import { openTempDb } from "../integration/db/temp-db";

const FACTS = 100_000;
const QUERIES = 30;

let t: Awaited<ReturnType<typeof openTempDb>>;

beforeAll(async () => {
  t = await openTempDb("search-agreement");
  await createBenchBank(t.db);
  await insertFacts(t.db, prng(31), 0, FACTS);
}, 120_000);
afterAll(() => t.cleanup());

describe("the fast search path on a 100k-fact bank", () => {
  it.each([
    ["every readable scope", ["personal", "team:platform"] as const],
    ["one scope", ["team:platform"] as const],
  ])("keeps the exhaustive ranking's top 10 (≥ 95 %), %s", async (_name, scopes) => {
    const r = prng(32);
    let shared = 0;
    let of = 0;
    let bounded = 0;
    const fts = ftsTable("facts", BENCH_BANK);
    for (let i = 0; i < QUERIES; i++) {
      // A word no memory holds ("zeppelin") makes the AND empty: the ladder must drop it, not give up.
      const query = i % 3 === 0 ? `${question(r)} zeppelin` : question(r);
      const fast = await searchFacts(t.db, { bankId: BENCH_BANK, query, limit: 10, tags: [], scopes: [...scopes] });
      const exhaustive = await exhaustiveFactIds(t.db, BENCH_BANK, query, scopes);
      expect(exhaustive).toHaveLength(10);
      expect(fast).toHaveLength(10);
      const a = agreement(
        exhaustive,
        fast.map((f) => f.id),
      );
      shared += a.shared;
      of += a.of;
      const { rows } = await t.db.$client.execute({
        sql: `SELECT COUNT(*) AS n FROM ${fts} WHERE ${fts} MATCH ?`,
        args: [buildFtsQuery(query)!],
      });
      if (Number(rows[0]!.n) > OR_RANKED_AT_MOST) bounded++;
    }
    // The bank is large enough that the ladder and candidate bound are what answered.
    expect(bounded).toBeGreaterThanOrEqual(QUERIES * 0.9);
    expect(shared / of).toBeGreaterThanOrEqual(0.95);
  });
});
