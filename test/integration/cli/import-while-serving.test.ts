/**
 * Issue #31 / #28 item 4: a big JSONL import (`cli import big.jsonl`, a real process) while this
 * process serves as a server would on the same libSQL file: it writes a run's events all along and
 * sweeps with every heartbeat, and another server process holds a live run. No event is lost, the
 * events keep committing while the import runs (it lets go of the lock between chunks), no run is
 * marked interrupted, and the bank appears whole at the end. A killed import leaves nothing visible,
 * and the next sweep removes its staging. (The lock wait itself is measured by the `writes` bench
 * section, with 250k facts: docs/performance.md.)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBank, listBanks } from "@/db/banks";
import { type Db, openDb } from "@/db/client";
import { createRun, getRun } from "@/db/runs";
import { runOwner, sweepInterruptedRuns } from "@/lib/server/run-owner";
import { CLI_ARGS, root } from "./cli-process";

const HEARTBEAT_MS = "100";
const FACTS = 25_000;
const dir = join(root, "test/.tmp", `import-serving-${process.pid}-${Date.now()}`);
const dbUrl = `file:${join(dir, "shared.db")}`;
const children: ChildProcess[] = [];
let db: Db;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function bigJsonl(bankId: string, facts: number): string {
  const file = join(dir, `${bankId}.jsonl`);
  const lines = [JSON.stringify({ version: 1, bank: { id: bankId, name: `Big ${bankId}`, permittedTeams: [] } })];
  for (let i = 0; i < facts; i++)
    lines.push(
      JSON.stringify({
        fact: {
          id: `f${i}`,
          text: `Note ${i}: the billing rollout for region ${i % 97} moved to week ${i % 52}.`,
          kind: "world",
          tags: i % 3 ? [] : ["billing"],
          scope: "personal",
          recordedAt: "2026-01-01T00:00:00Z",
        },
      }),
    );
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

function startImport(file: string): { child: ChildProcess; done: Promise<{ code: number | null; out: string }> } {
  const child = spawn(process.execPath, [...CLI_ARGS, "import", file], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: dbUrl, INSPECTOR_HEARTBEAT_MS: HEARTBEAT_MS, REFLECT_LLM: "offline" },
  });
  children.push(child);
  let out = "";
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (out += d));
  return { child, done: new Promise((r) => child.once("close", (code) => r({ code, out }))) };
}

/** Another server process with a live run (the run-owner fixture), heartbeating every 100 ms. */
function startOtherServer(runId: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "test/integration/security/fixtures/run-owner-child.ts", runId],
    {
      cwd: root,
      env: { ...process.env, DATABASE_URL: dbUrl, INSPECTOR_HEARTBEAT_MS: HEARTBEAT_MS },
      stdio: "pipe",
    },
  );
  children.push(child);
  return new Promise((ready, fail) => {
    let out = "";
    child.stdout?.on("data", (d) => {
      out += d;
      if (out.includes("ready")) ready(child);
    });
    child.stderr?.on("data", (d) => (out += d));
    child.once("exit", (code) => fail(new Error(`child exited ${code}: ${out}`)));
  });
}

const staged = async (bankId: string) =>
  (await db.$client.execute({ sql: "SELECT import_owner FROM banks WHERE id = ?", args: [bankId] })).rows[0]
    ?.import_owner ?? null;

beforeAll(async () => {
  process.env.INSPECTOR_HEARTBEAT_MS = HEARTBEAT_MS;
  mkdirSync(dir, { recursive: true });
  db = await openDb(dbUrl);
  // This process is the server: its own owner, sweeping on every heartbeat.
  await runOwner(db, "server", { sweep: true });
});
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  db?.$client.close();
  delete process.env.INSPECTOR_HEARTBEAT_MS;
  rmSync(dir, { recursive: true, force: true });
});

