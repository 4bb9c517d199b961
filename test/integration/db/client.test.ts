import { existsSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { getDb, openDb } from "@/db/client";
import { isAppError } from "@/lib/contracts/errors";

const dir = resolve(process.cwd(), `test/.tmp/getdb-${process.pid}`);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("getDb", () => {
  it("creates the data folder, enables WAL, migrates, and returns one shared client", async () => {
    process.env.DATABASE_URL = `file:${dir}/nested/inspector.db`;
    try {
      const first = getDb();
      const db = await first;
      expect(getDb()).toBe(first);
      expect(existsSync(`${dir}/nested/inspector.db`)).toBe(true);
      const mode = await db.$client.execute("PRAGMA journal_mode");
      expect(mode.rows[0]?.journal_mode).toBe("wal");
      const banks = await db.$client.execute("SELECT COUNT(*) AS n FROM banks");
      expect(Number(banks.rows[0]?.n)).toBe(0);
      db.$client.close();
    } finally {
      delete process.env.DATABASE_URL;
    }
  });
});

describe("openDb failures", () => {
  it("name the cause under drizzle's wrapper and never print a URL's token", async () => {
    const err = await openDb("libsql://nonexistent.invalid?authToken=SECRETTOKEN123").catch((e: unknown) => e);
    expect(isAppError(err, "unavailable")).toBe(true);
    const message = (err as Error).message;
    expect(message).not.toContain("SECRETTOKEN123");
    expect(message).toContain("authToken=***");
    expect(message).not.toMatch(/Failed query: ?$/);
    expect(message.length).toBeGreaterThan(
      "cannot open the database at libsql://nonexistent.invalid?authToken=***: ".length,
    );
  }, 60_000);
});
