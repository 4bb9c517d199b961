/**
 * Run retention over /api/v1 (route handlers called with real Requests, a temp libSQL file): bad
 * input is a 400 that changes nothing, a dry run changes nothing, a prune removes; a bank's
 * retention setting is read, set and removed, and the server applies it in the background (and
 * packs the events finished runs still hold as rows).
 */
import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const dbFile = vi.hoisted(() => {
  const path = `${process.cwd()}/test/.tmp/api-retention-${process.pid}-${Date.now()}.db`;
  process.env.DATABASE_URL = `file:${path}`;
  process.env.REFLECT_LLM = "offline";
  // The background pass runs every 300 ms here (hourly by default).
  process.env.INSPECTOR_RETENTION_MS = "300";
  return path;
});

import * as retention from "@/app/api/v1/banks/[bank]/run-retention/route";
import * as prune from "@/app/api/v1/runs/prune/route";
import { createRun } from "@/db/queries/runs";
import { runEvents } from "@/db/schema";
import { PruneResult, RunRetentionSetting } from "@/lib/contracts/retention";
import { getAppDb } from "@/lib/server/runtime/db";
import { importBundle } from "@/lib/server/services/bundle-io";

type Handler = (request: Request, ctx: { params: Promise<Record<string, string> | undefined> }) => Promise<Response>;

async function call(handler: Handler, params: Record<string, string>, init: { method?: string; body?: unknown } = {}) {
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  const request = new Request("http://127.0.0.1/api/v1/x", {
    method: init.method ?? (body === undefined ? "GET" : "POST"),
    body,
    headers: { "content-type": "application/json" },
  });
  const res = await handler(request, { params: Promise.resolve(Object.keys(params).length ? params : undefined) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

const DAY = 86_400_000;

async function addRuns(bankId: string, n: number, daysAgo: number) {
  const db = await getAppDb();
  for (let i = 0; i < n; i++) {
    const id = `${bankId}-${daysAgo}-${i}`;
    await createRun(db, {
      id,
      bankId,
      question: "q",
      skill: null,
      budget: "mid",
      mode: "synthesize",
      scope: "personal",
      model: { kind: "offline", name: "offline" },
      createdAt: new Date(Date.now() - daysAgo * DAY - i * 1000).toISOString(),
    });
    await db.$client.execute({ sql: "UPDATE runs SET status = 'done' WHERE id = ?", args: [id] });
    await db.insert(runEvents).values({ runId: id, seq: 0, at: 0, type: "run.started", payload: { n: i } });
  }
}

async function state() {
  const db = await getAppDb();
  // Events as rows or packed: the background pass packs finished runs' rows meanwhile.
  const { rows } = await db.$client.execute(
    `SELECT (SELECT count(*) FROM runs) AS runs,
            (SELECT count(*) FROM run_events) + (SELECT coalesce(sum(events), 0) FROM run_event_packs) AS events`,
  );
  return { runs: Number(rows[0]?.runs), events: Number(rows[0]?.events) };
}

beforeAll(async () => {
  mkdirSync(resolve(process.cwd(), "test/.tmp"), { recursive: true });
  const db = await getAppDb();
  await importBundle(db, {
    version: 1,
    bank: { id: "side", name: "Side" },
    facts: [],
    observations: [],
    mentalModels: [],
    skills: [],
  });
  await addRuns("demo", 5, 40);
  await addRuns("demo", 2, 1);
});
afterAll(async () => {
  (await getAppDb()).$client.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${dbFile}${suffix}`, { force: true });
});

describe("POST /api/v1/runs/prune", () => {
  it.each([
    [{}, /exactly one of olderThan and keep/],
    [{ olderThan: "30d", keep: 3 }, /exactly one of olderThan and keep/],
    [{ olderThan: "30x" }, /duration/],
    [{ olderThan: "0d" }, /duration/],
    [{ keep: -1 }, /≥ 0/],
    [{ keep: 1.5 }, /whole number/],
    [{ olderThan: "30d", force: true }, /force|unrecognized/i],
    [{ olderThan: "30d", bank: "../x" }, /slug/],
  ])("refuses %j with 400 and changes nothing", async (body, message) => {
    const before = await state();
    const res = await call(prune.POST, {}, { body });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.json.error)).toMatch(message);
    expect(await state()).toEqual(before);
  });

  it("an unknown bank is a 404", async () => {
    const res = await call(prune.POST, {}, { body: { olderThan: "30d", bank: "nope" } });
    expect(res.status).toBe(404);
  });

  it("a dry run reports and changes nothing; the prune then removes the same runs and their events", async () => {
    const before = await state();
    const dry = await call(prune.POST, {}, { body: { olderThan: "30d", bank: "demo", dryRun: true } });
    expect(dry.status).toBe(200);
    const report = PruneResult.parse(dry.json);
    expect(report).toMatchObject({ dryRun: true, matched: 5, deleted: 5, deletedEvents: 5, bank: "demo" });
    expect(await state()).toEqual(before);

    const real = await call(prune.POST, {}, { body: { olderThan: "30d", bank: "demo" } });
    expect(real.status).toBe(200);
    expect(real.json).toMatchObject({ dryRun: false, deleted: 5, deletedEvents: 5 });
    expect(real.json.storage.vacuum).toBe("incremental");
    expect(await state()).toEqual({ runs: before.runs - 5, events: before.events - 5 });
  });
});

describe("/api/v1/banks/{bank}/run-retention", () => {
  it("is read, refused when malformed, set, applied in the background and removed", async () => {
    expect((await call(retention.GET, { bank: "side" })).json).toMatchObject({ bankId: "side", retention: null });
    expect((await call(retention.GET, { bank: "nope" })).status).toBe(404);
    for (const body of [{}, { keep: 1, olderThan: "1d" }, { olderThan: "1 day" }]) {
      const bad = await call(retention.PUT, { bank: "side" }, { method: "PUT", body });
      expect(bad.status).toBe(400);
    }
    expect((await call(retention.GET, { bank: "side" })).json.retention).toBeNull();

    await addRuns("side", 4, 2);
    const set = await call(retention.PUT, { bank: "side" }, { method: "PUT", body: { keep: 1 } });
    expect(set.status).toBe(200);
    expect(RunRetentionSetting.parse(set.json).retention).toEqual({ keep: 1 });

    // The server's background pass applies it: only the bank's newest run stays; demo is untouched.
    const db = await getAppDb();
    const sideRuns = async () =>
      (await db.$client.execute("SELECT id FROM runs WHERE bank_id = 'side' ORDER BY id")).rows.map((r) => r.id);
    await vi.waitFor(async () => expect(await sideRuns()).toEqual(["side-2-0"]), { timeout: 10_000, interval: 100 });
    // The same pass packs the events of finished runs that are still rows (these were written as rows).
    await vi.waitFor(
      async () => {
        const { rows } = await db.$client.execute(
          "SELECT (SELECT count(*) FROM run_events) AS rows, (SELECT count(*) FROM run_event_packs) AS packs",
        );
        expect(rows[0]).toMatchObject({ rows: 0, packs: 3 });
      },
      { timeout: 10_000, interval: 100 },
    );
    expect((await db.$client.execute("SELECT count(*) AS n FROM runs WHERE bank_id = 'demo'")).rows[0]?.n).toBe(2);

    const removed = await call(retention.DELETE, { bank: "side" }, { method: "DELETE" });
    expect(removed.status).toBe(204);
    expect((await call(retention.GET, { bank: "side" })).json.retention).toBeNull();
    await addRuns("side", 2, 3);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await sideRuns()).toHaveLength(3);
  });
});
