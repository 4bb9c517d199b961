/**
 * One full-text index per bank and tier. FTS5's bm25() computes each query term's IDF by walking
 * the term's whole doclist, so with one index shared by all banks a 200-fact bank paid for the
 * words of every other bank (and other banks' words shifted its ranking). Each bank therefore gets
 * its own FTS5 table per tier: a search costs what the bank holds, and ranks with the bank's own
 * statistics, as if it were alone.
 *
 * Writes must not pay for the number of banks, so no trigger is per bank (SQLite compiles every
 * trigger of a table into each statement on it: with per-bank triggers a 100-fact retain took 50 ms
 * with one bank and 1.5 s with 300). Three triggers per tier, shared by all banks (migration 0009),
 * only note the changed rows in `search_index_pending` (bank, tier, pk); `flushStatements` brings a
 * bank's indexes up to date from that list — writers append it to their own transaction, and
 * `ensureFreshIndex` runs it before a search if anything is still pending (a write path that did
 * not flush, another process, raw SQL), so a search never reads a stale index.
 *
 * Objects per bank and tier (`<hex>` = the bank id in hex, so any id is a safe identifier):
 *   `<table>_fts_<hex>`       the FTS5 table, contentless with deletes by rowid (= the row's pk);
 *                             tags are indexed as their own column, ranked lower
 *   `<table>_fts_<hex>_vocab` fts5vocab over it: the bank's document frequencies (offline model)
 * Banks made by bundle import get them in the import's transaction; `syncSearchIndexes` (run when
 * a database is opened) builds missing or old-form ones — e.g. after an upgrade — drops those of
 * deleted banks and the per-bank triggers of the previous form. Every search still filters on
 * `bank_id`, so no index, however built, can leak another bank's memory.
 */
import type { InStatement } from "@libsql/client";
import { TIER_TABLES } from "@/lib/reflect/domain";
import type { Db } from "../client";
import { bankKeySql, STORAGE_KEY_SQL } from "./bank-storage";

/** Every tier's table has an FTS5 index per bank (lib/reflect/domain.ts TIER_REGISTRY `table`). */
export const SEARCHED_TABLES = [...TIER_TABLES].reverse() as ["facts", "observations", "mental_models"];
export type SearchedTable = (typeof SEARCHED_TABLES)[number];

/** Indexed columns per tier and their bm25 weights: tags count half as much as the text. */
export const INDEXED_COLUMNS: Record<SearchedTable, readonly { name: string; weight: number }[]> = {
  facts: [
    { name: "text", weight: 1 },
    { name: "tags", weight: 0.5 },
  ],
  observations: [
    { name: "text", weight: 1 },
    { name: "tags", weight: 0.5 },
  ],
  mental_models: [
    { name: "name", weight: 1 },
    { name: "source_query", weight: 1 },
    { name: "content", weight: 1 },
    { name: "tags", weight: 0.5 },
  ],
};

/** Triggers of the previous form (one set per bank, migration 0005): dropped at open. */
const LEGACY_TRIGGERS = ["ai", "ad", "au"] as const;

/** Rows changed since the bank's indexes were last brought up to date (migration 0009). */
export const PENDING_TABLE = "search_index_pending";

/** The bank's FTS5 table for a tier. */
export function ftsTable(table: SearchedTable, bankId: string): string {
  return `${table}_fts_${Buffer.from(bankId, "utf8").toString("hex")}`;
}

/** The fts5vocab table over a bank index: document frequency per porter stem (db/queries/term-stats.ts). */
export function vocabTable(fts: string): string {
  return `${fts}_vocab`;
}

/** Creates the vocab table of an index (idempotent; it reads the index and stores nothing). */
export function vocabTableStatement(fts: string): string {
  return `CREATE VIRTUAL TABLE IF NOT EXISTS ${vocabTable(fts)} USING fts5vocab(${fts}, 'row')`;
}

/** `bm25(<fts>, w1, w2, …)` with the tier's column weights. */
export function bm25(table: SearchedTable, fts: string): string {
  return `bm25(${fts}, ${INDEXED_COLUMNS[table].map((c) => c.weight.toFixed(1)).join(", ")})`;
}

/**
 * Creates the bank's indexes (idempotent) and fills them from the rows the bank already holds.
 * Run inside the transaction that inserts the bank's first rows, or on its own for an existing bank
 * (after `dropBankIndexStatements`: filling an existing index would index its rows twice).
 */
export function createBankIndexStatements(bankId: string): InStatement[] {
  return [
    ...SEARCHED_TABLES.flatMap((table) => {
      const fts = ftsTable(table, bankId);
      const list = INDEXED_COLUMNS[table].map((c) => c.name).join(", ");
      return [
        `CREATE VIRTUAL TABLE IF NOT EXISTS ${fts} USING fts5(${list}, content='', contentless_delete=1, tokenize='porter unicode61')`,
        {
          sql: `INSERT INTO ${fts}(rowid, ${list}) SELECT pk, ${list} FROM ${table} WHERE bank_id = ${bankKeySql(table)}`,
          args: [bankId],
        },
        vocabTableStatement(fts),
      ];
    }),
    // Everything the bank holds is indexed now.
    ...pendingDeleteStatements(bankId),
  ];
}

