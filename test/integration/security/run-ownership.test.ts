/**
 * Runs have an owner (SECURITY.md): a second process on the same database file leaves live runs alone,
 * a killed owner's runs become `interrupted` with `finishedAt` and a reason, a final status is never
 * overwritten, and a database from before owners existed upgrades with its dangling runs swept.
 * Real processes (tsx), real heartbeats, real libSQL files.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDb } from "@/db/client";
import { createRun, finishRun, getRun, registerInstance } from "@/db/runs";
import { failedRunResult } from "@/lib/reflect";
import { ownerLiveness, processIdentity, runOwner, staleAfterMs, sweepInterruptedRuns } from "@/lib/server/run-owner";

const HEARTBEAT_MS = "100";
const root = resolve(import.meta.dirname, "../../..");
const dir = resolve(root, "test/.tmp", `owners-${process.pid}-${Date.now()}`);
const dbUrl = `file:${join(dir, "shared.db")}`;
const children: ChildProcess[] = [];
let db: Db;

function startChild(runId: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    // tsx as a loader, not its CLI (which runs the script in a grandchild that SIGKILL would miss).
    ["--import", "tsx", "test/integration/security/fixtures/run-owner-child.ts", runId],
    { cwd: root, env: { ...process.env, DATABASE_URL: dbUrl, INSPECTOR_HEARTBEAT_MS: HEARTBEAT_MS }, stdio: "pipe" },
  );
  children.push(child);
  return new Promise((ready, fail) => {
    let out = "";
    child.stdout?.on("data", (d) => {
      out += d;
      if (out.includes("ready")) ready(child);
    });
    child.stderr?.on("data", (d) => {
      out += d;
    });
    child.once("exit", (code) => fail(new Error(`child exited ${code}: ${out}`)));
  });
}

const RUN = {
  bankId: "demo",
  question: "Still thinking",
  skill: null,
  budget: "low" as const,
  mode: "synthesize" as const,
  scope: "personal" as const,
  model: { kind: "offline" as const, name: "offline" },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  process.env.INSPECTOR_HEARTBEAT_MS = HEARTBEAT_MS;
  mkdirSync(dir, { recursive: true });
  db = await openDb(dbUrl);
});
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  db?.$client.close();
  delete process.env.INSPECTOR_HEARTBEAT_MS;
  rmSync(dir, { recursive: true, force: true });
});

describe("two processes on one database", () => {
  it("a server starting (its sweep) leaves a live CLI run alone, then marks it interrupted once the CLI is killed", async () => {
    const child = await startChild("run_live_cli");
    // This process plays the second server: it registers and sweeps, as getAppDb does on start.
    await runOwner(db, "server", { sweep: true });
    await sleep(Number(HEARTBEAT_MS) * 8); // longer than the stale threshold: the child's heartbeat keeps it alive
    await sweepInterruptedRuns(db);
    expect((await getRun(db, "run_live_cli"))?.status).toBe("running");

    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    await sleep(staleAfterMs() + 200);
    // This process's heartbeat sweeps too; either sweep may be the one that marks it.
    await sweepInterruptedRuns(db);
    const run = await getRun(db, "run_live_cli");
    expect(run?.status).toBe("interrupted");
    expect(run?.finishedAt).not.toBeNull();
    expect(run?.error?.phase).toBe("interrupted");
    expect(run?.error?.message).toMatch(/cli process \d+ .* stopped \(no heartbeat since/);
  });

  it("a live process whose heartbeat cannot be written (stopped, as behind a long write lock) keeps its runs", async () => {
    const child = await startChild("run_blocked_cli");
    // SIGSTOP: the process is alive but writes no heartbeat, as when a 58 s import holds the lock.
    child.kill("SIGSTOP");
    try {
      await sleep(staleAfterMs() * 3 + 200);
      await sweepInterruptedRuns(db);
      expect((await getRun(db, "run_blocked_cli"))?.status).toBe("running");
    } finally {
      child.kill("SIGCONT");
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
    }
  });

  it("after a restart, a dead process's runs are interrupted at once (not after the stale threshold)", async () => {
    const child = await startChild("run_dead_cli");
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    // No wait: its last heartbeat is still fresh, but its pid on this host is gone.
    await sweepInterruptedRuns(db);
    const run = await getRun(db, "run_dead_cli");
    expect(run?.status).toBe("interrupted");
    expect(run?.error?.phase).toBe("interrupted");
  });

  it("never marks this process's own running runs", async () => {
    const ownerId = await runOwner(db);
    await createRun(db, {
      id: "run_mine",
      bankId: "demo",
      question: "Mine",
      skill: null,
      budget: "low",
      mode: "synthesize",
      scope: "personal",
      model: { kind: "offline", name: "offline" },
      ownerId,
    });
    await sleep(staleAfterMs() + 200);
    await sweepInterruptedRuns(db);
    expect((await getRun(db, "run_mine"))?.status).toBe("running");
  });

  it("a final status is never overwritten: finishing an interrupted run keeps it interrupted", async () => {
    const before = await getRun(db, "run_live_cli");
    const after = await finishRun(db, "run_live_cli", { ...failedRunResult({ message: "late", phase: "engine" }) });
    expect(after.status).toBe("interrupted");
    expect(after.error).toEqual(before?.error);
    const done = await finishRun(db, "run_mine", failedRunResult({ message: "boom", phase: "engine" }));
    expect(done.status).toBe("failed");
    await sweepInterruptedRuns(db);
    expect((await getRun(db, "run_mine"))?.status).toBe("failed");
  });
});

describe("liveness that survives a long write lock, and a restart on the same pid", () => {
  it("an owner on another host whose heartbeat waited behind a long write lock keeps its runs; once really silent, they are interrupted", async () => {
    // This process is the sweeping server (a sweep with every heartbeat).
    await runOwner(db, "server", { sweep: true });
    // A server on another host: judged by its heartbeat alone (no pid to ask). Fresh now, and it
    // writes no other: the test plays its silence.
    await registerInstance(db, { id: "inst_remote", kind: "server", pid: 4242, hostname: "another-host" });
    await createRun(db, { ...RUN, id: "run_remote", ownerId: "inst_remote" });
    // A write lock held for three stale periods (what a 250k import did in one transaction): every
    // heartbeat, the remote one and this process's, waits behind it.
    const locker = createClient({ url: dbUrl });
    const tx = await locker.transaction("write");
    await sleep(staleAfterMs() * 3);
    await tx.commit();
    locker.close();
    // The sweeps right after the lock see a heartbeat three stale periods old, and know why.
    await sleep(Number(HEARTBEAT_MS) * 3);
    expect((await getRun(db, "run_remote"))?.status).toBe("running");
    // Still silent a stale period after the lock was free: that is death. (On a loaded machine a
    // slow sweep step also counts as a wait for the lock, which only delays it: polled, bounded.)
    let run = await getRun(db, "run_remote");
    for (let i = 0; i < 100 && run?.status === "running"; i++) {
      await sleep(Number(HEARTBEAT_MS) * 2);
      run = await getRun(db, "run_remote");
    }
    expect(run?.status).toBe("interrupted");
    expect(run?.error?.message).toMatch(/server process 4242 on another-host that ran it stopped/);
  });

  it.skipIf(processIdentity(process.pid) === null)(
    "after a restart on the same pid (a container's pid 1), the predecessor's runs are interrupted at once",
    async () => {
      // The process before this one held this very pid on this host; its heartbeat is fresh.
      await registerInstance(db, {
        id: "inst_predecessor",
        kind: "server",
        pid: process.pid,
        hostname: hostname(),
        processStart: "an-earlier-boot:12345",
      });
      await createRun(db, { ...RUN, id: "run_predecessor", ownerId: "inst_predecessor" });
      await createRun(db, { ...RUN, id: "run_this_process", ownerId: await runOwner(db) });
      await sweepInterruptedRuns(db);
      const run = await getRun(db, "run_predecessor");
      expect(run?.status).toBe("interrupted");
      expect(run?.error?.message).toMatch(new RegExp(`server process ${process.pid} on .* stopped`));
      // This process, on the same pid, is recognised as itself.
      expect((await getRun(db, "run_this_process"))?.status).toBe("running");
      expect(
        ownerLiveness({ pid: process.pid, hostname: hostname(), processStart: processIdentity(process.pid) }),
      ).toBe("alive-verified");
    },
  );
});

describe("upgrading a database from before run owners", () => {
  it("migrates and sweeps the runs it left running, with finishedAt and a reason", async () => {
    const oldDir = join(dir, "old-migrations");
    cpSync(resolve(root, "db/migrations"), oldDir, { recursive: true });
    const journalPath = join(oldDir, "meta/_journal.json");
    const journal = JSON.parse(readFileSync(journalPath, "utf8"));
    const ownerEntry = journal.entries.findIndex((e: { tag: string }) => e.tag.endsWith("_run_owners"));
    expect(ownerEntry).toBeGreaterThan(0);
    journal.entries = journal.entries.slice(0, ownerEntry);
    writeFileSync(journalPath, JSON.stringify(journal));

    const url = `file:${join(dir, "old.db")}`;
    const client = createClient({ url });
    await migrate(drizzle(client), { migrationsFolder: oldDir });
    await client.execute(
      `INSERT INTO runs (id, bank_id, question, budget, mode, scope, model_kind, model_name, status, created_at, dropped, flags, warnings)
       VALUES ('run_old', 'demo', 'old', 'low', 'synthesize', 'personal', 'offline', 'offline', 'running', '2026-01-01T00:00:00.000Z', '[]', '[]', '[]'),
              ('run_old_done', 'demo', 'old', 'low', 'synthesize', 'personal', 'offline', 'offline', 'done', '2026-01-01T00:00:00.000Z', '[]', '[]', '[]')`,
    );
    const columns = await client.execute("PRAGMA table_info(runs)");
    expect(columns.rows.map((r) => r.name)).not.toContain("owner_id");
    client.close();

    const upgraded = await openDb(url);
    try {
      expect(await sweepInterruptedRuns(upgraded)).toBe(1);
      const run = await getRun(upgraded, "run_old");
      expect(run?.status).toBe("interrupted");
      expect(run?.finishedAt).not.toBeNull();
      expect(run?.error?.message).toMatch(/predates run owners/);
      expect((await getRun(upgraded, "run_old_done"))?.status).toBe("done");
    } finally {
      upgraded.$client.close();
    }
  });
});
