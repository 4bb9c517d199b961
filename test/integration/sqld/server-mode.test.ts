/**
 * Server mode: the store, search and run service against a real libSQL server (sqld) by URL, and
 * against a read replica that forwards writes to its primary.
 */

import { createClient } from "@libsql/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDb } from "@/db/client";
import demo from "@/db/demo/demo-bank.json";
import { backfillEmbeddings } from "@/db/queries/embedding-backfill";
import { createMemoryStore } from "@/db/queries/memory-store";
import { getMentalModel, saveMentalModel } from "@/db/queries/mental-models";
import { getRun, getRunEvents } from "@/db/queries/runs";
import { searchFacts, searchMentalModelIds, searchObservations } from "@/db/queries/search";
import { ftsTable } from "@/db/queries/search-index";
import { createOfflineModel } from "@/lib/llm";
import { ensureDemoBank } from "@/lib/server/runtime/db";
import { importBundle } from "@/lib/server/services/bundle-io";
import { startRun } from "@/lib/server/services/runs";
import { fakeEmbedding } from "../../fixtures/fake-openai-server";
import { sampleBundle } from "../db/sample-bundle";
import { eventually, type SqldNode, skipSqld, startSqldPrimary, startSqldReplica } from "./sqld-server";

/** The demo bank's readable scopes for a team:platform run (team:finance is never permitted). */
const DEMO_QUERY = { bankId: "demo", limit: 5, tags: [], scopes: ["personal" as const, "team:platform" as const] };

