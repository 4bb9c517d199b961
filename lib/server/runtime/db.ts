import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type Db, getDb, isReadOnlyDb, unindexedRows } from "@/db/client";
import { listBanks } from "@/db/queries/banks";
import { startRetentionSchedule } from "../services/retention";
import { type DatabaseFault, isDatabaseFault, recentDatabaseFaults, toAppError } from "./errors";
import { processWide } from "./process-wide";
import { runOwner } from "./run-owner";

export const DEMO_BUNDLE_PATH = resolve(process.cwd(), "db/demo/demo-bank.json");

/** Loads the built-in demo bank when the database has no bank at all (first start). */
export async function ensureDemoBank(db: Db): Promise<boolean> {
  if ((await listBanks(db)).length > 0) return false;
  // Loaded only when the demo is seeded: a command on a bank that exists needs no bundle code.
  const [{ importBundle }, { embedAfterImport }] = await Promise.all([
    import("@/lib/server/services/bundle-io"),
    import("./embeddings"),
  ]);
  const { bankId } = await importBundle(db, JSON.parse(readFileSync(DEMO_BUNDLE_PATH, "utf8")));
  // With embeddings configured, the seeded bank gets its vectors like any imported bank.
  await embedAfterImport(db, bankId);
  return true;
}

/** Process-wide: were it per route bundle, a page opened late would mark this process's own running runs interrupted. */
const app = processWide("app-db", (): { db?: Promise<Db> } => ({}));

/**
 * The web app's database: migrated, seeded with the demo bank when empty, registered as this
 * server's run owner, and swept: runs whose owning process stopped are marked `interrupted`
 * (now and with every heartbeat); live runs of another server or a CLI are left alone. The banks'
 * run retention settings are applied on a timer.
 */
export function getAppDb(): Promise<Db> {
  if (!app.db) {
    const db = (async () => {
      const db = await getDb();
      try {
        await ensureDemoBank(db);
        await runOwner(db, "server", { sweep: true });
        // Each bank's run retention setting, applied in the background (docs/operations.md#run-retention).
        startRetentionSchedule(db);
      } catch (err) {
        // A read-only or full disk: reads still work, so the app serves them; writes (runs
        // included) answer what is wrong, and /api/health reports it.
        if (!isDatabaseFault(err)) throw err;
        console.error(`error: ${toAppError(err).message}`);
      }
      return db;
    })();
    app.db = db;
    db.catch(() => {
      if (app.db === db) app.db = undefined;
    });
  }
  return app.db;
}

/** The CLI's database: migrated and seeded; it owns the runs it starts and sweeps nobody's. */
export async function getCliDb(): Promise<Db> {
  // A command answers no other request while it waits on SQL: no worker threads to start.
  const db = await getDb({ threads: false });
  await ensureDemoBank(db);
  return db;
}

/**
 * What stops writes lately: faults seen on a write in the last minute, and "read-only" for as long
 * as the database was opened read-only (its file or file system cannot be written; docs/operations.md#a-read-only-database).
 */
export function databaseFaults(db: Db): DatabaseFault[] {
  const faults = recentDatabaseFaults();
  if (isReadOnlyDb(db) && !faults.includes("read-only")) faults.push("read-only");
  return faults;
}

/**
 * Memories a read-only database holds that its search indexes lack (written by raw SQL, never
 * indexed): searches miss them, so health reports them (docs/operations.md#a-read-only-database).
 */
export function unindexedMemories(db: Db): number {
  return unindexedRows(db);
}
