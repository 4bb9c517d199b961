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
 * Schema objects cost every connection: a new bank's CREATEs change the schema, and each connection
 * then re-reads all of it, at a cost that grows faster than the number of FTS5 tables in the file
 * (docs/performance.md#import-into-a-new-bank). So a bank has as few as its rows need:
 *   `<table>_fts_<hex>`       the FTS5 table of a tier (`<hex>` = the bank id in hex, so any id is a
 *                             safe identifier), contentless with deletes by rowid (= the row's pk);
 *                             tags are indexed as their own column, ranked lower. It exists only
 *                             while the tier holds rows of the bank: a flush creates it with the
 *                             tier's first row (until then every row of the tier is pending), and a
 *                             search of a tier without one finds nothing.
 *   `temp.<fts>_vocab`        fts5vocab over it (the bank's document frequencies, offline model),
 *                             made per connection when read, never in the file.
 * Banks made by bundle import get their indexes in the import's transaction; `syncSearchIndexes`
 * (run when a database is opened) builds missing or old-form ones — e.g. after an upgrade — drops
 * those of deleted banks, the empty ones, the vocab tables and per-bank triggers of earlier forms.
 * Every search still filters on `bank_id`, so no index, however built, can leak another bank's memory.
 */
import type { InStatement } from "@libsql/client";
import { TIER_TABLES } from "@/lib/reflect/domain";
import type { Db } from "../client";
import { bankKeySql, STORAGE_KEY_SQL } from "./bank-storage";
import { inWriteTransaction } from "./transaction";

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

/**
 * Creates the vocab table of an index in the connection's temp schema (idempotent; it reads the
 * index and stores nothing). Per connection, so no other connection re-reads it, and it outlives
 * rebuilds of its index: fts5vocab finds the index by name on each read.
 */
export function vocabTableStatement(fts: string): string {
  return `CREATE VIRTUAL TABLE IF NOT EXISTS temp.${vocabTable(fts)} USING fts5vocab(main, ${fts}, 'row')`;
}

/**
 * The vocab table of an index in the file, as a libSQL server needs it: its SQL parser refuses a
 * virtual table in `temp` ("unsupported statement"), so over a server each bank's vocab table is
 * kept in the file, as the earlier release kept them (db/queries/term-stats.ts). Idempotent; it
 * stores nothing, and reads its index by name.
 */
export function fileVocabTableStatement(fts: string): string {
  return `CREATE VIRTUAL TABLE IF NOT EXISTS main.${vocabTable(fts)} USING fts5vocab(${fts}, 'row')`;
}

/** `bm25(<fts>, w1, w2, …)` with the tier's column weights. */
export function bm25(table: SearchedTable, fts: string): string {
  return `bm25(${fts}, ${INDEXED_COLUMNS[table].map((c) => c.weight.toFixed(1)).join(", ")})`;
}

const createIndex = (table: SearchedTable, fts: string) =>
  `CREATE VIRTUAL TABLE IF NOT EXISTS ${fts} USING fts5(${INDEXED_COLUMNS[table]
    .map((c) => c.name)
    .join(", ")}, content='', contentless_delete=1, tokenize='porter unicode61')`;

/**
 * Creates the indexes of the bank's `tiers` (idempotent) and fills them from the rows the bank
 * already holds; then nothing of the bank is pending. Run inside a write transaction whose `tiers`
 * are every tier holding rows of the bank (a tier without rows gets no index), either the one that
 * inserts the bank's first rows or on its own (after `dropBankIndexStatements`: filling an
 * existing index would index its rows twice).
 */
export function createBankIndexStatements(bankId: string, tiers: readonly SearchedTable[]): InStatement[] {
  return [
    ...tiers.flatMap((table) => {
      const fts = ftsTable(table, bankId);
      const list = INDEXED_COLUMNS[table].map((c) => c.name).join(", ");
      return [
        createIndex(table, fts),
        {
          sql: `INSERT INTO ${fts}(rowid, ${list}) SELECT pk, ${list} FROM ${table} WHERE bank_id = ${bankKeySql(table)}`,
          args: [bankId],
        },
      ];
    }),
    // Everything the bank holds is indexed now.
    ...pendingDeleteStatements(bankId),
  ];
}

/**
 * Brings the indexes of the bank's `tiers` up to date with their rows changed since the last
 * flush: each noted row is removed from the index by rowid and, if it is (still) the bank's,
 * indexed with its current text; a tier's index is created with its first rows (all of them
 * pending until then). Statements run in the caller's transaction: a write that appends them for
 * the tiers it wrote leaves nothing of them pending. Costs what changed, whatever the number of banks.
 */
export function flushStatements(bankId: string, tiers: readonly SearchedTable[]): InStatement[] {
  return tiers.flatMap((table) => {
    const fts = ftsTable(table, bankId);
    const list = INDEXED_COLUMNS[table].map((c) => c.name).join(", ");
    // Facts and observations are noted (and stored) under the bank's storage key (bank-storage.ts).
    const key = bankKeySql(table);
    const pending = `SELECT pk FROM ${PENDING_TABLE} WHERE bank_id = ${key} AND tbl = '${table}'`;
    return [
      // A no-op (no schema change) once the index exists.
      createIndex(table, fts),
      { sql: `DELETE FROM ${fts} WHERE rowid IN (${pending})`, args: [bankId] },
      {
        sql: `INSERT INTO ${fts}(rowid, ${list}) SELECT pk, ${list} FROM ${table} WHERE bank_id = ${key} AND pk IN (${pending})`,
        args: [bankId, bankId],
      },
      {
        sql: `DELETE FROM ${PENDING_TABLE} WHERE bank_id IN (?, ${STORAGE_KEY_SQL}) AND tbl = '${table}'`,
        args: [bankId, bankId],
      },
    ];
  });
}

/** Forgets the bank's pending rows: those noted under its id and under its storage key. */
function pendingDeleteStatements(bankId: string): InStatement[] {
  return [{ sql: `DELETE FROM ${PENDING_TABLE} WHERE bank_id IN (?, ${STORAGE_KEY_SQL})`, args: [bankId, bankId] }];
}

/**
 * Drops the bank's indexes (a no-op when absent), the per-bank triggers and view of the first
 * form, and the vocab tables an earlier release kept in the file.
 */
export function dropBankIndexStatements(bankId: string): InStatement[] {
  return SEARCHED_TABLES.flatMap((table) => {
    const fts = ftsTable(table, bankId);
    return [
      ...LEGACY_TRIGGERS.map((t) => `DROP TRIGGER IF EXISTS main.${fts}_${t}`),
      `DROP TABLE IF EXISTS main.${vocabTable(fts)}`,
      `DROP TABLE IF EXISTS main.${fts}`,
      `DROP VIEW IF EXISTS main.${fts}_rows`,
    ];
  });
}

const INDEX_NAME = new RegExp(`^(${SEARCHED_TABLES.join("|")})_fts_([0-9a-f]+)$`);
const LEGACY_VOCAB_NAME = new RegExp(`^(${SEARCHED_TABLES.join("|")})_fts_[0-9a-f]+_vocab$`);

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
    await inWriteTransaction(db, async (tx) => {
      const { rows } = await tx.execute({
        sql: "SELECT 1 FROM banks WHERE id = ? AND import_owner IS NOT NULL",
        args: [key],
      });
      if (rows.length === 0) {
        await tx.batch(dropBankIndexStatements(key));
        dropped.push(key);
      }
    });
  }
  return dropped;
}

/** Per-bank triggers of the first form (migration 0005), whatever bank they were for. */
async function legacyTriggers(db: Db): Promise<string[]> {
  const res = await db.$client.execute(
    "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%\\_fts\\_%' ESCAPE '\\'",
  );
  const legacy = new RegExp(`^(${SEARCHED_TABLES.join("|")})_fts_[0-9a-f]+_(${LEGACY_TRIGGERS.join("|")})$`);
  return res.rows.map((r) => String(r.name)).filter((name) => legacy.test(name));
}

/** Vocab tables an earlier release kept in the file (now per connection: `vocabTableStatement`). */
async function legacyVocabTables(db: Db): Promise<string[]> {
  const res = await db.$client.execute(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%\\_fts\\_%\\_vocab' ESCAPE '\\'",
  );
  return res.rows.map((r) => String(r.name)).filter((name) => LEGACY_VOCAB_NAME.test(name));
}

/** In a statement over `banks b`: the key the tier's rows of bank `b` are stored under (bank-storage.ts). */
const storedKey = (table: SearchedTable) => (bankKeySql(table) === "?" ? "b.id" : "coalesce(b.storage_id, b.id)");

/** Per tier, whether it holds rows of the bank (one indexed probe each). */
const TIER_ROWS_SQL = `SELECT ${SEARCHED_TABLES.map((t) => `EXISTS (SELECT 1 FROM ${t} WHERE bank_id = ${bankKeySql(t)}) AS ${t}`).join(", ")}`;

function tiersOf(row: Record<string, unknown> | undefined): SearchedTable[] {
  return SEARCHED_TABLES.filter((t) => Number(row?.[t] ?? 0) !== 0);
}

/** (Re)builds the bank's indexes from its current rows: one per tier that holds rows. */
export async function ensureBankIndex(db: Db, bankId: string): Promise<void> {
  // Which tiers hold rows is read in the rebuild's own write transaction, so no write slips in
  // between (its rows would be pending no more, yet in no index).
  await inWriteTransaction(db, async (tx) => {
    const { rows } = await tx.execute({ sql: TIER_ROWS_SQL, args: SEARCHED_TABLES.map(() => bankId) });
    await tx.batch([...dropBankIndexStatements(bankId), ...createBankIndexStatements(bankId, tiersOf(rows[0]))]);
  });
}

/** The tiers with rows of the bank still to apply to its indexes. */
async function pendingTiers(db: Db, bankId: string): Promise<SearchedTable[]> {
  const { rows } = await db.$client.execute({
    sql: `SELECT DISTINCT tbl FROM ${PENDING_TABLE} WHERE bank_id IN (?, ${STORAGE_KEY_SQL})`,
    args: [bankId, bankId],
  });
  return SEARCHED_TABLES.filter((t) => rows.some((r) => r.tbl === t));
}

/** Applies the bank's pending changes to its indexes, if any (one indexed read when there are none). */
export async function ensureFreshIndex(db: Db, bankId: string): Promise<void> {
  const tiers = await pendingTiers(db, bankId);
  if (tiers.length === 0) return;
  try {
    await db.$client.batch(flushStatements(bankId, tiers), "write");
  } catch (err) {
    // A database opened read-only (db/client.ts): nobody can have written since the pending rows
    // were noted, so the search reads the index as it is rather than failing.
    if (!isReadOnlyError(err)) throw err;
  }
}

/** True when a write failed because the database was opened read-only (db/client.ts). */
export function isReadOnlyError(err: unknown): boolean {
  return /SQLITE_READONLY|readonly database/i.test(`${(err as { code?: unknown }).code} ${err}`);
}

/** The bank's tiers that have an index in the file. */
export async function indexedTiers(db: Db, bankId: string): Promise<SearchedTable[]> {
  const names = SEARCHED_TABLES.map((t) => ftsTable(t, bankId));
  const { rows } = await db.$client.execute({
    sql: `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (${names.map(() => "?").join(", ")})`,
    args: names,
  });
  return SEARCHED_TABLES.filter((_, i) => rows.some((r) => r.name === names[i]));
}

/** Applies the bank's pending changes to the indexes of the tiers just written, so the next search finds nothing to do. */
export async function flushAfterWrite(db: Db, bankId: string, tiers: readonly SearchedTable[]): Promise<void> {
  await db.$client.batch(flushStatements(bankId, tiers), "write");
}

/**
 * Makes the indexes match the banks: drops the per-bank triggers and in-file vocab tables of
 * earlier forms, builds the missing (a tier with rows but no index and nothing pending) and
 * old-form indexes, drops those of banks that no longer exist and those of tiers left without rows,
 * and applies what is pending. Cheap when nothing is to do (four catalog reads and two small reads).
 */
export async function syncSearchIndexes(db: Db): Promise<{ built: string[]; dropped: string[] }> {
  const legacy = [
    ...(await legacyTriggers(db)).map((t) => `DROP TRIGGER IF EXISTS main.${t}`),
    ...(await legacyVocabTables(db)).map((t) => `DROP TABLE IF EXISTS main.${t}`),
  ];
  if (legacy.length > 0) await db.$client.batch(legacy, "write");
  const indexed = await indexedBanks(db);
  // Banks and import stagings have indexes; a replaced bank's storage row (`~…`, no owner) has none:
  // its rows are indexed under the bank's name (bank-storage.ts).
  const pendingSql = SEARCHED_TABLES.map(
    (t) =>
      `EXISTS (SELECT 1 FROM ${PENDING_TABLE} WHERE bank_id IN (b.id, coalesce(b.storage_id, b.id)) AND tbl = '${t}') AS p_${t}`,
  ).join(", ");
  const banks = (
    await db.$client.execute(
      `SELECT b.id, ${SEARCHED_TABLES.map((t) => `EXISTS (SELECT 1 FROM ${t} WHERE bank_id = ${storedKey(t)}) AS ${t}`).join(", ")}, ${pendingSql}
       FROM banks b WHERE b.id NOT LIKE '~%' OR b.import_owner IS NOT NULL`,
    )
  ).rows;
  const bankIds = banks.map((r) => String(r.id));
  const built: string[] = [];
  const empty: { bankId: string; table: SearchedTable }[] = [];
  for (const row of banks) {
    const bankId = String(row.id);
    const tables = indexed.get(bankId) ?? new Map<SearchedTable, boolean>();
    const withRows = tiersOf(row);
    const stale =
      [...tables.values()].some((current) => !current) ||
      withRows.some((t) => !tables.has(t) && Number(row[`p_${t}`] ?? 0) === 0);
    if (stale) {
      await ensureBankIndex(db, bankId);
      built.push(bankId);
      continue;
    }
    for (const table of tables.keys())
      if (!withRows.includes(table) && Number(row[`p_${table}`] ?? 0) === 0) empty.push({ bankId, table });
  }
  if (empty.length > 0) await dropEmptyIndexes(db, empty);
  const dropped = [...indexed.keys()].filter((id) => !bankIds.includes(id));
  if (dropped.length > 0) await db.$client.batch(dropped.flatMap(dropBankIndexStatements), "write");
  // Pending rows are noted under a bank's id or under its storage key (bank-storage.ts): each is
  // flushed into the bank that reads it; those of a bank or storage no bank reads are forgotten.
  const pending = await db.$client.execute(`SELECT DISTINCT bank_id, tbl FROM ${PENDING_TABLE}`);
  const readers = new Map<string, string>();
  if (pending.rows.length > 0) {
    const stored = await db.$client.execute(
      `SELECT id, storage_id FROM banks WHERE storage_id IN (SELECT bank_id FROM ${PENDING_TABLE})`,
    );
    for (const r of stored.rows) readers.set(String(r.storage_id), String(r.id));
  }
  const flushes = new Map<string, SearchedTable[]>();
  const forgotten = new Set<string>();
  for (const r of pending.rows) {
    const key = String(r.bank_id);
    const bankId = bankIds.includes(key) ? key : readers.get(key);
    const tier = SEARCHED_TABLES.find((t) => t === r.tbl);
    if (bankId === undefined || !bankIds.includes(bankId)) forgotten.add(key);
    else if (tier && !flushes.get(bankId)?.includes(tier)) flushes.set(bankId, [...(flushes.get(bankId) ?? []), tier]);
  }
  if (flushes.size > 0 || forgotten.size > 0) {
    await db.$client.batch(
      [
        ...[...flushes].flatMap(([bankId, tiers]) => flushStatements(bankId, tiers)),
        ...[...forgotten].map((key) => ({ sql: `DELETE FROM ${PENDING_TABLE} WHERE bank_id = ?`, args: [key] })),
      ],
      "write",
    );
  }
  return { built, dropped };
}

/**
 * Drops the indexes of tiers that hold no rows of their bank (an earlier release made all three
 * for every bank), each only if that is still so inside the write transaction.
 */
async function dropEmptyIndexes(db: Db, empty: { bankId: string; table: SearchedTable }[]): Promise<void> {
  await inWriteTransaction(db, async (tx) => {
    const drops: string[] = [];
    for (const { bankId, table } of empty) {
      const { rows } = await tx.execute({
        sql: `SELECT EXISTS (SELECT 1 FROM ${table} WHERE bank_id = ${bankKeySql(table)}) OR EXISTS (SELECT 1 FROM ${PENDING_TABLE} WHERE bank_id IN (?, ${STORAGE_KEY_SQL}) AND tbl = ?) AS used`,
        args: [bankId, bankId, bankId, table],
      });
      if (Number(rows[0]?.used ?? 1) === 0) drops.push(`DROP TABLE IF EXISTS main.${ftsTable(table, bankId)}`);
    }
    if (drops.length > 0) await tx.batch(drops);
  });
}

/** True when an error says a bank's FTS table does not exist (a bank created behind our back). */
export function isMissingIndexError(error: unknown, fts: string): boolean {
  const text = String(error);
  // The second form is fts5vocab's, reading a bank's index through its vocab table.
  return text.includes(`no such table: ${fts}`) || text.includes(`no such fts5 table: main.${fts}`);
}
