/**
 * A search's first statement reads the bank's pending index changes, counts the OR's matches and
 * ranks the expression that count chooses, all at once (db/search.ts `firstRows`). It must give
 * exactly what the plain definitions give — the OR on a small bank, the AND on a large one — with
 * scope and tags applied before the limit, never another bank's memory, and never rows of an index
 * that still has changes to apply.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importBundle } from "@/db/bundle-io";
import {
  ALL_BUT_ONE_AT_MOST,
  countMemories,
  MEMORIES_COUNTED_AT_MOST,
  OR_RANKED_AT_MOST,
  observationFreshness,
  PENDING_COUNTED_AT_MOST,
  searchFacts,
  searchMentalModelIds,
  searchObservations,
} from "@/db/search";
import { ftsTable } from "@/db/search-index";
import { openTempDb } from "./temp-db";

let t: Awaited<ReturnType<typeof openTempDb>>;

const fact = (id: string, text: string, scope: string, tags: string[] = []) => ({
  id,
  text,
  kind: "world" as const,
  tags,
  scope,
  recordedAt: "2026-01-01T00:00:00Z",
});

/** Facts about Atlas and pricing in several scopes and tags; `padding` one-word notes make the OR large. */
const facts = (prefix: string, padding: number) => [
  ...Array.from({ length: 30 }, (_, i) =>
    fact(
      `${prefix}both-${String(i).padStart(2, "0")}`,
      `Atlas pricing note ${i}${" with more words".repeat(i % 4)}.`,
      i % 3 === 0 ? "team:x" : i % 3 === 1 ? "team:y" : "personal",
      i % 2 === 0 ? ["pricing"] : [],
    ),
  ),
  fact(`${prefix}pricing-only`, "Pricing.", "personal", ["pricing"]),
  ...Array.from({ length: padding }, (_, i) =>
    fact(`${prefix}pad-${String(i).padStart(4, "0")}`, `Atlas weekly note ${i} on the dashboard.`, "personal"),
  ),
];

beforeAll(async () => {
  t = await openTempDb("search-first");
  const bank = (id: string) => ({ id, name: id, permittedTeams: ["x"] });
  await importBundle(t.db, {
    version: 1,
    bank: bank("small"),
    facts: facts("s-", 20),
    observations: [
      {
        id: "o-1",
        text: "Atlas pricing keeps moving.",
        tags: [],
        scope: "personal",
        sourceFactIds: [],
        updatedAt: "2026-01-02T00:00:00Z",
      },
    ],
  });
  await importBundle(t.db, { version: 1, bank: bank("large"), facts: facts("l-", OR_RANKED_AT_MOST) });
});
afterAll(() => t.cleanup());

/** The plain definition: the match expression's every memory, filtered, ranked by bm25 then id. */
async function reference(bankId: string, match: string, scopes: string[], tags: string[], limit: number) {
  const fts = ftsTable("facts", bankId);
  const tagSql = tags.length
    ? "AND NOT EXISTS (SELECT 1 FROM json_each(?) qt WHERE qt.value NOT IN (SELECT value FROM json_each(m.tags)))"
    : "";
  const res = await t.db.$client.execute({
    sql: `SELECT m.id FROM ${fts} JOIN facts m ON m.pk = ${fts}.rowid
          WHERE ${fts} MATCH ? AND m.bank_id = ? AND m.scope IN (${scopes.map(() => "?").join(", ")}) ${tagSql}
          ORDER BY bm25(${fts}, 1.0, 0.5), m.id LIMIT ?`,
    args: [match, bankId, ...scopes, ...(tags.length ? [JSON.stringify(tags)] : []), limit],
  });
  return res.rows.map((r) => String(r.id));
}

const search = (
  bankId: string,
  scopes: ("personal" | "team:x")[],
  tags: string[],
  limit: number,
  query = "Atlas pricing",
) => searchFacts(t.db, { bankId, query, limit, tags, scopes }).then((rows) => rows.map((r) => r.id));