/**
 * Brings the bank's indexes up to date with its rows changed since the last flush: each noted row
 * is removed from the index by rowid and, if it is (still) the bank's, indexed with its current
 * text. Statements run in the caller's transaction: a write that appends them leaves nothing
 * pending. Costs what changed, whatever the number of banks; the bank's indexes must exist.
 */
export function flushStatements(bankId: string): InStatement[] {
  return [
    ...SEARCHED_TABLES.flatMap((table) => {
      const fts = ftsTable(table, bankId);
      const list = INDEXED_COLUMNS[table].map((c) => c.name).join(", ");
      // Facts and observations are noted (and stored) under the bank's storage key (bank-storage.ts).
      const key = bankKeySql(table);
      const pending = `SELECT pk FROM ${PENDING_TABLE} WHERE bank_id = ${key} AND tbl = '${table}'`;
      return [
        { sql: `DELETE FROM ${fts} WHERE rowid IN (${pending})`, args: [bankId] },
        {
          sql: `INSERT INTO ${fts}(rowid, ${list}) SELECT pk, ${list} FROM ${table} WHERE bank_id = ${key} AND pk IN (${pending})`,
          args: [bankId, bankId],
        },
      ];
    }),
    ...pendingDeleteStatements(bankId),
  ];
}

/** Forgets the bank's pending rows: those noted under its id and under its storage key. */
function pendingDeleteStatements(bankId: string): InStatement[] {
  return [{ sql: `DELETE FROM ${PENDING_TABLE} WHERE bank_id IN (?, ${STORAGE_KEY_SQL})`, args: [bankId, bankId] }];
}

/** Drops the bank's indexes (a no-op when absent), and the per-bank triggers and view of the previous form. */
export function dropBankIndexStatements(bankId: string): InStatement[] {
  return SEARCHED_TABLES.flatMap((table) => {
    const fts = ftsTable(table, bankId);
    return [
      ...LEGACY_TRIGGERS.map((t) => `DROP TRIGGER IF EXISTS ${fts}_${t}`),
      `DROP TABLE IF EXISTS ${vocabTable(fts)}`,
      `DROP TABLE IF EXISTS ${fts}`,
      `DROP VIEW IF EXISTS ${fts}_rows`,
    ];
  });
}

const INDEX_NAME = new RegExp(`^(${SEARCHED_TABLES.join("|")})_fts_([0-9a-f]+)$`);

/**
 * FTS tables per bank id (decoded), and whether each is of the current (contentless) form.
 * `latest`: read as a writer would (a read replica forwards a write batch to its primary, so the
 * names a write this process just committed are seen; a replica's own copy may not have them yet).
 */
async function indexedBanks(db: Db, latest = false): Promise<Map<string, Map<SearchedTable, boolean>>> {
  const statement =
    "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' AND name LIKE '%\\_fts\\_%' ESCAPE '\\'";
  const res = latest ? (await db.$client.batch([statement], "write"))[0]! : await db.$client.execute(statement);
  const out = new Map<string, Map<SearchedTable, boolean>>();
  for (const row of res.rows) {
    const m = INDEX_NAME.exec(String(row.name));
    if (!m) continue;
    const bankId = Buffer.from(m[2]!, "hex").toString("utf8");
    const tables = out.get(bankId) ?? new Map<SearchedTable, boolean>();
    tables.set(m[1] as SearchedTable, String(row.sql).includes("contentless_delete=1"));
    out.set(bankId, tables);
  }
  return out;
}

/**
 * Drops the indexes named for a `~…` key that is no bank or import staging: a replaced bank's old
 * indexes (renamed `~import-…~replaced` at the swap, db/queries/bank-storage.ts), or those of a
 * staging removed without them. Each bank's in its own transaction, only while no such row exists.
 * `latest`: read the names as a writer would (right after a swap through a read replica).
 */
export async function dropRetiredIndexes(db: Db, options: { latest?: boolean } = {}): Promise<string[]> {
  // Names first, rows second: an index made after the names were read is not looked at.
  const indexed = [...(await indexedBanks(db, options.latest)).keys()].filter((key) => key.startsWith("~"));
  const dropped: string[] = [];
  for (const key of indexed) {
    const tx = await db.$client.transaction("write");
    try {
      const { rows } = await tx.execute({
        sql: "SELECT 1 FROM banks WHERE id = ? AND import_owner IS NOT NULL",
        args: [key],
      });
      if (rows.length === 0) {
        await tx.batch(dropBankIndexStatements(key));
        dropped.push(key);
      }
      await tx.commit();
    } catch (err) {
      await tx.rollback().catch(() => {});
      throw err;
    } finally {
      tx.close();
    }
  }
  return dropped;
}

