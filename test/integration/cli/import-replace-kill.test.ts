/**
 * Issue #31: `cli import big.jsonl --replace` (a real process) killed outright (`kill -9`) leaves
 * either the old bank or the new one, never a mix: killed while it stages, the old bank is intact
 * and the sweep removes the staging; killed after the swap, while it removes the old rows, the new
 * bank is whole and the sweep removes the rest (docs/operations.md#big-imports).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDb } from "@/db/client";
import { listBanks } from "@/db/queries/banks";
import { searchFacts } from "@/db/queries/search";
import { runOwner, sweepInterruptedRuns } from "@/lib/server/runtime/run-owner";
import { exportBundle } from "@/lib/server/services/bundle-io";
import { CLI_ARGS, root } from "./cli-process";

const HEARTBEAT_MS = "100";
const FACTS = 30_000;
const dir = join(root, "test/.tmp", `import-replace-kill-${process.pid}-${Date.now()}`);
const dbUrl = `file:${join(dir, "shared.db")}`;
const children: ChildProcess[] = [];
let db: Db;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function jsonl(name: string, word: string, facts: number): string {
  const file = join(dir, `${name}.jsonl`);
  const lines = [JSON.stringify({ version: 1, bank: { id: "big", name, permittedTeams: [] } })];
  for (let i = 0; i < facts; i++)
    lines.push(
      JSON.stringify({
        fact: {
          id: `f${i}`,
          text: `Note ${i}: the ${word} rollout for region ${i % 97} moved to week ${i % 52}.`,
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

function startImport(...args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; out: string }> } {
  const child = spawn(process.execPath, [...CLI_ARGS, "import", ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: dbUrl, INSPECTOR_HEARTBEAT_MS: HEARTBEAT_MS, REFLECT_LLM: "offline" },
  });
  children.push(child);
  let out = "";
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (out += d));
  return { child, done: new Promise((r) => child.once("close", (code) => r({ code, out }))) };
}

const n = async (sql: string, args: string[] = []) => Number((await db.$client.execute({ sql, args })).rows[0]?.n);
const storageOf = async () =>
  (await db.$client.execute("SELECT storage_id FROM banks WHERE id = 'big'")).rows[0]?.storage_id ?? null;
const found = (query: string) => searchFacts(db, { bankId: "big", query, limit: 5, tags: [], scopes: ["personal"] });

beforeAll(async () => {
  process.env.INSPECTOR_HEARTBEAT_MS = HEARTBEAT_MS;
  mkdirSync(dir, { recursive: true });
  db = await openDb(dbUrl);
  await runOwner(db, "server");
  const { code, out } = await startImport(jsonl("Old", "quokka", FACTS)).done;
  expect(code, out).toBe(0);
}, 180_000);
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  db?.$client.close();
  delete process.env.INSPECTOR_HEARTBEAT_MS;
  rmSync(dir, { recursive: true, force: true });
});

describe("import --replace killed with kill -9", () => {
  it("while it stages: the old bank is intact, and the sweep removes the staging", async () => {
    const before = await exportBundle(db, "big");
    expect(before?.facts).toHaveLength(FACTS);
    const { child, done } = startImport(jsonl("New", "wombat", FACTS), "--replace");
    for (let i = 0; i < 1_200; i++) {
      if ((await n("SELECT count(*) AS n FROM facts WHERE bank_id LIKE '~import-%'")) >= 2_000) break;
      await sleep(25);
    }
    expect(await storageOf()).toBeNull();
    child.kill("SIGKILL");
    await done;
    expect(await storageOf()).toBeNull();
    expect(await exportBundle(db, "big")).toEqual(before);
    expect((await found("wombat")).length).toBe(0);
    expect((await found("quokka")).length).toBe(5);
    await sweepInterruptedRuns(db);
    expect(await n("SELECT count(*) AS n FROM banks WHERE id LIKE '~%'")).toBe(0);
    expect(await n("SELECT count(*) AS n FROM facts WHERE bank_id NOT IN ('big', 'demo')")).toBe(0);
    expect(await exportBundle(db, "big")).toEqual(before);
  }, 180_000);

  it("after the swap, while it removes the old rows: the new bank is whole, and the sweep removes the rest", async () => {
    const { child, done } = startImport(jsonl("New", "wombat", FACTS), "--replace");
    let storage: unknown = null;
    for (let i = 0; i < 6_000 && storage === null; i++) {
      storage = await storageOf();
      if (storage === null) await sleep(10);
    }
    expect(storage).toMatch(/^~import-/);
    child.kill("SIGKILL");
    await done;
    // The old rows (under the bank's own id) were being removed in chunks: some are left.
    const left = await n("SELECT count(*) AS n FROM facts WHERE bank_id = 'big'");
    expect(left).toBeGreaterThan(0);
    const after = await exportBundle(db, "big");
    expect(after?.bank.name).toBe("New");
    expect(after?.facts).toHaveLength(FACTS);
    expect(after?.facts.every((f) => f.text.includes("wombat"))).toBe(true);
    expect((await found("quokka")).length).toBe(0);
    expect((await found("wombat")).length).toBe(5);
    // The CLI seeded the demo bank beside it; no storage or staging row is a bank.
    expect((await listBanks(db)).map((b) => b.id)).toEqual(["big", "demo"]);
    // Each sweep removes for a few seconds at most (a server's heartbeat waits for it): a few sweeps.
    const oldRows = () => n("SELECT count(*) AS n FROM facts WHERE bank_id NOT IN (?, 'demo')", [String(storage)]);
    for (let i = 0; i < 30 && (await oldRows()) > 0; i++) await sweepInterruptedRuns(db);
    expect(await oldRows()).toBe(0);
    expect(
      await n(
        `SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'facts_fts_%'
           AND name NOT LIKE 'facts_fts_${Buffer.from("big").toString("hex")}%' AND name NOT LIKE 'facts_fts_${Buffer.from("demo").toString("hex")}%'`,
      ),
    ).toBe(0);
    expect(await exportBundle(db, "big")).toEqual(after);
  }, 180_000);
});
