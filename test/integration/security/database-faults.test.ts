/**
 * Issue #28 item 7 on a real small file system (a 6 MB tmpfs; needs root to mount, skipped
 * otherwise): a full disk and a read-only mount give a clear 503 ("the disk is full", "the database
 * is read-only"), never a 500 `internal`; reads keep working (a read-only file is opened read-only,
 * docs/operations.md#a-read-only-database); /api/health says what is wrong; and nothing is corrupted
 * (integrity check, and writes work again once there is room).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const mnt = vi.hoisted(() => {
  const dir = `/tmp/inspector-dbfault-${process.pid}-${Date.now()}`;
  process.env.DATABASE_URL = `file:${dir}/inspector.db`;
  process.env.REFLECT_LLM = "offline";
  return dir;
});

import { startRunAction } from "@/app/actions/runs";
import * as health from "@/app/api/health/route";
import * as exportRoute from "@/app/api/v1/banks/[bank]/export/route";
import * as facts from "@/app/api/v1/banks/[bank]/facts/route";
import { createReadOnlyFileClient, isReadOnlyDb, openDb } from "@/db/client";
import { httpError } from "@/lib/server/http/errors";
import { getAppDb } from "@/lib/server/runtime/db";
import { clearDatabaseFaults } from "@/lib/server/runtime/errors";

const root = resolve(import.meta.dirname, "../../..");

function mount(...args: string[]): boolean {
  try {
    execFileSync("mount", args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

mkdirSync(mnt, { recursive: true });
const mounted = process.getuid?.() === 0 && mount("-t", "tmpfs", "-o", "size=6m", "tmpfs", mnt);

type Handler = (request: Request, ctx: { params: Promise<Record<string, string> | undefined> }) => Promise<Response>;
async function call(handler: Handler, body?: unknown) {
  const res = await handler(
    new Request("http://127.0.0.1/api/v1/x", {
      method: body === undefined ? "GET" : "POST",
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { "content-type": "application/json" },
    }),
    { params: Promise.resolve({ bank: "demo" }) },
  );
  return { status: res.status, json: await res.json() };
}
const retain = (text: string) => call(facts.POST, { facts: [{ text, kind: "world", scope: "personal" }] });

beforeAll(async () => {
  if (mounted) await getAppDb();
});
afterAll(async () => {
  if (mounted) {
    (await getAppDb()).$client.close();
    execFileSync("umount", ["-l", mnt]);
  }
  rmSync(mnt, { recursive: true, force: true });
});

describe.skipIf(!mounted)("database faults on a small file system", () => {
  it("a full disk: writes answer 503 'the disk is full', reads work, health says so, nothing is corrupted", async () => {
    expect((await retain("Before the disk filled up.")).status).toBe(201);
    // Fill what is left of the file system.
    const filler = `${mnt}/filler`;
    try {
      execFileSync("dd", ["if=/dev/zero", `of=${filler}`, "bs=64k"], { stdio: "ignore" });
    } catch {
      // dd stops with ENOSPC: the file system is full.
    }
    let refused = { status: 0, json: {} as { error?: { code: string; message: string } } };
    // SQLite may still fit a small write into free pages: write until it cannot.
    for (let i = 0; i < 200 && refused.status !== 503; i++)
      refused = await retain(`${"A fact to fill the disk. ".repeat(400)}${i}`);
    expect(refused.status).toBe(503);
    expect(refused.json.error?.code).toBe("unavailable");
    expect(refused.json.error?.message).toMatch(/disk is full/);
    const action = await startRunAction({ bankId: "demo", question: "What did we decide about the launch date?" });
    expect(action.ok).toBe(false);
    if (!action.ok) expect(action.error.code).not.toBe("internal");

    const exported = await call(exportRoute.GET);
    expect(exported.status, JSON.stringify(exported.json)).toBe(200);
    const h = await health.GET();
    expect(h.status).toBe(200);
    expect(await h.json()).toMatchObject({ ok: false, database: { writable: false, faults: ["disk-full"] } });

    rmSync(filler);
    clearDatabaseFaults();
    expect((await retain("After there was room again.")).status).toBe(201);
    const db = await getAppDb();
    const check = await db.$client.execute("PRAGMA integrity_check");
    expect(check.rows[0]?.[0]).toBe("ok");
    expect(await (await health.GET()).json()).toMatchObject({ ok: true, database: { writable: true, faults: [] } });
  }, 120_000);

  it("a read-only mount: the CLI still reads (export), a write says 'read-only' in one line", async () => {
    const ro = `${mnt}-ro`;
    mkdirSync(ro, { recursive: true });
    expect(mount("-t", "tmpfs", "-o", "size=8m", "tmpfs", ro)).toBe(true);
    try {
      const url = `file:${ro}/inspector.db`;
      const env = { ...process.env, DATABASE_URL: url, REFLECT_LLM: "offline" };
      const cli = (...args: string[]) =>
        spawnSync(process.execPath, [join(root, "node_modules/tsx/dist/cli.mjs"), "lib/cli/main.ts", ...args], {
          cwd: root,
          env,
          encoding: "utf8",
          timeout: 90_000,
        });
      expect(cli("export", "--bank", "demo", "--out", `${mnt}/before.json`).status).toBe(0);
      expect(mount("-o", "remount,ro", ro)).toBe(true);
      // Reads keep working: the same export, byte for byte.
      const out = cli("export", "--bank", "demo", "--out", `${mnt}/after.json`);
      expect(out.status, out.stderr).toBe(0);
      expect(readFileSync(`${mnt}/after.json`, "utf8")).toBe(readFileSync(`${mnt}/before.json`, "utf8"));
      // A write says what is wrong, in one line, and changes nothing.
      const write = cli("import", "db/demo/demo-bank.json", "--replace");
      expect(write.status).not.toBe(0);
      expect(write.stderr).toMatch(/read-only/);
      const db = await openDb(url);
      try {
        expect(isReadOnlyDb(db)).toBe(true);
        expect((await db.$client.execute("SELECT count(*) AS n FROM facts WHERE bank_id = 'demo'")).rows[0]?.n).toBe(
          JSON.parse(readFileSync(`${mnt}/before.json`, "utf8")).facts.length,
        );
        const refused = await db.$client.execute("DELETE FROM facts").catch((err: unknown) => err);
        const res = httpError(refused);
        expect(res.status).toBe(503);
        expect((await res.json()).error.message).toMatch(/read-only/);
      } finally {
        db.$client.close();
      }
    } finally {
      execFileSync("umount", ["-l", ro]);
      rmSync(ro, { recursive: true, force: true });
    }
  }, 120_000);

  it("a server on a read-only database: reads work, writes and runs answer 503 'read-only', health says so", async () => {
    const ro = `${mnt}-server-ro`;
    mkdirSync(ro, { recursive: true });
    expect(mount("-t", "tmpfs", "-o", "size=8m", "tmpfs", ro)).toBe(true);
    const appUrl = process.env.DATABASE_URL;
    try {
      // A server ran on it (migrated, seeded), then the mount turned read-only and a server starts on it.
      const seeded = spawnSync(
        process.execPath,
        [
          join(root, "node_modules/tsx/dist/cli.mjs"),
          "lib/cli/main.ts",
          "export",
          "--bank",
          "demo",
          "--out",
          "/dev/null",
        ],
        {
          cwd: root,
          env: { ...process.env, DATABASE_URL: `file:${ro}/inspector.db` },
          encoding: "utf8",
          timeout: 90_000,
        },
      );
      expect(seeded.status, seeded.stderr).toBe(0);
      expect(mount("-o", "remount,ro", ro)).toBe(true);
      process.env.DATABASE_URL = `file:${ro}/inspector.db`;
      const appDbKey = Symbol.for("reflect-inspector:app-db");
      const store = globalThis as unknown as Record<symbol, unknown>;
      const previousApp = store[appDbKey];
      delete store[appDbKey];
      clearDatabaseFaults();
      vi.resetModules();
      try {
        const fresh = {
          health: await import("@/app/api/health/route"),
          exportRoute: await import("@/app/api/v1/banks/[bank]/export/route"),
          facts: await import("@/app/api/v1/banks/[bank]/facts/route"),
          runs: await import("@/app/actions/runs"),
          db: await import("@/lib/server/runtime/db"),
        };
        const h = await fresh.health.GET();
        expect(h.status).toBe(200);
        expect(await h.json()).toMatchObject({ ok: false, database: { writable: false, faults: ["read-only"] } });
        const exported = await call(fresh.exportRoute.GET);
        expect(exported.status, JSON.stringify(exported.json)).toBe(200);
        expect((exported.json as { facts: unknown[] }).facts.length).toBeGreaterThan(0);
        const refused = await call(fresh.facts.POST, {
          facts: [{ text: "On a read-only mount.", kind: "world", scope: "personal" }],
        });
        expect(refused.status).toBe(503);
        expect((refused.json as { error: { message: string } }).error.message).toMatch(/read-only/);
        const action = await fresh.runs.startRunAction({
          bankId: "demo",
          question: "What did we decide about the launch date?",
        });
        expect(action.ok).toBe(false);
        if (!action.ok) {
          expect(action.error.code).toBe("unavailable");
          expect(action.error.message).toMatch(/read-only/);
        }
        (await fresh.db.getAppDb()).$client.close();
      } finally {
        store[appDbKey] = previousApp;
      }
    } finally {
      process.env.DATABASE_URL = appUrl;
      execFileSync("umount", ["-l", ro]);
      rmSync(ro, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("a database only this process may not write (permissions, not a read-only file system)", () => {
  it("is opened mode=ro without immutable: reads see another writer's commits, its own writes are refused", async () => {
    const dir = `/tmp/inspector-dbro-${process.pid}-${Date.now()}`;
    mkdirSync(dir, { recursive: true });
    const url = `file:${dir}/inspector.db`;
    const writer = await openDb(url, { threads: false });
    // As root, permissions refuse nothing: the client this process would open is opened directly.
    const reader = createReadOnlyFileClient(`${dir}/inspector.db`, 5_000, false);
    try {
      const count = async () =>
        Number((await reader.execute("SELECT count(*) AS n FROM banks")).rows[0]?.n ?? Number.NaN);
      const before = await count();
      await writer.$client.execute(
        "INSERT INTO banks (id, name, permitted_teams) VALUES ('written-meanwhile', 'x', '[]')",
      );
      // Not immutable: another process's commit is seen.
      expect(await count()).toBe(before + 1);
      const refused = await reader.execute("DELETE FROM banks").catch((err: unknown) => err);
      expect(String((refused as { code?: string }).code)).toMatch(/^SQLITE_READONLY/);
      expect(httpError(refused).status).toBe(503);
    } finally {
      reader.close();
      writer.$client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!mounted)("a read-only database holding memories its search indexes lack", () => {
  it("the open warns, /api/health counts them (`unindexed`), and reads still work", async () => {
    const ro = `${mnt}-unindexed`;
    mkdirSync(ro, { recursive: true });
    expect(mount("-t", "tmpfs", "-o", "size=16m", "tmpfs", ro)).toBe(true);
    const appUrl = process.env.DATABASE_URL;
    const appDbKey = Symbol.for("reflect-inspector:app-db");
    const store = globalThis as unknown as Record<symbol, unknown>;
    const previousApp = store[appDbKey];
    const warn = vi.spyOn(console, "warn");
    try {
      const url = `file:${ro}/inspector.db`;
      // A server ran on it (migrated, seeded) in a process of its own, then another tool wrote a
      // fact by raw SQL: noted as pending, never applied to the index.
      const seeded = spawnSync(
        process.execPath,
        [
          join(root, "node_modules/tsx/dist/cli.mjs"),
          "lib/cli/main.ts",
          "export",
          "--bank",
          "demo",
          "--out",
          "/dev/null",
        ],
        { cwd: root, env: { ...process.env, DATABASE_URL: url }, encoding: "utf8", timeout: 90_000 },
      );
      expect(seeded.status, seeded.stderr).toBe(0);
      const raw = spawnSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `import { createClient } from "@libsql/client";
           const c = createClient({ url: ${JSON.stringify(url)} });
           await c.execute("INSERT INTO facts (id, bank_id, text, kind, tags, scope, recorded_at, updated_at) VALUES ('raw-1', 'demo', 'The zebracorn budget was approved.', 'world', '[]', 'personal', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')");
           await c.execute("PRAGMA wal_checkpoint(TRUNCATE)");
           c.close();`,
        ],
        { cwd: root, encoding: "utf8", timeout: 30_000 },
      );
      expect(raw.status, raw.stderr).toBe(0);
      expect(mount("-o", "remount,ro", ro)).toBe(true);

      process.env.DATABASE_URL = url;
      delete store[appDbKey];
      clearDatabaseFaults();
      vi.resetModules();
      const fresh = {
        health: await import("@/app/api/health/route"),
        client: await import("@/db/client"),
        db: await import("@/lib/server/runtime/db"),
      };
      const db = await fresh.db.getAppDb();
      expect(fresh.client.isReadOnlyDb(db)).toBe(true);
      expect(fresh.client.unindexedRows(db)).toBe(1);
      expect(warn.mock.calls.map((c) => String(c[0])).join("\n")).toMatch(
        /read-only and 1 memory was written without its search-index update.*searches do not find it/,
      );
      const h = await fresh.health.GET();
      expect(h.status).toBe(200);
      expect(await h.json()).toMatchObject({
        ok: false,
        database: { writable: false, faults: ["read-only"], unindexed: 1 },
      });
      // Reads work: the fact is there, though a search cannot find it until the file is writable again.
      const { rows } = await db.$client.execute("SELECT text FROM facts WHERE id = 'raw-1'");
      expect(rows[0]?.text).toBe("The zebracorn budget was approved.");
      db.$client.close();
    } finally {
      warn.mockRestore();
      store[appDbKey] = previousApp;
      process.env.DATABASE_URL = appUrl;
      execFileSync("umount", ["-l", ro]);
      rmSync(ro, { recursive: true, force: true });
    }
  }, 120_000);
});
