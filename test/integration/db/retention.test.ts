/**
 * Run retention on a real libSQL file: a prune removes the runs its rule selects and their events,
 * keeps every run something refers to (and says which and why), a dry run changes nothing, and the
 * file shrinks afterwards — incrementally on a new database, after a one-time VACUUM on an old one.
 */
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { createClient } from "@libsql/client";
import { afterEach, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { createExperiment, linkExperimentRun } from "@/db/queries/experiments";
import { recordRefreshDecision, recordRefreshProposal } from "@/db/queries/mental-model-refreshes";
import { databaseBytes, pruneRuns } from "@/db/queries/retention";
import { createRun, finishRun } from "@/db/queries/runs";
import { runEvents } from "@/db/schema";
import { importBundle } from "@/lib/server/services/bundle-io";
import { openTempDb } from "./temp-db";

const DAY = 86_400_000;
const NOW = Date.parse("2026-11-26T12:00:00Z");
const model = { kind: "offline" as const, name: "offline-extractive" };
const SOURCE_QUERY = "What is the Atlas launch date and what does the launch depend on?";
/**
 * A model request's size: what makes a stored run weigh tens of KB. Text that does not compress
 * (a finished run's events are stored compressed), the same in every run.
 */
const FAT = (() => {
  let x = 7;
  return Array.from({ length: 96_000 }, () => {
    x = (x * 48271) % 2147483647;
    return (x % 36).toString(36);
  }).join("");
})();
/** Every event of the file, or of one run: rows, and those in packs (db/queries/run-event-codec.ts). */
const EVENTS = `SELECT (SELECT count(*) FROM run_events WHERE run_id LIKE ?1)
  + (SELECT coalesce(sum(events), 0) FROM run_event_packs WHERE run_id LIKE ?1) AS n`;

let open: Awaited<ReturnType<typeof openTempDb>>[] = [];
afterEach(() => {
  for (const t of open) t.cleanup();
  open = [];
});

async function fresh(name: string) {
  const t = await openTempDb(name);
  open.push(t);
  await importBundle(t.db, JSON.parse(readFileSync(resolve(process.cwd(), "db/demo/demo-bank.json"), "utf8")));
  return t;
}

async function addRun(
  db: Db,
  id: string,
  daysAgo: number,
  options: { bankId?: string; question?: string; parent?: string; running?: boolean; tiers?: string[] } = {},
) {
  await createRun(db, {
    id,
    bankId: options.bankId ?? "demo",
    question: options.question ?? `question of ${id}`,
    skill: null,
    budget: "mid",
    mode: "synthesize",
    scope: "personal",
    model,
    parentRunId: options.parent ?? null,
    createdAt: new Date(NOW - daysAgo * DAY).toISOString(),
  });
  const tiers = options.tiers ?? ["mental_models", "observations", "raw_facts"];
  await db.insert(runEvents).values([
    { runId: id, seq: 0, at: 0, type: "run.started", payload: { question: "q", enabledTiers: tiers } },
    { runId: id, seq: 1, at: 1, type: "llm.request", iteration: 1, payload: { messages: [FAT, id] } },
    { runId: id, seq: 2, at: 2, type: "llm.request", iteration: 2, payload: { messages: [FAT, FAT, id] } },
  ]);
  if (options.running) return;
  await finishRun(db, id, {
    status: "done",
    answer: "an answer",
    citations: { memory_ids: [], observation_ids: [], mental_model_ids: [] },
    dropped: [],
    flags: [],
    usage: { inputTokens: 1, outputTokens: 1 },
    llmCalls: 2,
    iterations: 2,
    warnings: [],
    error: null,
  });
}

async function count(db: Db, sql: string, args: string[] = []): Promise<number> {
  const { rows } = await db.$client.execute({ sql, args });
  return Number(rows[0]?.n ?? 0);
}

const runIds = async (db: Db) =>
  (await db.$client.execute("SELECT id FROM runs ORDER BY id")).rows.map((r) => String(r.id));

/** 8 old runs of every kind (6 must be kept), 30 unreferenced old ones and 3 recent ones. */
async function seed(db: Db) {
  for (let i = 0; i < 30; i++) await addRun(db, `old-${String(i).padStart(2, "0")}`, 40 + i);
  for (let i = 0; i < 3; i++) await addRun(db, `new-${i}`, i);
  await addRun(db, "old-experiment", 50);
  await createExperiment(db, {
    id: "exp_1",
    bankId: "demo",
    suite: "demo-tour",
    suiteVersion: 1,
    questions: [{ question: "When did Atlas launch?" }],
    config: { mentalModels: [], model, draft: false } as never,
    concurrency: 1,
    baselineId: null,
    ownerId: null,
  });
  await linkExperimentRun(db, "exp_1", 0, "old-experiment");
  await addRun(db, "old-accepted", 60, { question: SOURCE_QUERY, tiers: ["observations", "raw_facts"] });
  await recordRefreshDecision(db, {
    runId: "old-accepted",
    bankId: "demo",
    modelId: "atlas-launch",
    baseVersion: 1,
    decision: "accepted",
    acceptedVersion: 2,
  });
  await addRun(db, "old-open-proposal", 61);
  await recordRefreshProposal(db, {
    runId: "old-open-proposal",
    bankId: "demo",
    modelId: "atlas-launch",
    baseVersion: 1,
  });
  // A refresh run from before proposals were recorded: the model's page still lists it.
  await addRun(db, "old-untracked-refresh", 62, { question: SOURCE_QUERY, tiers: ["observations", "raw_facts"] });
  // The same question with the mental-model tier on is an ordinary run: not kept.
  await addRun(db, "old-same-question", 63, { question: SOURCE_QUERY });
  await addRun(db, "old-parent", 70);
  await addRun(db, "old-child", 69, { parent: "old-parent" });
  await addRun(db, "old-running", 80, { running: true });
}

const KEPT = [
  "old-accepted",
  "old-experiment",
  "old-open-proposal",
  "old-parent",
  "old-running",
  "old-untracked-refresh",
];

describe("run retention", () => {
  it("a dry run reports what a prune would remove and keep, and changes nothing", async () => {
    const { db, path } = await fresh("retention-dry");
    await seed(db);
    const before = { runs: await runIds(db), events: await count(db, EVENTS, ["%"]) };
    await db.$client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    const size = statSync(path).size;
    const r = await pruneRuns(db, { rule: { olderThan: "30d" }, dryRun: true, now: NOW });
    expect(r).toMatchObject({ dryRun: true, matched: 38, deleted: 32, deletedEvents: 96 });
    expect(r.kept.total).toBe(6);
    expect(r.storage.vacuum).toBe("none");
    expect(await runIds(db)).toEqual(before.runs);
    expect(await count(db, EVENTS, ["%"])).toBe(before.events);
    await db.$client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    expect(statSync(path).size).toBe(size);
  });

  it("removes the old runs and their events, keeps every referenced run with its reason, and the file shrinks", async () => {
    const { db, path } = await fresh("retention-prune");
    expect(await count(db, "SELECT auto_vacuum AS n FROM pragma_auto_vacuum")).toBe(2);
    await seed(db);
    await db.$client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    const sizeBefore = statSync(path).size;

    const r = await pruneRuns(db, { rule: { olderThan: "30d" }, now: NOW });
    expect(r.deleted).toBe(32);
    expect(r.deletedEvents).toBe(96);
    expect(r.deletedExamples).toHaveLength(5);
    const reasons = Object.fromEntries(r.kept.reasons.map((k) => [k.reason, k]));
    expect(reasons).toEqual({
      running: { reason: "running", count: 1, examples: ["old-running"] },
      experiment: { reason: "experiment", count: 1, examples: ["old-experiment"] },
      accepted_proposal: { reason: "accepted_proposal", count: 1, examples: ["old-accepted"] },
      refresh: { reason: "refresh", count: 2, examples: ["old-open-proposal", "old-untracked-refresh"] },
      fork_parent: { reason: "fork_parent", count: 1, examples: ["old-parent"] },
    });
    expect(r.kept.total).toBe(6);
    expect(await runIds(db)).toEqual([...KEPT, "new-0", "new-1", "new-2"].sort());
    // No event outlives its run; the kept runs keep all of theirs.
    for (const table of ["run_events", "run_event_packs", "run_mental_model_reads"]) {
      expect(await count(db, `SELECT count(*) AS n FROM ${table} WHERE run_id NOT IN (SELECT id FROM runs)`)).toBe(0);
    }
    expect(await count(db, EVENTS, ["%"])).toBe(27);

    expect(r.storage.vacuum).toBe("incremental");
    expect(r.storage.bytesAfter).toBeLessThan(r.storage.bytesBefore / 2);
    expect(await count(db, "SELECT freelist_count AS n FROM pragma_freelist_count")).toBe(0);
    expect(statSync(path).size).toBeLessThan(sizeBefore / 2);

    // The parent's only re-run is gone now: the next prune removes it too, and nothing else.
    const again = await pruneRuns(db, { rule: { olderThan: "30d" }, now: NOW });
    expect(again).toMatchObject({ matched: 6, deleted: 1, deletedEvents: 3, deletedExamples: ["old-parent"] });
    expect(again.kept.total).toBe(5);
  });

  it("--keep N keeps each bank's newest N (one bank when named), plus the referenced ones", async () => {
    const { db } = await fresh("retention-keep");
    await seed(db);
    for (let i = 0; i < 4; i++) await addRun(db, `other-${i}`, 100 + i, { bankId: "other" });
    const one = await pruneRuns(db, { rule: { keep: 2 }, bankId: "other", now: NOW });
    expect(one.deleted).toBe(2);
    expect((await runIds(db)).filter((id) => id.startsWith("other-"))).toEqual(["other-0", "other-1"]);
    expect(await count(db, "SELECT count(*) AS n FROM runs WHERE bank_id = 'demo'")).toBe(41);

    const all = await pruneRuns(db, { rule: { keep: 3 }, now: NOW });
    expect(all.deleted).toBe(32);
    expect(await runIds(db)).toEqual([...KEPT, "new-0", "new-1", "new-2", "other-0", "other-1"].sort());
  });

  it("a run that becomes referenced after it was selected is kept by the delete itself", async () => {
    const { db } = await fresh("retention-race");
    await addRun(db, "old-a", 40);
    await addRun(db, "old-b", 41);
    // The selection happens inside pruneRuns; a re-run of old-a is made between selection and delete
    // by wrapping the client's batch (the delete's write transaction).
    const client = db.$client;
    const batch = client.batch.bind(client);
    let raced = false;
    client.batch = (async (...args: Parameters<typeof batch>) => {
      if (!raced) {
        raced = true;
        client.batch = batch;
        await addRun(db, "new-child", 0, { parent: "old-a" });
      }
      return batch(...args);
    }) as typeof client.batch;
    const r = await pruneRuns(db, { rule: { olderThan: "30d" }, now: NOW });
    expect(raced).toBe(true);
    expect(r.deleted).toBe(1);
    expect(await runIds(db)).toEqual(["new-child", "old-a"]);
    expect(await count(db, EVENTS, ["old-a"])).toBe(3);
  });

  it("a database from before retention shrinks only after the one-time vacuum, which switches it to incremental", async () => {
    const { db, path } = await fresh("retention-old");
    // As an earlier release made it: auto_vacuum NONE (rewrite the file without the mode).
    await db.$client.executeMultiple("PRAGMA auto_vacuum=NONE; VACUUM;");
    expect(await count(db, "SELECT auto_vacuum AS n FROM pragma_auto_vacuum")).toBe(0);
    for (let i = 0; i < 20; i++) await addRun(db, `old-${i}`, 40 + i);
    await db.$client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    const size = statSync(path).size;

    const first = await pruneRuns(db, { rule: { keep: 10 }, now: NOW });
    expect(first.deleted).toBe(10);
    expect(first.storage.vacuum).toBe("none");
    expect(first.storage.note).toMatch(/--vacuum/);
    await db.$client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    expect(statSync(path).size).toBe(size);

    const second = await pruneRuns(db, { rule: { keep: 5 }, vacuum: true, now: NOW });
    expect(second.storage.vacuum).toBe("full");
    expect(await count(db, "SELECT auto_vacuum AS n FROM pragma_auto_vacuum")).toBe(2);
    expect(statSync(path).size).toBeLessThan(size / 2);
    expect(await databaseBytes(db)).toBe(statSync(path).size);

    // From then on a prune shrinks the file without a full rewrite.
    const third = await pruneRuns(db, { rule: { keep: 1 }, now: NOW });
    expect(third.storage.vacuum).toBe("incremental");
    expect(third.storage.bytesAfter).toBeLessThan(third.storage.bytesBefore);
  });

  it("the auto-vacuum mode is set on a new file before WAL mode (after it, SQLite ignores it)", async () => {
    const { path } = await fresh("retention-mode");
    const plain = createClient({ url: `file:${path}` });
    try {
      expect((await plain.execute("PRAGMA auto_vacuum")).rows[0]?.auto_vacuum).toBe(2);
      expect((await plain.execute("PRAGMA journal_mode")).rows[0]?.journal_mode).toBe("wal");
    } finally {
      plain.close();
    }
  });
});