describe("a big import while a server writes", () => {
  it("loses no event, keeps events committing during the import, marks no run interrupted, and the bank appears whole", async () => {
    const file = bigJsonl("big", FACTS);
    await startOtherServer("run_other_server");
    await createRun(db, {
      id: "run_serving",
      bankId: "demo",
      question: "A run that streams events all through the import",
      skill: null,
      budget: "low",
      mode: "synthesize",
      scope: "personal",
      model: { kind: "offline", name: "offline" },
      ownerId: await runOwner(db),
    });

    const importing = startImport(file);
    let finished = false;
    void importing.done.then(() => (finished = true));
    let seq = 0;
    let duringImport = 0;
    let maxWaitMs = 0;
    while (!finished) {
      const before = await staged("big");
      const started = performance.now();
      await db.$client.execute({
        sql: "INSERT INTO run_events (run_id, seq, at, type, iteration, payload) VALUES ('run_serving', ?, ?, 'tool.call', 1, '{}')",
        args: [seq, new Date().toISOString()],
      });
      maxWaitMs = Math.max(maxWaitMs, performance.now() - started);
      seq++;
      // Committed while the bank was staged both before and after: the import was mid-way.
      if (before !== null && (await staged("big")) !== null) duringImport++;
      await sleep(20);
    }
    const { code, out } = await importing.done;
    expect(code, out).toBe(0);
    expect(out).toMatch(/imported bank big: 25000 facts/);
    console.log(`${seq} event writes, ${duringImport} committed mid-import, longest wait ${maxWaitMs.toFixed(0)} ms`);

    // No event lost: every write is there, in order, without a gap.
    const events = await db.$client.execute("SELECT seq FROM run_events WHERE run_id = 'run_serving' ORDER BY seq");
    expect(events.rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: seq }, (_, i) => i));
    // The import let go of the lock: events kept committing while it ran (one transaction would allow none).
    expect(duringImport).toBeGreaterThanOrEqual(5);
    // A few sweeps later, no run was taken for dead.
    await sleep(Number(HEARTBEAT_MS) * 5);
    await sweepInterruptedRuns(db);
    expect((await getRun(db, "run_serving"))?.status).toBe("running");
    expect((await getRun(db, "run_other_server"))?.status).toBe("running");
    // The bank, whole and visible; no staging left.
    expect(await getBank(db, "big")).not.toBeNull();
    const count = await db.$client.execute("SELECT count(*) AS n FROM facts WHERE bank_id = 'big'");
    expect(Number(count.rows[0]?.n)).toBe(FACTS);
    expect(
      (await db.$client.execute("SELECT count(*) AS n FROM banks WHERE import_owner IS NOT NULL")).rows[0]?.n,
    ).toBe(0);
  }, 180_000);

  it("an import killed mid-way leaves nothing visible, and the next sweep removes its staging", async () => {
    const file = bigJsonl("killed", FACTS);
    const { child, done } = startImport(file);
    // Wait until it has committed a chunk or more into its staging.
    for (let i = 0; i < 600; i++) {
      const n = await db.$client.execute("SELECT count(*) AS n FROM facts WHERE bank_id = 'killed'");
      if (Number(n.rows[0]?.n) >= 5_000) break;
      await sleep(50);
    }
    expect(await staged("killed")).not.toBeNull();
    child.kill("SIGKILL");
    await done;
    // Invisible: no route, list or export can see a half-imported bank.
    expect(await getBank(db, "killed")).toBeNull();
    expect((await listBanks(db)).map((b) => b.id)).not.toContain("killed");
    // The sweep (this server's, on its heartbeat or here) finds its owner gone and removes it.
    await sweepInterruptedRuns(db);
    expect(await staged("killed")).toBeNull();
    const left = await db.$client.execute("SELECT count(*) AS n FROM facts WHERE bank_id = 'killed'");
    expect(Number(left.rows[0]?.n)).toBe(0);
    const tables = await db.$client.execute(
      `SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'facts_fts_${Buffer.from("killed").toString("hex")}%'`,
    );
    expect(Number(tables.rows[0]?.n)).toBe(0);
    // The id is free again: the same import, run to the end, succeeds.
    const again = startImport(file);
    const { code, out } = await again.done;
    expect(code, out).toBe(0);
    expect(await getBank(db, "killed")).not.toBeNull();
  }, 180_000);
});
