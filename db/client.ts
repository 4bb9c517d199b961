/**
 * Database access. One libSQL client per process (`getDb()`), migrated to the latest schema on
 * first use; `openDb()` opens an independent, migrated connection (tests, CLI).
 */
import { mkdirSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { type Client, createClient } from "@libsql/client";
import { drizzle, type LibSQLDatabase } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import * as schema from "./schema";
import { syncSearchIndexes } from "./search-index";
import { WorkerClient } from "./worker-client";

export type Db = LibSQLDatabase<typeof schema> & { $client: Client };

export const DEFAULT_DATABASE_URL = "file:./data/inspector.db";
/** Concurrent writers wait this long for the lock instead of failing with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 15_000;

/** The folder of a `file:` URL's database, or null for remote URLs and in-memory databases. */
function fileUrlPath(url: string): string | null {
  if (!url.startsWith("file:")) return null;
  const path = url.slice("file:".length).split("?")[0] ?? "";
  if (path === "" || path === ":memory:") return null;
  return isAbsolute(path) ? path : resolve(process.cwd(), path);
}

/** Run on every connection to a local file. */
const FILE_PRAGMAS = [
  "PRAGMA journal_mode=WAL",
  // With WAL, NORMAL syncs at checkpoints instead of every commit: a crashed process loses no
  // committed event (each append is still its own transaction); only a power cut may drop the last few.
  "PRAGMA synchronous=NORMAL",
  `PRAGMA busy_timeout=${BUSY_TIMEOUT_MS}`,
];

/** Reader threads of a local file's client, beside its writer thread (worker-client.ts). */
const READER_THREADS = 2;

export interface OpenDbOptions {
  authToken?: string;
  /**
   * Run a local file's statements on worker threads (default). A file's statements are synchronous
   * native calls: on threads, a server's event loop keeps answering while a search or an import
   * runs. A one-shot command has no other request to answer and skips the threads' start-up.
   */
  threads?: boolean;
}

export async function openDb(url: string = DEFAULT_DATABASE_URL, options: OpenDbOptions = {}): Promise<Db> {
  const filePath = fileUrlPath(url);
  let client: Client;
  if (filePath) mkdirSync(dirname(filePath), { recursive: true });
  if (filePath && options.threads !== false) {
    client = new WorkerClient({
      url,
      timeout: BUSY_TIMEOUT_MS,
      readers: READER_THREADS,
      pragmas: FILE_PRAGMAS,
    });
  } else {
    client = createClient({ url, authToken: options.authToken, timeout: BUSY_TIMEOUT_MS });
    if (filePath) for (const pragma of FILE_PRAGMAS) await client.execute(pragma);
  }
  const db = drizzle({ client, schema });
  await migrate(db, { migrationsFolder: resolve(process.cwd(), "db/migrations") });
  await syncSearchIndexes(db);
  return db;
}

let shared: Promise<Db> | undefined;

/**
 * The process-wide database from `DATABASE_URL` / `DATABASE_AUTH_TOKEN`, migrated on first use;
 * the first caller decides `threads` (see `OpenDbOptions`).
 */
export function getDb(options: Pick<OpenDbOptions, "threads"> = {}): Promise<Db> {
  if (!shared) {
    shared = openDb(process.env.DATABASE_URL || DEFAULT_DATABASE_URL, {
      authToken: process.env.DATABASE_AUTH_TOKEN || undefined,
      threads: options.threads,
    });
    // A failed open (bad URL, unreachable server) must not poison every later call.
    shared.catch(() => {
      shared = undefined;
    });
  }
  return shared;
}
