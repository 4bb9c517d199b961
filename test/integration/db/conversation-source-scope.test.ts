/**
 * The observation-source boost of conversation search (db/queries/search.ts `observationSources`) over a
 * real libSQL file: an observation's words must never bring a fact the search's scope or tags
 * cannot read, and an observation the scope cannot read must never steer what a reader sees.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStore } from "@/db/queries/memory-store";
import { searchFacts } from "@/db/queries/search";
import type { BundleInput } from "@/lib/contracts/bundle";
import { importBundle } from "@/lib/server/services/bundle-io";
import { openTempDb } from "./temp-db";

let t: Awaited<ReturnType<typeof openTempDb>>;
const BANK = "conv-scope";

const turn = (id: string, text: string, scope: string, position: number, tags: string[] = []) => ({
  id,
  text,
  kind: "world" as const,
  tags,
  scope,
  speaker: position % 2 ? "Ana" : "Ben",
  sessionId: "session_1",
  position,
  occurredAt: "2024-01-01T09:00:00Z",
  recordedAt: "2024-01-01T09:00:00Z",
});

function bundle(): BundleInput {
  return {
    version: 1,
    bank: { id: BANK, name: "Conversation scopes", permittedTeams: ["core"] },
    facts: [
      turn("P:1", "Good morning, how was the trip?", "personal", 1),
      turn("T:2", "The merger code name is Bluebird.", "team:core", 2),
      turn("P:3", "Nice weather at the harbour today.", "personal", 3),
      turn("P:5", "We painted the fence green.", "personal", 5, ["home"]),
      turn("P:7", "My cousin visited on Sunday.", "personal", 7),
    ],
    observations: [
      // Personal observation whose source is a team-only turn.
      {
        id: "o-personal",
        text: "Ben knows the acquisition codename.",
        tags: [],
        scope: "personal",
        sourceFactIds: ["T:2"],
        updatedAt: "2024-01-02T00:00:00Z",
      },
      // Team observation whose source is a personal turn: its words must not steer a personal search.
      {
        id: "o-team",
        text: "Ana is under investigation for fraud.",
        tags: [],
        scope: "team:core",
        sourceFactIds: ["P:7"],
        updatedAt: "2024-01-02T00:00:00Z",
      },
      // Tagged observation whose source lacks the tag.
      {
        id: "o-tagged",
        text: "Ana renovates her garden shed.",
        tags: ["garden"],
        scope: "personal",
        sourceFactIds: ["P:3"],
        updatedAt: "2024-01-02T00:00:00Z",
      },
    ],
    mentalModels: [],
    skills: [],
  } as unknown as BundleInput;
}

beforeAll(async () => {
  t = await openTempDb("conversation-source-scope");
  await importBundle(t.db, bundle());
});
afterAll(() => t.cleanup());

const personal = (query: string, tags: string[] = []) =>
  searchFacts(t.db, { bankId: BANK, query, limit: 10, tags, scopes: ["personal"] });

describe("observation sources keep to the search's scope and tags", () => {
  it("never brings a team-scoped source of a personal observation into a personal search", async () => {
    const ids = (await personal("What is the acquisition codename?")).map((h) => h.id);
    expect(ids).not.toContain("T:2");
    const recall = await createMemoryStore(t.db).recall({
      bankId: BANK,
      query: "acquisition codename",
      limit: 10,
      tags: [],
      scope: "personal",
    });
    expect(recall.map((h) => h.id)).not.toContain("T:2");
    // The team reads it through the same observation.
    const team = await searchFacts(t.db, {
      bankId: BANK,
      query: "What is the acquisition codename?",
      limit: 10,
      tags: [],
      scopes: ["personal", "team:core"],
    });
    expect(team.map((h) => h.id)).toContain("T:2");
  });

  it("does not let a team observation's words pick a personal turn for a personal search", async () => {
    const ids = (await personal("Who is under investigation for fraud?")).map((h) => h.id);
    expect(ids).not.toContain("P:7");
  });

  it("never brings a source without the search's tags", async () => {
    const ids = (await personal("garden shed renovation", ["garden"])).map((h) => h.id);
    expect(ids).not.toContain("P:3");
    const home = (await personal("garden shed renovation", ["home"])).map((h) => h.id);
    expect(home.every((id) => id === "P:5")).toBe(true);
  });

  it("answers a query that is only a date with that day's memories, in the search's scope and tags", async () => {
    const ids = (await personal("1 January 2024")).map((h) => h.id);
    expect(ids).toEqual(expect.arrayContaining(["P:1", "P:3", "P:5", "P:7"]));
    expect(ids).not.toContain("T:2");
    expect((await personal("What happened on 1 January 2024?", ["home"])).map((h) => h.id)).toEqual(["P:5"]);
    expect(await personal("2 January 2024")).toEqual([]);
    expect(await personal("31 February 2024")).toEqual([]);
  });
});