/** Per-bank triggers of the previous form (migration 0005), whatever bank they were for. */
async function legacyTriggers(db: Db): Promise<string[]> {
  const res = await db.$client.execute(
    "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%\\_fts\\_%' ESCAPE '\\'",
  );
  const legacy = new RegExp(`^(${SEARCHED_TABLES.join("|")})_fts_[0-9a-f]+_(${LEGACY_TRIGGERS.join("|")})$`);
  return res.rows.map((r) => String(r.name)).filter((name) => legacy.test(name));
}

/** (Re)builds the bank's indexes from its current rows. */
export async function ensureBankIndex(db: Db, bankId: string): Promise<void> {
  await db.$client.batch([...dropBankIndexStatements(bankId), ...createBankIndexStatements(bankId)], "write");
}

/**
 * Applies the bank's pending changes to its indexes, if any (one indexed read when there are none).
 * Fails with a missing-table error (see `isMissingIndexError`) when the bank has no index.
 */
export async function ensureFreshIndex(db: Db, bankId: string): Promise<void> {
  const { rows } = await db.$client.execute({
    sql: `SELECT 1 FROM ${PENDING_TABLE} WHERE bank_id IN (?, ${STORAGE_KEY_SQL}) LIMIT 1`,
    args: [bankId, bankId],
  });
  if (rows.length === 0) return;
  try {
    await db.$client.batch(flushStatements(bankId), "write");
  } catch (err) {
    // A database opened read-only (db/client.ts): nobody can have written since the pending rows
    // were noted, so the search reads the index as it is rather than failing.
    if (!/SQLITE_READONLY|readonly database/i.test(`${(err as { code?: unknown }).code} ${err}`)) throw err;
  }
}

/**
 * Applies the bank's pending changes right after a write, so the next search finds nothing to do.
 * A bank without an index (inserted by raw SQL) is left as it is: its first search builds it.
 */
export async function flushAfterWrite(db: Db, bankId: string): Promise<void> {
  try {
    await db.$client.batch(flushStatements(bankId), "write");
  } catch (error) {
    if (!SEARCHED_TABLES.some((t) => isMissingIndexError(error, ftsTable(t, bankId)))) throw error;
  }
}

/**
 * Makes the indexes match the banks: drops the per-bank triggers of the previous form, builds the
 * missing, incomplete or old-form indexes, drops those of banks that no longer exist, and applies
 * what is pending. Cheap when nothing is to do (three catalog reads and one small read).
 */
export async function syncSearchIndexes(db: Db): Promise<{ built: string[]; dropped: string[] }> {
  const triggers = await legacyTriggers(db);
  if (triggers.length > 0)
    await db.$client.batch(
      triggers.map((t) => `DROP TRIGGER IF EXISTS ${t}`),
      "write",
    );
  // Banks and import stagings have indexes; a replaced bank's storage row (`~…`, no owner) has none:
  // its rows are indexed under the bank's name (bank-storage.ts).
  const banks = (
    await db.$client.execute("SELECT id FROM banks WHERE id NOT LIKE '~%' OR import_owner IS NOT NULL")
  ).rows.map((r) => String(r.id));
  const indexed = await indexedBanks(db);
  const built: string[] = [];
  for (const bankId of banks) {
    const tables = indexed.get(bankId);
    if (tables && tables.size === SEARCHED_TABLES.length && [...tables.values()].every(Boolean)) continue;
    await ensureBankIndex(db, bankId);
    built.push(bankId);
  }
  const dropped = [...indexed.keys()].filter((id) => !banks.includes(id));
  if (dropped.length > 0) await db.$client.batch(dropped.flatMap(dropBankIndexStatements), "write");
  // Pending rows are noted under a bank's id or under its storage key (bank-storage.ts): each is
  // flushed into the bank that reads it; those of a bank or storage no bank reads are forgotten.
  const pending = await db.$client.execute(`SELECT DISTINCT bank_id FROM ${PENDING_TABLE}`);
  const keys = pending.rows.map((r) => String(r.bank_id));
  const readers = new Map<string, string>();
  if (keys.length > 0) {
    const stored = await db.$client.execute(
      `SELECT id, storage_id FROM banks WHERE storage_id IN (SELECT bank_id FROM ${PENDING_TABLE})`,
    );
    for (const r of stored.rows) readers.set(String(r.storage_id), String(r.id));
  }
  const flushed = new Set<string>();
  const forgotten: string[] = [];
  for (const key of keys) {
    const bankId = banks.includes(key) ? key : readers.get(key);
    if (bankId !== undefined && banks.includes(bankId)) flushed.add(bankId);
    else forgotten.push(key);
  }
  if (keys.length > 0) {
    await db.$client.batch(
      [
        ...[...flushed].flatMap((bankId) => flushStatements(bankId)),
        ...forgotten.map((key) => ({ sql: `DELETE FROM ${PENDING_TABLE} WHERE bank_id = ?`, args: [key] })),
      ],
      "write",
    );
  }
  return { built, dropped };
}

/** True when an error says a bank's FTS table does not exist (a bank created behind our back). */
export function isMissingIndexError(error: unknown, fts: string): boolean {
  return String(error).includes(`no such table: ${fts}`);
}