describe.skipIf(skipSqld)("libSQL server mode (sqld primary + replica)", () => {
  let primary: SqldNode | undefined;
  let replica: SqldNode | undefined;
  let db: Db;
  let replicaDb: Db | undefined;

  beforeAll(async () => {
    primary = await startSqldPrimary();
    replica = await startSqldReplica(primary);
    db = await openDb(primary.url);
  }, 60_000);

  afterAll(async () => {
    replicaDb?.$client.close();
    db?.$client.close();
    await replica?.stop();
    await primary?.stop();
  });

  it("applies every migration, tables and triggers included, on the server", async () => {
    const tables = await db.$client.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')");
    const names = tables.rows.map((r) => String(r.name));
    for (const name of ["banks", "facts", "observations", "mental_models", "runs", "run_events", "facts_tags_ai"]) {
      expect(names).toContain(name);
    }
    const applied = await db.$client.execute("SELECT count(*) AS n FROM __drizzle_migrations");
    expect(Number(applied.rows[0]?.n)).toBeGreaterThan(0);
  });

  it("imports the demo bank and searches every tier with BM25", async () => {
    expect(await ensureDemoBank(db)).toBe(true);
    // The import built the bank's own FTS5 index on the server.
    const indexes = await db.$client.execute("SELECT name FROM sqlite_master WHERE type = 'table'");
    expect(indexes.rows.map((r) => String(r.name))).toContain(ftsTable("facts", "demo"));
    const q = DEMO_QUERY;
    const facts = await searchFacts(db, { ...q, query: "SAML SSO risk" });
    expect(facts.map((f) => f.id)).toContain("f-005");
    expect(facts.every((f) => f.scope !== "team:finance")).toBe(true);
    expect((await searchObservations(db, { ...q, query: "SSO" })).length).toBeGreaterThan(0);
    expect((await searchMentalModelIds(db, { ...q, query: "pricing" })).map((m) => m.id)).toContain("mm-pricing");
  });

  it("runs a full offline reflect against the server and stores its events", async () => {
    const { runId, finished } = await startRun(
      db,
      { mode: "synthesize", bankId: "demo", skill: "blockers", question: "What is blocking the SSO rollout?" },
      { model: createOfflineModel() },
    );
    const result = await finished;
    expect(result.status).toBe("done");
    expect(result.citations.memory_ids.length + result.citations.observation_ids.length).toBeGreaterThan(0);
    const events = await getRunEvents(db, runId);
    expect(events[0]?.type).toBe("run.started");
    expect(events.at(-1)?.type).toBe("run.finished");
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect((await getRun(db, runId))?.status).toBe("done");
    // Finished, its events are one pack (a BLOB, through the server's protocol) and no rows.
    const { rows } = await db.$client.execute({
      sql: `SELECT (SELECT count(*) FROM run_events WHERE run_id = ?1) AS rows,
                   (SELECT sum(events) FROM run_event_packs WHERE run_id = ?1) AS packed`,
      args: [runId],
    });
    expect(rows[0]).toMatchObject({ rows: 0, packed: events.length });
  });

  it("stores F32_BLOB vectors and fuses vector and BM25 rankings on the server", async () => {
    const embedder = { dimensions: 16, embed: async (texts: string[]) => texts.map((t) => fakeEmbedding(t, 16)) };
    const counts = await backfillEmbeddings(db, embedder, { bankId: "demo" });
    expect(counts.facts).toBe(demo.facts.length);
    const memory = createMemoryStore(db, { embed: async (text) => fakeEmbedding(text, 16) });
    const hits = await memory.recall({
      bankId: "demo",
      query: "SAML SSO risk",
      limit: 10,
      tags: [],
      scope: "personal",
    });
    expect(hits.map((h) => h.id)).toContain("f-005");
    const nearest = await db.$client.execute({
      sql: "SELECT id FROM facts WHERE bank_id = 'demo' ORDER BY vector_distance_cos(embedding, vector32(?)) LIMIT 1",
      args: [JSON.stringify(fakeEmbedding(demo.facts.find((f) => f.id === "f-005")?.text ?? "", 16))],
    });
    expect(nearest.rows[0]?.id).toBe("f-005");
  });

  it("serves reads on the replica and forwards its writes to the primary", async () => {
    if (!replica) throw new Error("replica not started");
    const replicaUrl = replica.url;
    // The replica must have the migrated schema before the app opens it, or it would migrate again.
    await eventually(async () => {
      const c = createClient({ url: replicaUrl });
      try {
        const res = await c.execute("SELECT count(*) AS n FROM banks");
        return Number(res.rows[0]?.n) === 1;
      } catch {
        return false;
      } finally {
        c.close();
      }
    }, "the replica to receive the demo bank");
    replicaDb = await openDb(replicaUrl);
    const rdb = replicaDb;

    const onReplica = await searchFacts(rdb, { ...DEMO_QUERY, query: "SAML SSO risk" });
    expect(onReplica.map((f) => f.id)).toContain("f-005");

    await importBundle(rdb, sampleBundle());
    await rdb.$client.execute({
      sql: "UPDATE facts SET text = ? WHERE bank_id = 'demo' AND id = 'f-005'",
      args: ["Tomás called SAML SSO the riskiest item: nobody has shipped a replicated identity provider."],
    });

    // Forwarded: the primary has both writes at once.
    const onPrimary = await db.$client.execute(
      "SELECT (SELECT count(*) FROM banks WHERE id = 'acme') AS banks, (SELECT text FROM facts WHERE bank_id = 'demo' AND id = 'f-005') AS f5",
    );
    expect(Number(onPrimary.rows[0]?.banks)).toBe(1);
    expect(String(onPrimary.rows[0]?.f5)).toContain("replicated identity provider");

    // And the replica serves them once it has synced, FTS index included.
    await eventually(async () => {
      const hits = await searchFacts(rdb, {
        bankId: "acme",
        query: "billing Postgres",
        limit: 5,
        tags: [],
        scopes: ["personal"],
      });
      return hits.some((f) => f.id === "f1");
    }, "the replica to serve the forwarded import");
  });

  it("saves a mental model through the replica and returns the saved version at once", async () => {
    if (!replicaDb) throw new Error("replica not opened");
    const current = await getMentalModel(replicaDb, "demo", "mm-pricing");
    if (!current) throw new Error("mm-pricing missing on the replica");
    const saved = await saveMentalModel(replicaDb, {
      ...current,
      content: `${current.content}\n- Saved through the replica.`,
      expectedVersion: current.version,
    });
    expect(saved).toMatchObject({ id: "mm-pricing", version: current.version + 1, isStale: current.isStale });
    const onPrimary = await db.$client.execute("SELECT version FROM mental_models WHERE id = 'mm-pricing'");
    expect(Number(onPrimary.rows[0]?.version)).toBe(current.version + 1);
  });
});
