import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Client, createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { type Db, openDb } from "@/db/client";

/** A fresh, migrated libSQL file under test/.tmp/ (unique per call). */
export async function openTempDb(name: string): Promise<{ db: Db; path: string; cleanup: () => void }> {
  const dir = resolve(process.cwd(), "test/.tmp");
  mkdirSync(dir, { recursive: true });
  const path = resolve(dir, `db-${name}-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.db`);
  const db = await openDb(`file:${path}`);
  return {
    db,
    path,
    cleanup: () => {
      db.$client.close();
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
    },
  };
}

/**
 * A database as an earlier release left it: a copy of the migrations up to (not including) the
 * one tagged `before` (e.g. "0007") applied to a new file in `dir`, through a plain client.
 */
export async function migratedUpTo(dir: string, before: string): Promise<{ url: string; client: Client }> {
  const old = join(dir, "migrations");
  cpSync(resolve(process.cwd(), "db/migrations"), old, { recursive: true });
  const journalPath = join(old, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
  journal.entries = journal.entries.filter((e) => e.tag < before);
  writeFileSync(journalPath, JSON.stringify(journal));
  const url = `file:${join(dir, "inspector.db")}`;
  const client = createClient({ url });
  await migrate(drizzle({ client }), { migrationsFolder: old });
  return { url, client };
}
