/**
 * Database access. One libSQL client per process (`getDb()`), migrated to the latest schema on
 * first use; `openDb()` opens an independent, migrated connection (tests, CLI).
 */
import { accessSync, constants, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import type { Client, Config } from "@libsql/client";
import { _createClient as createSqliteClient } from "@libsql/client/sqlite3";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import * as driverCore from "drizzle-orm/libsql/driver-core";
import { migrate } from "drizzle-orm/libsql/migrator";
import { AppError } from "@/lib/contracts/errors";
import { syncSearchIndexes } from "./queries/search-index";
import * as schema from "./schema";
import { WorkerClient } from "./worker/worker-client";

export type Db = LibSQLDatabase<typeof schema> & { $client: Client };

/**
 * `drizzle({ client, schema })` from drizzle-orm/libsql is this function behind an import of the
 * whole @libsql/client (its HTTP and WebSocket clients too); the driver core alone is what a
 * client we made ourselves needs (docs/performance.md#cli-start-up-round-2). Its typings omit it.
 */
const drizzle = (driverCore as unknown as { construct: (client: Client, config: { schema: typeof schema }) => Db })
  .construct;

/**
 * A libSQL client: a local file or in-memory database through the SQLite entry only; a remote URL
 * (libsql:, http(s):, ws(s):) through the full client, loaded only then.
 */
async function createClient(config: Config): Promise<Client> {
  const local = config.url.startsWith("file:") || config.url === ":memory:";
  const entry = local ? await import("@libsql/client/sqlite3") : await import("@libsql/client");
  return entry.createClient(config);
}

export const DEFAULT_DATABASE_URL = "file:./data/inspector.db";
/** Concurrent writers wait this long for the lock instead of failing with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 15_000;

/** The folder of a `file:` URL's database, or null for remote URLs and in-memory databases. */
function fileUrlPath(url: string): string | null {
  if (!url.startsWith("file:")) return null;
  const path = url.slice("file:".length).split("?")[0] ?? "";
  if (path === "" || path === ":memory:") return null;
  // A runtime path (the build must not trace the whole project for it: turbopackIgnore).
  return isAbsolute(path) ? path : resolve(/*turbopackIgnore: true*/ process.cwd(), path);
}

/**
 * Run first on the connections to a file that is new: it takes effect only before WAL mode and the
 * first table are written. Freed pages can then be returned to the file system after a prune
 * (db/queries/retention.ts); an older file keeps its mode until one `runs prune --vacuum` rewrites it
 * (docs/operations.md#run-retention). Never sent to an existing file: there it is a write, which a
 * full disk refuses, and a reader opened then would fail although reads work.
 */
const NEW_FILE_PRAGMA = "PRAGMA auto_vacuum=INCREMENTAL";

/** Run on every connection to a local file. */
const FILE_PRAGMAS = [
  "PRAGMA journal_mode=WAL",
  // With WAL, NORMAL syncs at checkpoints instead of every commit: a crashed process loses no
  // committed event (each append is still its own transaction); only a power cut may drop the last few.
  "PRAGMA synchronous=NORMAL",
  `PRAGMA busy_timeout=${BUSY_TIMEOUT_MS}`,
];

/**
 * Whether an existing local file must be opened read-only: its file system is mounted read-only, or
 * this process may not write the file or its folder (SQLite also writes the `-wal` and `-shm`
 * files beside it). Such a file cannot be opened the ordinary way at all (SQLite answers
 * SQLITE_CANTOPEN for a WAL database whose `-shm` cannot be created), so it is opened with
 * `mode=ro&immutable=1` instead: reads work, every write answers SQLITE_READONLY
 * (docs/operations.md#a-read-only-database).
 */
export function mustOpenReadOnly(path: string): false | "immutable" | "ro" {
  if (!existsSync(path)) return false;
  try {
    accessSync(path, constants.W_OK);
    accessSync(dirname(path), constants.W_OK);
    return false;
  } catch (err) {
    // A read-only file system: nobody can write the file meanwhile, so SQLite may take it as
    // immutable (it needs no `-shm` then). Only this process is refused (permissions): another
    // may write it, so it is opened `mode=ro` and reads the other's `-shm`, which must exist.
    return (err as NodeJS.ErrnoException).code === "EROFS" ? "immutable" : "ro";
  }
}

/**
 * A read-only client of a local file, opened by the SQLite URI `file:<path>?mode=ro&immutable=1`.
 * `createClient` refuses query parameters in `file:` URLs, so the local client is built from its
 * expanded config with that URI as the path (libSQL opens paths as URIs). `immutable` tells SQLite
 * that nobody writes the file meanwhile, which a read-only mount guarantees; it also skips the
 * `-wal` file, so commits left there by a process that crashed before the mount turned read-only
 * are not seen. db/sql-worker.mjs opens its connections the same way.
 */
export function createReadOnlyFileClient(path: string, timeout: number, immutable = true): Client {
  return createSqliteClient({
    scheme: "file",
    tls: false,
    authority: undefined,
    // The path's own `%`, `?` and `#` are escaped, so SQLite reads them as part of the name.
    path: `file:${path.replace(/[%?#]/g, (c) => encodeURIComponent(c))}?mode=ro${immutable ? "&immutable=1" : ""}`,
    authToken: undefined,
    encryptionKey: undefined,
    remoteEncryptionKey: undefined,
    syncUrl: undefined,
    syncInterval: undefined,
    readYourWrites: undefined,
    offline: undefined,
    intMode: "number",
    fetch: undefined,
    concurrency: 20,
    timeout,
  });
}

const readOnlyDbs = new WeakSet<object>();

/** True when the database was opened read-only (its file or file system cannot be written). */
export function isReadOnlyDb(db: Db): boolean {
  return readOnlyDbs.has(db);
}

/** Per read-only database: memories written without their search-index update, counted when opened. */
const unindexedOnOpen = new WeakMap<object, number>();

/**
 * How many memories a database opened read-only holds that its search indexes do not (rows written
 * by raw SQL or another tool, never applied: db/queries/search-index.ts). A search cannot apply them
 * on a read-only file, so it does not find them; this says so (the open logs it, /api/health reports
 * it) instead of answering as if the bank held nothing more. 0 for a writable database.
 */
export function unindexedRows(db: Db): number {
  return unindexedOnOpen.get(db) ?? 0;
}

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

/** A URL fit for a log line: credentials in it are masked. */
const redacted = (url: string) =>
  url.replace(/\/\/[^/@]*@/, "//***@").replace(/([?&](?:authToken|auth_token|token|password)=)[^&#]*/gi, "$1***");

/** The first line of an error and of each cause under it: drizzle wraps the driver's reason. */
function reasonOf(err: unknown): string {
  const lines: string[] = [];
  for (let e: unknown = err; e && lines.length < 4; e = (e as { cause?: unknown }).cause) {
    const line = (e instanceof Error ? e.message : String(e)).split("\n")[0]?.trim();
    if (line && !line.startsWith("Failed query")) lines.push(line);
    if (!(e instanceof Error)) break;
  }
  return lines.join(": ") || "no reason given";
}

/** Why a `file:` database could not be opened, in words: SQLite's own error is a bare code (`…: 14`). */
function fileCause(path: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const folder = dirname(path);
  if (code === "EACCES" || code === "EPERM") return `permission denied creating the folder ${folder}`;
  if (code === "EEXIST" || code === "ENOTDIR") return `part of the folder path ${folder} is a file, not a folder`;
  if (code === "EROFS") return "the file system is read-only";
  if (existsSync(path) && statSync(path).isDirectory()) return "it is a folder, not a database file";
  try {
    accessSync(folder, constants.W_OK);
    if (existsSync(path)) accessSync(path, constants.R_OK | constants.W_OK);
  } catch (denied) {
    if ((denied as NodeJS.ErrnoException).code === "EROFS") return "the file system is read-only";
    return existsSync(path)
      ? "the file is not readable and writable by this process"
      : `the folder ${folder} is not writable`;
  }
  const detail = (err instanceof Error ? err.message : String(err)).split("\n")[0] ?? "";
  if (/NOTADB|not a database/i.test(detail)) return "the file is not a SQLite database";
  return `SQLite cannot open it (${detail})`;
}

/** One line naming the database and the cause, for the CLI's stderr, an MCP tool error and the server log. */
function openFailure(url: string, err: unknown): AppError<"unavailable"> {
  const path = fileUrlPath(url);
  const detail = redacted(reasonOf(err));
  const message = path
    ? `cannot open the database ${path} (DATABASE_URL=${redacted(url)}): ${fileCause(path, err)}`
    : `cannot open the database at ${redacted(url)}: ${detail}`;
  return new AppError("unavailable", message, {}, { cause: err });
}

/** Opens and migrates the database; any failure is one `unavailable` error naming the path and the cause. */
export async function openDb(url: string = DEFAULT_DATABASE_URL, options: OpenDbOptions = {}): Promise<Db> {
  try {
    return await openAndMigrate(url, options);
  } catch (err) {
    throw openFailure(url, err);
  }
}

async function openAndMigrate(url: string, options: OpenDbOptions): Promise<Db> {
  const filePath = fileUrlPath(url);
  let client: Client;
  const readOnly = filePath !== null ? mustOpenReadOnly(filePath) : false;
  if (filePath && !readOnly) mkdirSync(dirname(filePath), { recursive: true });
  if (
    filePath !== null &&
    !readOnly &&
    (!existsSync(/*turbopackIgnore: true*/ filePath) || statSync(/*turbopackIgnore: true*/ filePath).size === 0)
  ) {
    // Once, on a connection of its own: every later connection (a reader opened when the disk is
    // full, say) only reads the mode the file was created with.
    const first = await createClient({ url, timeout: BUSY_TIMEOUT_MS });
    try {
      await first.execute(NEW_FILE_PRAGMA);
      await first.execute("PRAGMA journal_mode=WAL");
    } finally {
      first.close();
    }
  }
  // Read-only, nothing that writes: the file keeps the journal mode it was made with.
  const pragmas = readOnly ? [`PRAGMA busy_timeout=${BUSY_TIMEOUT_MS}`] : FILE_PRAGMAS;
  if (filePath && options.threads !== false) {
    client = new WorkerClient({
      url,
      timeout: BUSY_TIMEOUT_MS,
      readers: READER_THREADS,
      pragmas,
      readOnlyPath: readOnly ? filePath : undefined,
      immutable: readOnly === "immutable",
    });
  } else {
    client =
      filePath && readOnly
        ? createReadOnlyFileClient(filePath, BUSY_TIMEOUT_MS, readOnly === "immutable")
        : await createClient({ url, authToken: options.authToken, timeout: BUSY_TIMEOUT_MS });
    if (filePath) for (const pragma of pragmas) await client.execute(pragma);
  }
  const db = drizzle(client, { schema });
  if (readOnly) {
    await assertMigrated(client);
    readOnlyDbs.add(db);
    const { rows } = await client.execute("SELECT count(*) AS n FROM search_index_pending");
    const unindexed = Number(rows[0]?.n ?? 0);
    if (unindexed > 0) {
      unindexedOnOpen.set(db, unindexed);
      console.warn(
        `warning: the database is read-only and ${unindexed} memor${unindexed === 1 ? "y was" : "ies were"} written without ${unindexed === 1 ? "its" : "their"} search-index update (raw SQL or another tool): searches do not find ${unindexed === 1 ? "it" : "them"} until the database is opened writable once (any command then indexes them)`,
      );
    }
    return db;
  }
  await migrate(db, { migrationsFolder: resolve(process.cwd(), "db/migrations") });
  await syncSearchIndexes(db);
  return db;
}

/**
 * A read-only file is used as it is: every migration must already be applied (upgrading writes).
 * Search indexes need no check: a file written by this version keeps them up to date.
 */
async function assertMigrated(client: Client): Promise<void> {
  const journal = JSON.parse(readFileSync(resolve(process.cwd(), "db/migrations/meta/_journal.json"), "utf8")) as {
    entries: unknown[];
  };
  let applied = 0;
  try {
    const { rows } = await client.execute('SELECT count(*) AS n FROM "__drizzle_migrations"');
    applied = Number(rows[0]?.n ?? 0);
  } catch {
    applied = 0;
  }
  if (applied < journal.entries.length) {
    throw Object.assign(
      new Error(
        `attempt to write a readonly database: it needs ${journal.entries.length - applied} migration(s) this version brings, and it is read-only`,
      ),
      { code: "SQLITE_READONLY" },
    );
  }
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
