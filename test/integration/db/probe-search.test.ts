/**
 * The memory store's probe search (MemoryPort.probeSearch) skips mental models' staleness and
 * observations' freshness, and nothing else: the same hits, ranks and scores as the tier searches,
 * the same scope rules (a team the bank does not permit is refused; mental models ignore scope).
 */
import type { InArgs, InStatement } from "@libsql/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importBundle } from "@/db/bundle-io";
import { createMemoryStore } from "@/db/memory-store";
import { ScopeNotPermittedError } from "@/lib/reflect/errors";
import type { MemoryPort, TierQuery } from "@/lib/reflect/ports";
import { mentalModelProbeText } from "@/lib/reflect/probe";
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
});
