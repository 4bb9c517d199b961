/**
 * Raw-fact search in a bank of conversations (db/queries/conversation-rank.ts) over a real libSQL file,
 * and the conversation fields through bundle export → import. The bank is the hand-written
 * LoCoMo-shaped fixture imported as the `bench import locomo` path imports it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONVERSATION_TUNING } from "@/db/queries/conversation-rank";
import { createMemoryStore } from "@/db/queries/memory-store";
import { insertFacts } from "@/db/queries/retain";
import { searchFacts } from "@/db/queries/search";
import { locomoBundle, readLocomoFile } from "@/lib/experiments/locomo";
import { exportBundle, importBundle } from "@/lib/server/services/bundle-io";
import { MINI_LOCOMO } from "@/test/fixtures/locomo/mini";
import { sampleBundle } from "./sample-bundle";
import { openTempDb } from "./temp-db";

let t: Awaited<ReturnType<typeof openTempDb>>;
const BANK = "locomo-mini-1";
const search = (query: string, tuning = CONVERSATION_TUNING, limit = 5) =>
  searchFacts(t.db, { bankId: BANK, query, limit, tags: [], scopes: ["personal"] }, tuning);

beforeAll(async () => {
  t = await openTempDb("conversation-search");
  const [conv] = readLocomoFile(MINI_LOCOMO);
  await importBundle(t.db, locomoBundle(conv!));
  await importBundle(t.db, sampleBundle());
});
afterAll(() => t.cleanup());

describe("raw-fact search in a bank of conversations", () => {
  it("brings the answer to a question that only the turn before it shares words with", async () => {
    // "yesterday" is only in Ana's question D1:1; Ben's answer D1:2 shares no word with the query.
    const ids = (await search("yesterday")).map((h) => h.id);
    expect(ids).toContain("D1:2");
    const without = (await search("yesterday", { ...CONVERSATION_TUNING, neighbour: 0, session: 0 })).map((h) => h.id);
    expect(without).not.toContain("D1:2");
  });

  it("favours the turns of the speaker the question names, and does not search the name", async () => {
    // "yesterday" is in Ana's D1:1 and Ben's D2:3; only Ben's D2:1 says "Ana".
    const hits = (await search("What did Ana do yesterday?")).map((h) => `${h.id} ${h.speaker}`);
    expect(hits[0]).toBe("D1:1 Ana");
    expect(hits).not.toContain("D2:1 Ben");
    const plain = (await search("What did Ana do yesterday?", { ...CONVERSATION_TUNING, speaker: 1 })).map(
      (h) => `${h.id} ${h.speaker}`,
    );
    // Searched as a word, the name brings Ben's greeting first.
    expect(plain[0]).toBe("D2:1 Ben");
  });

  it("favours memories of the date the question states", async () => {
    const hits = await search("What happened with the bakery on 3 March 2024?");
    expect(hits[0]?.id).toBe("D3:1");
    expect(hits[0]?.occurredAt?.slice(0, 10)).toBe("2024-03-03");
  });

  it("brings the turns behind an observation the question matches, though they share no word with it", async () => {
    // "work" is in the observation "Ana works at a bakery." (source D2:2), not in any turn.
    const ids = (await search("Where does Ana work?")).map((h) => h.id);
    expect(ids[0]).toBe("D2:2");
    const without = (await search("Where does Ana work?", { ...CONVERSATION_TUNING, observation: 0 })).map((h) => h.id);
    expect(without).not.toContain("D2:2");
  });

  it("returns each hit with its speaker, session and position, ranked 1, 2, 3…", async () => {
    const hits = await search("puppy Biscuit");
    expect(hits[0]).toMatchObject({ id: "D2:3", speaker: "Ben", sessionId: "session_2", position: 3, rank: 1 });
    expect(hits.map((h) => h.rank)).toEqual(hits.map((_, i) => i + 1));
  });

  it("keeps to the search's scope and tags for the neighbours it brings", async () => {
    await insertFacts(t.db, BANK, [
      {
        id: "D1:5",
        text: "A secret only the team sees.",
        kind: "world",
        tags: [],
        scope: "team:x",
        sessionId: "session_1",
        position: 5,
        speaker: "Ana",
      },
    ]);
    const memory = createMemoryStore(t.db);
    const hits = await memory.recall({
      bankId: BANK,
      query: "Look at this kayak",
      limit: 10,
      tags: [],
      scope: "personal",
    });
    expect(hits.map((h) => h.id)).not.toContain("D1:5");
  });

  it("leaves a bank without conversations to plain BM25", async () => {
    const memory = createMemoryStore(t.db);
    const plain = await memory.recall({
      bankId: "acme",
      query: "billing Postgres",
      limit: 5,
      tags: [],
      scope: "personal",
    });
    expect(plain.length).toBeGreaterThan(0);
    expect(plain.every((h) => h.speaker === null && h.sessionId === null)).toBe(true);
  });
});

describe("the memory page on a conversation's turn", () => {
  it("shows one opened fact with the turns before and after it as context", async () => {
    const { browseMemory } = await import("@/lib/server/services/memory");
    const page = await browseMemory(t.db, BANK, { tier: "raw_facts", q: "", limit: 10, id: "D1:2" });
    expect(page?.tier).toBe("raw_facts");
    const [fact] = page?.tier === "raw_facts" ? page.items : [];
    expect(fact).toMatchObject({ id: "D1:2", speaker: "Ben", sessionId: "session_1", position: 2 });
    expect(fact?.context?.before).toMatchObject({ id: "D1:1", speaker: "Ana" });
    expect(fact?.context?.after).toMatchObject({ id: "D1:3", speaker: "Ana" });
    const list = await browseMemory(t.db, BANK, { tier: "raw_facts", q: "", limit: 10 });
    expect(list?.tier === "raw_facts" && list.items[0]?.context).toBeUndefined();
  });
});

describe("conversation fields through export and import", () => {
  it("keeps speakers, sessions, positions, dates and observation sources", async () => {
    const exported = await exportBundle(t.db, BANK);
    expect(exported?.facts.find((f) => f.id === "D2:3")).toMatchObject({
      speaker: "Ben",
      sessionId: "session_2",
      position: 3,
      occurredAt: "2024-02-20T18:40:00.000Z",
    });
    const copy = { ...exported!, bank: { ...exported!.bank, id: "copy" } };
    await importBundle(t.db, copy);
    const again = await exportBundle(t.db, "copy");
    expect(again?.facts).toEqual(exported?.facts);
    expect(again?.observations.map((o) => o.sourceFactIds)).toEqual(exported?.observations.map((o) => o.sourceFactIds));
  });

  it("exports a fact without conversation fields as before, and refuses a position without a session", async () => {
    const acme = await exportBundle(t.db, "acme");
    expect(Object.keys(acme!.facts[0]!)).not.toContain("speaker");
    const bad = sampleBundle();
    bad.bank.id = "bad";
    (bad.facts?.[0] as Record<string, unknown>).position = 3;
    await expect(importBundle(t.db, bad)).rejects.toThrow(/facts\[0\]\.position: a position needs a sessionId/);
  });
});
