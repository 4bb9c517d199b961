/**
 * Large-bank retrieval takes the bare FTS5 top candidates first and filters those; it must give
 * exactly what filtering every match would, including when the filters reject most candidates.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { searchFacts } from "@/db/queries/search";
import { ftsTable } from "@/db/queries/search-index";
import { importBundle } from "@/lib/server/services/bundle-io";
import { openTempDb } from "./temp-db";

let t: Awaited<ReturnType<typeof openTempDb>>;

/** The plain definition: every match joined, filtered, ranked by bm25 then id. */
async function reference(tags: string[], scopes: string[], limit: number): Promise<string[]> {
  const tagSql = tags.length
    ? "AND NOT EXISTS (SELECT 1 FROM json_each(?) qt WHERE qt.value NOT IN (SELECT value FROM json_each(m.tags)))"
    : "";
  const fts = ftsTable("facts", "big");
  const res = await t.db.$client.execute({
    sql: `SELECT m.id FROM ${fts} JOIN facts m ON m.pk = ${fts}.rowid
          WHERE ${fts} MATCH '"launch"' AND m.bank_id = 'big' AND m.scope IN (${scopes.map(() => "?").join(",")}) ${tagSql}
          ORDER BY bm25(${fts}, 1.0, 0.5), m.id LIMIT ?`,
    args: [...scopes, ...(tags.length ? [JSON.stringify(tags)] : []), limit],
  });
  return res.rows.map((r) => String(r.id));
}

beforeAll(async () => {
  t = await openTempDb("search-candidates");
  // 900 matching facts: short texts rank best; the few tagged "rare" are the longest, so they sit
  // far outside any candidate window and only the exact fallback can find them.
  const facts = Array.from({ length: 900 }, (_, i) => {
    const rare = i % 180 === 7;
    const filler = " and the review notes".repeat(rare ? 12 : 1 + (i % 9));
    return {
      id: `f-${String(i).padStart(4, "0")}`,
      text: `The launch checklist item ${i}${filler}.`,
      kind: "world" as const,
      tags: rare ? ["rare"] : i % 3 === 0 ? ["launch"] : [],
      scope: i % 4 === 0 ? "team:platform" : "personal",
      recordedAt: "2026-10-01T00:00:00.000Z",
    };
  });
  await importBundle(t.db, { version: 1, bank: { id: "big", name: "Big", permittedTeams: ["platform"] }, facts });
});
afterAll(() => t.cleanup());

const search = (tags: string[], scopes: ("personal" | "team:platform")[], limit: number) =>
  searchFacts(t.db, { bankId: "big", query: "launch", limit, tags, scopes }).then((rows) => rows.map((r) => r.id));

describe("candidate-first lexical search on a large bank", () => {
  it.each([
    ["no filter", [], ["personal", "team:platform"], 5],
    ["scope filter", [], ["personal"], 20],
    ["common tag", ["launch"], ["personal"], 10],
    ["limit past the candidate window", [], ["personal", "team:platform"], 50],
  ] as const)("matches the exact definition with %s", async (_name, tags, scopes, limit) => {
    expect(await search([...tags], [...scopes], limit)).toEqual(await reference([...tags], [...scopes], limit));
  });

  it("falls back to the exact query when the filters reject every candidate", async () => {
    const found = await search(["rare"], ["personal", "team:platform"], 5);
    expect(found).toHaveLength(5);
    expect(found).toEqual(await reference(["rare"], ["personal", "team:platform"], 5));
  });
});
