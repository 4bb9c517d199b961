/**
 * `cli runs prune` / `cli runs retention` as a user runs them (a real process on a libSQL file):
 * bad input exits 2 with one line and changes nothing; a dry run changes nothing; a prune removes
 * and says what it kept and why.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDb } from "@/db/client";
import { recordRefreshDecision } from "@/db/queries/mental-model-refreshes";
import { createRun } from "@/db/queries/runs";
import { runEvents } from "@/db/schema";
import { importBundle } from "@/lib/server/services/bundle-io";
import { cliRunner, root } from "./cli-process";

const dir = join(root, "test/.tmp", `cli-prune-${process.pid}-${Date.now()}`);
const url = `file:${join(dir, "inspector.db")}`;
const cli = cliRunner(url);
let db: Db;

async function state() {
  const { rows } = await db.$client.execute(
    "SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM run_events) AS events",
  );
  return { runs: Number(rows[0]?.runs), events: Number(rows[0]?.events) };
}

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  db = await openDb(url, { threads: false });
  await importBundle(db, { version: 1, bank: { id: "demo", name: "Demo" }, facts: [] });
  for (let i = 0; i < 6; i++) {
    const id = `run-old-${i}`;
    await createRun(db, {
      id,
      bankId: "demo",
      question: "q",
      skill: null,
      budget: "mid",
      mode: "synthesize",
      scope: "personal",
      model: { kind: "offline", name: "offline" },
      createdAt: new Date(Date.now() - (40 + i) * 86_400_000).toISOString(),
    });
    await db.$client.execute({ sql: "UPDATE runs SET status = 'done' WHERE id = ?", args: [id] });
    await db.insert(runEvents).values({ runId: id, seq: 0, at: 0, type: "run.started", payload: { i } });
  }
  await recordRefreshDecision(db, {
    runId: "run-old-5",
    bankId: "demo",
    modelId: "m",
    baseVersion: 1,
    decision: "accepted",
    acceptedVersion: 2,
  });
});
afterAll(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("cli runs prune", { timeout: 120_000 }, () => {
  it("refuses bad input with exit 2 and one line, changing nothing", async () => {
    const before = await state();
    // Every refusal's wording is in test/unit/cli/runs-prune-args.test.ts; here, what a process does with one.
    for (const [args, message] of [
      [["--older-than", "30x"], /--older-than: not a duration/],
      [["--older-than", "30d", "--keep", "2"], /exactly one of --older-than/],
      [["--older-than", "30d", "--bank", "nope"], /unknown bank "nope"/],
    ] as const) {
      const res = cli("runs", "prune", ...args);
      expect(res.code, `${args.join(" ")}: ${res.stderr}`).toBe(2);
      expect(res.stderr).toMatch(message);
      expect(res.stderr.trim().split("\n")).toHaveLength(1);
    }
    expect(await state()).toEqual(before);
  });

  it("a dry run changes nothing; the prune removes the runs and their events and names what it kept", async () => {
    const before = await state();
    const dry = cli("runs", "prune", "--older-than", "30d", "--dry-run", "--json");
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, matched: 6, deleted: 5, deletedEvents: 5 });
    expect(await state()).toEqual(before);

    const real = cli("runs", "prune", "--older-than", "30d", "--bank", "demo");
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toContain("removed 5 runs and 5 events");
    expect(real.stdout).toContain("kept 1 run that something refers to:");
    expect(real.stdout).toMatch(/1 {2}a refresh proposal accepted as a mental-model version \(e\.g\. run-old-5\)/);
    expect(real.stdout).toMatch(/database: .* MB → .* MB \(incremental vacuum\)/);
    expect(await state()).toEqual({ runs: before.runs - 5, events: before.events - 5 });
  });

  it("runs retention sets, prints and removes a bank's setting; bad input changes nothing", async () => {
    expect(cli("runs", "retention", "--bank", "demo", "--older-than", "2w").code).toBe(2);
    expect(cli("runs", "retention", "--bank", "demo").stdout).toContain("no run retention");
    const set = cli("runs", "retention", "--bank", "demo", "--older-than", "90d", "--json");
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ bankId: "demo", retention: { olderThan: "90d" } });
    expect(cli("runs", "retention", "--bank", "demo", "--off").stdout).toContain("no run retention");
  });
});
