import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Client, createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { importBundle } from "@/db/bundle-io";
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

function tempDbPath(name: string): string {
  const dir = resolve(process.cwd(), "test/.tmp");
  mkdirSync(dir, { recursive: true });
  return resolve(dir, `db-${name}-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.db`);
}

/** This worker's migrated database holding the demo bank, made once; later calls copy it. */
let demoTemplate: Promise<string> | undefined;

async function makeDemoTemplate(): Promise<string> {
  const path = tempDbPath("demo-template");
  const db = await openDb(`file:${path}`, { threads: false });
  try {
    await importBundle(db, JSON.parse(readFileSync("db/demo/demo-bank.json", "utf8")));
    // Everything into the main file: a copy of it alone is the whole database.
    await db.$client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    db.$client.close();
  }
  process.once("exit", () => {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
  });
  return path;
}

/**
 * A fresh temp database (a file of its own, unique per call) that holds the demo bank, as
 * `openTempDb` + importing db/demo/demo-bank.json would make it: a copy of one such database this
 * worker migrated and seeded once, for tests that each need their own seeded database.
 */
export async function openDemoTempDb(name: string): Promise<{ db: Db; path: string; cleanup: () => void }> {
  demoTemplate ??= makeDemoTemplate();
  const template = await demoTemplate;
  const path = tempDbPath(name);
  copyFileSync(template, path);
  if (existsSync(`${template}-wal`)) copyFileSync(`${template}-wal`, `${path}-wal`);
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
