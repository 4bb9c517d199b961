/**
 * Review of issue #31's packed run events: a run whose process is killed outright (`kill -9`)
 * mid-run keeps its events as rows, readable as they were; once it is marked interrupted, the
 * background pass packs it (docs/performance.md#stored-bytes-per-run) and every read is unchanged.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDb } from "@/db/client";
import { getLastRunEvent, getRun, getRunEvents, packFinishedRuns } from "@/db/queries/runs";
import { staleAfterMs, sweepInterruptedRuns } from "@/lib/server/runtime/run-owner";
import { runExport } from "@/lib/server/services/runs";

const HEARTBEAT_MS = "100";
const root = resolve(import.meta.dirname, "../../..");
const dir = resolve(root, "test/.tmp", `run-killed-${process.pid}-${Date.now()}`);
const dbUrl = `file:${join(dir, "shared.db")}`;
let child: ChildProcess | undefined;
let db: Db;

beforeAll(async () => {
  process.env.INSPECTOR_HEARTBEAT_MS = HEARTBEAT_MS;
  mkdirSync(dir, { recursive: true });
  db = await openDb(dbUrl);
});
afterAll(() => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  db?.$client.close();
  delete process.env.INSPECTOR_HEARTBEAT_MS;
  rmSync(dir, { recursive: true, force: true });
});

function startChild(): Promise<string> {
  const proc = spawn(process.execPath, ["--import", "tsx", "test/integration/db/fixtures/run-killed-child.ts"], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: dbUrl, INSPECTOR_HEARTBEAT_MS: HEARTBEAT_MS },
    stdio: "pipe",
  });
  child = proc;
  return new Promise((ready, fail) => {
    let out = "";
    proc.stdout?.on("data", (d) => {
      out += d;
      const m = /ready (\S+)/.exec(out);
      if (m?.[1]) ready(m[1]);
    });
    proc.stderr?.on("data", (d) => {
      out += d;
    });
    proc.once("exit", (code) => fail(new Error(`child exited ${code}: ${out}`)));
  });
}

describe("a run whose process is killed mid-run", () => {
  it("reads the same as rows, once interrupted, and once packed", async () => {
    const runId = await startChild();
    child?.kill("SIGKILL");
    await new Promise((r) => child?.once("exit", r));
    const asRows = JSON.stringify(await getRunEvents(db, runId));
    const events = JSON.parse(asRows) as { seq: number; type: string }[];
    expect(events.length).toBeGreaterThanOrEqual(6);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(asRows).toContain("\\u0000");
    const lastRequest = JSON.stringify(await getLastRunEvent(db, runId, "llm.request"));

    await new Promise((r) => setTimeout(r, staleAfterMs() + 200));
    await sweepInterruptedRuns(db);
    expect((await getRun(db, runId))?.status).toBe("interrupted");
    const exported = JSON.stringify(await runExport(db, runId));
    expect(JSON.stringify(await getRunEvents(db, runId))).toBe(asRows);

    const packed = await packFinishedRuns(db);
    expect(packed).toMatchObject({ runs: 1, events: events.length, failed: [] });
    const stored = await db.$client.execute({
      sql: "SELECT (SELECT count(*) FROM run_events WHERE run_id = ?1) AS rows, (SELECT sum(events) FROM run_event_packs WHERE run_id = ?1) AS packed",
      args: [runId],
    });
    expect(stored.rows[0]).toMatchObject({ rows: 0, packed: events.length });
    expect(JSON.stringify(await getRunEvents(db, runId))).toBe(asRows);
    expect(JSON.stringify(await getLastRunEvent(db, runId, "llm.request"))).toBe(lastRequest);
    for (const after of [-1, 0, 2, events.length - 2])
      expect(JSON.stringify(await getRunEvents(db, runId, { afterSeq: after }))).toBe(
        JSON.stringify(events.slice(after + 1)),
      );
    expect(JSON.stringify(await runExport(db, runId))).toBe(exported);
  }, 60_000);
});