describe("the first statement of a search", () => {
  it.each([
    ["no filter", ["personal", "team:x"], [], 8],
    ["personal scope", ["personal"], [], 8],
    ["a tag", ["personal", "team:x"], ["pricing"], 5],
  ] as const)("ranks the OR on a small bank, %s applied before the limit", async (_n, scopes, tags, limit) => {
    const found = await search("small", [...scopes], [...tags], limit);
    expect(found).toEqual(await reference("small", '"atlas" OR "pricing"', [...scopes], [...tags], limit));
    expect(found).toHaveLength(limit);
    // The OR: memories with one of the words are ranked too.
    const all = await search("small", [...scopes], [...tags], 100);
    expect(all).toContain("s-pricing-only");
  });

  it.each([
    ["no filter", ["personal", "team:x"], [], 8],
    ["personal scope", ["personal"], [], 8],
    ["a tag", ["personal", "team:x"], ["pricing"], 5],
  ] as const)("ranks the AND on a large bank, %s applied before the limit", async (_n, scopes, tags, limit) => {
    const found = await search("large", [...scopes], [...tags], limit);
    expect(found).toEqual(await reference("large", '"atlas" AND "pricing"', [...scopes], [...tags], limit));
    expect(found).toHaveLength(limit);
    expect(found.every((id) => id.startsWith("l-both-"))).toBe(true);
    // Scope: no team:y memory, and no team:x one in a personal search.
    const scopeOf = (id: string) => Number(id.slice("l-both-".length)) % 3;
    expect(found.some((id) => scopeOf(id) === 1)).toBe(false);
    if (scopes.length === 1) expect(found.some((id) => scopeOf(id) === 0)).toBe(false);
  });

  it("counts a bank's pending facts up to its cap (a million-fact bank is not read row by row)", async () => {
    const large = await observationFreshness(t.db, { bankId: "large", tags: [], scopes: ["personal"] });
    expect(large).toEqual({ pending: PENDING_COUNTED_AT_MOST, freshness: "stale", isStale: true });
    // Every fact of the small bank is older than its observation: nothing pending.
    const small = await observationFreshness(t.db, { bankId: "small", tags: [], scopes: ["personal", "team:x"] });
    expect(small).toEqual({ pending: 0, freshness: "up_to_date", isStale: false });
  });

  it("counts a scope's memories up to the cap, exactly below it", async () => {
    const n = MEMORIES_COUNTED_AT_MOST + 5;
    await importBundle(t.db, {
      version: 1,
      bank: { id: "counted", name: "counted", permittedTeams: [] },
      facts: Array.from({ length: n }, (_, i) => fact(`c-${i}`, `Note ${i}.`, i < 3 ? "team:x" : "personal")),
    });
    expect(await countMemories(t.db, { bankId: "counted", scopes: ["personal"] })).toBe(MEMORIES_COUNTED_AT_MOST);
    expect(await countMemories(t.db, { bankId: "counted", scopes: ["team:x"] })).toBe(3);
    expect(await countMemories(t.db, { bankId: "large", scopes: ["personal", "team:x"] })).toBe(OR_RANKED_AT_MOST + 21);
  });

  it("answers a long question (a pasted paragraph) in a few statements, exactly", async () => {
    const execute = t.db.$client.execute.bind(t.db.$client);
    let statements = 0;
    t.db.$client.execute = ((stmt: Parameters<typeof execute>[0]) => {
      statements++;
      return execute(stmt);
    }) as typeof execute;
    const scopes: ("personal" | "team:x")[] = ["personal", "team:x"];
    try {
      // 300 words no memory holds: dropped, so it ranks as "Atlas pricing" does (the AND: the OR matches > 1,000).
      const unknown = Array.from({ length: 300 }, (_, i) => `zork${i}`).join(" ");
      expect(await search("large", scopes, [], 8, `Atlas pricing ${unknown}`)).toEqual(
        await reference("large", '"atlas" AND "pricing"', scopes, [], 8),
      );
      expect(statements).toBeLessThanOrEqual(6);
      // More held words than the every-word-but-one level takes, no memory with all: the OR, exact.
      statements = 0;
      const held = ["atlas", "pricing", "weekly", "note", "dashboard", "words", "1", "2", "3", "4"];
      expect(held.length).toBeGreaterThan(ALL_BUT_ONE_AT_MOST);
      expect(await search("large", scopes, [], 8, held.join(" "))).toEqual(
        await reference("large", held.map((w) => `"${w}"`).join(" OR "), scopes, [], 8),
      );
      expect(statements).toBeLessThanOrEqual(6);
    } finally {
      t.db.$client.execute = execute;
    }
  });

  it("never returns another bank's memory, and an empty answer holds no row", async () => {
    expect((await search("small", ["personal", "team:x"], [], 50)).every((id) => id.startsWith("s-"))).toBe(true);
    expect((await search("large", ["personal", "team:x"], [], 50)).every((id) => id.startsWith("l-"))).toBe(true);
    expect(await search("small", ["personal"], [], 10, "zeppelin")).toEqual([]);
    expect(await search("missing-bank", ["personal"], [], 10)).toEqual([]);
    const observations = await searchObservations(t.db, {
      bankId: "small",
      query: "zeppelin",
      limit: 5,
      tags: [],
      scopes: ["personal"],
    });
    expect(observations).toEqual([]);
    expect(
      await searchMentalModelIds(t.db, { bankId: "small", query: "Atlas", limit: 5, tags: [], scopes: [] }),
    ).toEqual([]);
  });

  it("applies index changes still pending before it answers (a row written by raw SQL)", async () => {
    await t.db.$client.execute(`INSERT INTO facts (id, bank_id, text, kind, tags, scope, recorded_at, updated_at)
      VALUES ('s-zeppelin', 'small', 'The zeppelin pricing idea.', 'world', '[]', 'personal', '2026-01-03T00:00:00Z', '2026-01-03T00:00:00Z')`);
    expect(await search("small", ["personal"], [], 5, "zeppelin")).toEqual(["s-zeppelin"]);
    await t.db.$client.execute("DELETE FROM facts WHERE id = 's-zeppelin'");
    expect(await search("small", ["personal"], [], 5, "zeppelin")).toEqual([]);
  });
});
