/**
 * A bank's conversation profile (db/queries/conversation-rank.ts `bankConversationProfile`), read
 * before every raw-fact search and by the missed-evidence probe, over a real libSQL file: the
 * distinct speakers (sorted, at most 100) and whether any fact has a session — read by index
 * seeks, never by walking every fact of the bank (docs/performance.md#the-probe-at-100k).
 */
import type { InArgs, InStatement } from "@libsql/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bankConversationProfile } from "@/db/queries/conversation-rank";
import { openTempDb } from "./temp-db";

let t: Awaited<ReturnType<typeof openTempDb>>;

async function bank(id: string, rows: { speaker: string | null; session: string | null }[]) {
  await t.db.$client.execute({
    sql: "INSERT INTO banks (id, name, permitted_teams) VALUES (?, ?, '[]')",
    args: [id, id],
  });
  for (const [i, r] of rows.entries()) {
    await t.db.$client.execute({
      sql: `INSERT INTO facts (id, bank_id, text, kind, tags, scope, speaker, session_id, position, recorded_at, updated_at)
            VALUES (?, ?, ?, 'world', '[]', 'personal', ?, ?, ?, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
      args: [`${id}-${i}`, id, `turn ${i}`, r.speaker, r.session, r.session === null ? null : i],
    });
  }
}

beforeAll(async () => {
  t = await openTempDb("conversation-profile");
  await bank(
    "plain",
    Array.from({ length: 30 }, () => ({ speaker: null, session: null })),
  );
  await bank(
    "talk",
    Array.from({ length: 300 }, (_, i) => ({ speaker: ["Mel", "Caroline", "Ana"][i % 3]!, session: `s${i % 7}` })),
  );
  await bank(
    "crowd",
    Array.from({ length: 240 }, (_, i) => ({ speaker: `P${String(i % 120).padStart(3, "0")}`, session: null })),
  );
  await bank("blank", [
    { speaker: "", session: "" },
    { speaker: null, session: null },
  ]);
});
afterAll(() => t.cleanup());

describe("a bank's conversation profile", () => {
  it("names each speaker once, sorted, and says whether any fact has a session", async () => {
    expect(await bankConversationProfile(t.db, "plain")).toEqual({ speakers: [], sessions: false });
    expect(await bankConversationProfile(t.db, "talk")).toEqual({
      speakers: ["Ana", "Caroline", "Mel"],
      sessions: true,
    });
    // An empty string is a value, as before (IS NOT NULL): the probe ignores a blank speaker itself.
    expect(await bankConversationProfile(t.db, "blank")).toEqual({ speakers: [""], sessions: true });
  });

  it("names at most 100 speakers", async () => {
    const { speakers, sessions } = await bankConversationProfile(t.db, "crowd");
    expect(speakers).toHaveLength(100);
    expect(speakers[0]).toBe("P000");
    expect(speakers.at(-1)).toBe("P099");
    expect(sessions).toBe(false);
  });

  it.each([
    ["without", ""],
    ["with", "ANALYZE"],
  ])(
    "seeks its rows by index in a file of one big bank of plain facts, %s the planner's statistics",
    async (_, stats) => {
      // One bank holding every fact of the file, none a turn: with statistics, SQLite walked all of
      // them for `IS NOT NULL` (the bench's 100k bank: 8 ms per raw-fact search).
      const one = await openTempDb("conversation-profile-one-bank");
      try {
        const client = one.db.$client;
        await client.execute("INSERT INTO banks (id, name, permitted_teams) VALUES ('big', 'big', '[]')");
        await client.execute(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
        INSERT INTO facts (id, bank_id, text, kind, tags, scope, recorded_at, updated_at)
        SELECT 'big-' || i, 'big', 'note ' || i, 'world', '[]', 'personal', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z' FROM n`);
        if (stats) await client.execute(stats);
        const execute = client.execute.bind(client);
        const seen: { sql: string; args: InArgs }[] = [];
        client.execute = ((stmt: InStatement) => {
          if (typeof stmt !== "string") seen.push({ sql: stmt.sql, args: stmt.args ?? [] });
          return execute(stmt);
        }) as typeof client.execute;
        let profile: Awaited<ReturnType<typeof bankConversationProfile>>;
        try {
          profile = await bankConversationProfile(one.db, "big");
        } finally {
          client.execute = execute;
        }
        expect(profile).toEqual({ speakers: [], sessions: false });
        expect(seen).toHaveLength(1);
        const plan = (await execute({ sql: `EXPLAIN QUERY PLAN ${seen[0]!.sql}`, args: seen[0]!.args })).rows.map((r) =>
          String(r.detail),
        );
        const onFacts = plan.filter((d) => /\bfacts\b/.test(d));
        expect(onFacts.length).toBeGreaterThanOrEqual(2);
        // Every read of facts seeks into the speaker or session range, never walks the bank's rows.
        for (const d of onFacts) expect(d).toMatch(/^SEARCH facts USING COVERING INDEX .*(speaker|session_id)>\?/);
      } finally {
        one.cleanup();
      }
    },
  );
});
