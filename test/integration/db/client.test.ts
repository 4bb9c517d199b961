import { existsSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";

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
