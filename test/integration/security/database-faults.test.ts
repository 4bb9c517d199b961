/**
 * Issue #28 item 7 on a real small file system (a 6 MB tmpfs; needs root to mount, skipped
 * otherwise): a full disk and a read-only mount give a clear 503 ("the disk is full", "the database
 * is read-only"), never a 500 `internal`; reads keep working; /api/health says what is wrong; and
 * nothing is corrupted (integrity check, and writes work again once there is room).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
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
import { openDb } from "@/db/client";
import { clearDatabaseFaults, httpError } from "@/lib/server/http/errors";
import { getAppDb } from "@/lib/server/runtime/db";

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

  it("a read-only mount: opening says 'read-only' (503, never a 500 internal), the CLI says it in one line", async () => {
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
      expect(cli("export", "--bank", "demo", "--out", "/dev/null").status).toBe(0);
      expect(mount("-o", "remount,ro", ro)).toBe(true);
      const out = cli("export", "--bank", "demo", "--out", "/dev/null");
      expect(out.status).not.toBe(0);
      expect(out.stderr).toMatch(/read-only/);
      // What the server answers when its database is on that mount: a 503 naming the cause.
      const failure = await openDb(url).catch((err: unknown) => err);
      const res = httpError(failure);
      expect(res.status).toBe(503);
      expect((await res.json()).error.message).toMatch(/read-only/);
    } finally {
      execFileSync("umount", ["-l", ro]);
      rmSync(ro, { recursive: true, force: true });
    }
  }, 120_000);
});
