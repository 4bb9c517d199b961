/**
 * The memory store's probe search (MemoryPort.probeSearch) skips mental models' staleness and
 * observations' freshness, and nothing else: the same hits, ranks and scores as the tier searches,
 * the same scope rules (a team the bank does not permit is refused; mental models ignore scope).
 */
import type { InArgs, InStatement } from "@libsql/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStore } from "@/db/queries/memory-store";
import { NothingToSearchError, ScopeNotPermittedError } from "@/lib/reflect/errors";
import type { MemoryPort, TierQuery } from "@/lib/reflect/ports";
import { mentalModelProbeText } from "@/lib/reflect/probe";
import { importBundle } from "@/lib/server/services/bundle-io";
import { sampleBundle } from "./sample-bundle";
import { openTempDb } from "./temp-db";

let t: Awaited<ReturnType<typeof openTempDb>>;
let memory: MemoryPort;

beforeAll(async () => {
  t = await openTempDb("probe-search");
  await importBundle(t.db, sampleBundle());
  memory = createMemoryStore(t.db);
});
afterAll(() => t.cleanup());

const query = (scope: TierQuery["scope"], tags: string[] = []): TierQuery => ({
  bankId: "acme",
  query: "billing Postgres launch",
  limit: 10,
  tags,
  scope,
  probe: true,
});

describe("the store's probe search", () => {
  it.each([
    ["personal", []],
    ["team:core", []],
    ["team:core", ["billing"]],
  ] as const)("gives the tier searches' hits in scope %s, tags %j", async (scope, tags) => {
    const q = query(scope, [...tags]);
    const facts = await memory.recall(q);
    expect(facts.length).toBeGreaterThan(0);
    expect(await memory.probeSearch!("raw_facts", q)).toEqual(
      facts.map((f) => ({ id: f.id, rank: f.rank, score: f.score, text: f.text, speaker: f.speaker ?? null })),
    );
    const { observations } = await memory.searchObservations(q);
    expect(observations.length).toBeGreaterThan(0);
    expect(await memory.probeSearch!("observations", q)).toEqual(
      observations.map((o) => ({ id: o.id, rank: o.rank, score: o.score, text: o.text, speaker: null })),
    );
    const models = await memory.searchMentalModels(q);
    expect(models.length).toBeGreaterThan(0);
    expect(await memory.probeSearch!("mental_models", q)).toEqual(
      models.map((m) => ({ id: m.id, rank: m.rank, score: m.score, text: mentalModelProbeText(m), speaker: null })),
    );
    // Team memories only in the team's scope, never another team's.
    const ids = (await memory.probeSearch!("raw_facts", q)).map((h) => h.id);
    expect(ids.includes("f3")).toBe(scope === "team:core");
    expect(ids).not.toContain("f4");
  });

  it("refuses a team the bank does not permit, except for mental models (bank-wide)", async () => {
    const q = query("team:growth");
    await expect(memory.probeSearch!("raw_facts", q)).rejects.toBeInstanceOf(ScopeNotPermittedError);
    await expect(memory.probeSearch!("observations", q)).rejects.toBeInstanceOf(ScopeNotPermittedError);
    expect((await memory.probeSearch!("mental_models", q)).length).toBeGreaterThan(0);
  });

  it("reads the bank's teams only for a team scope of a scoped tier", async () => {
    const client = t.db.$client;
    const execute = client.execute.bind(client);
    const sql: string[] = [];
    client.execute = ((stmt: InStatement, args?: InArgs) => {
      sql.push(typeof stmt === "string" ? stmt : stmt.sql);
      return args === undefined ? execute(stmt) : execute(stmt as string, args);
    }) as typeof client.execute;
    const bankReads = () => sql.filter((s) => /from "banks"/i.test(s)).length;
    try {
      await memory.recall(query("personal"));
      await memory.searchMentalModels(query("team:core"));
      await memory.probeSearch!("mental_models", query("team:growth"));
      expect(bankReads()).toBe(0);
      await memory.recall(query("team:core"));
      expect(bankReads()).toBe(1);
    } finally {
      client.execute = execute;
    }
  });

  it("answers several queries of a tier at once exactly as one search each (mental models in one statement)", async () => {
    const queries = ["billing Postgres launch", "team standups", "zeppelin hangar", "what is it", "Dana billing"];
    const client = t.db.$client;
    const execute = client.execute.bind(client);
    for (const tier of ["mental_models", "observations", "raw_facts"] as const) {
      for (const scope of ["personal", "team:core"] as const) {
        const base = { bankId: "acme", limit: 10, tags: [] as string[], scope, probe: true };
        const each = await Promise.all(
          queries.map((query) =>
            memory.probeSearch!(tier, { ...base, query }).then(
              (hits) => ({ hits }),
              (error: unknown) => ({ error }),
            ),
          ),
        );
        const sql: string[] = [];
        client.execute = ((stmt: InStatement, args?: InArgs) => {
          sql.push(typeof stmt === "string" ? stmt : stmt.sql);
          return args === undefined ? execute(stmt) : execute(stmt as string, args);
        }) as typeof client.execute;
        let many: Awaited<ReturnType<NonNullable<MemoryPort["probeSearchMany"]>>>;
        try {
          many = await memory.probeSearchMany!(tier, queries, base);
        } finally {
          client.execute = execute;
        }
        expect(many).toEqual(each);
        // A query of only common words fails as its own search does; the others answer.
        expect(many[3]).toEqual({ error: expect.any(NothingToSearchError) });
        expect(many.filter((m) => "hits" in m && m.hits.length > 0).length).toBeGreaterThanOrEqual(1);
        if (tier === "mental_models") {
          // One statement for the queries that match (a query matching nothing is checked on its own).
          expect(sql.filter((s) => /UNION ALL/.test(s))).toHaveLength(1);
        }
      }
    }
  });

  it("refuses every query of a scoped tier for a team the bank does not permit", async () => {
    const base = { bankId: "acme", limit: 10, tags: [] as string[], scope: "team:growth" as const, probe: true };
    for (const tier of ["observations", "raw_facts"] as const) {
      expect(await memory.probeSearchMany!(tier, ["billing", "Postgres"], base)).toEqual([
        { error: expect.any(ScopeNotPermittedError) },
        { error: expect.any(ScopeNotPermittedError) },
      ]);
    }
    const models = await memory.probeSearchMany!("mental_models", ["billing", "Postgres"], base);
    expect(models.every((m) => "hits" in m && m.hits.length > 0)).toBe(true);
  });
});
