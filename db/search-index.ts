/**
 * One full-text index per bank and tier. FTS5's bm25() computes each query term's IDF by walking
 * the term's whole doclist, so with one index shared by all banks a 200-fact bank paid for the
 * words of every other bank (and other banks' words shifted its ranking). Each bank therefore gets
 * its own FTS5 table per tier, fed by triggers that fire only for that bank's rows: a search costs
 * what the bank holds, and ranks with the bank's own statistics, as if it were alone.
 *
 * Objects per bank and tier (`<hex>` = the bank id in hex, so any id is a safe identifier):
 *   `<table>_fts_<hex>_rows`  view of the bank's rows: the index's external content ('rebuild' works)
 *   `<table>_fts_<hex>`       the FTS5 table; tags are indexed as their own column, ranked lower
 *   `<table>_fts_<hex>_vocab` fts5vocab over it: the bank's document frequencies (offline model)
 *   `<table>_fts_<hex>_ai|ad|au` triggers on `<table>` with `WHEN bank_id = '<bank>'`
 * Banks made by bundle import get them in the import's transaction; `syncSearchIndexes` (run when
 * a database is opened) builds missing ones — e.g. after the upgrade from one shared index — and
 * drops those of deleted banks. Every search still filters on `bank_id`, so no index, however
 * built, can leak another bank's memory.
 */
import type { InStatement } from "@libsql/client";
import type { Db } from "./client";

export const SEARCHED_TABLES = ["facts", "observations", "mental_models"] as const;
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

const TRIGGERS = ["ai", "ad", "au"] as const;

/** The bank's FTS5 table for a tier. */
export function ftsTable(table: SearchedTable, bankId: string): string {
  return `${table}_fts_${Buffer.from(bankId, "utf8").toString("hex")}`;
}

/** The fts5vocab table over a bank index: document frequency per porter stem (db/term-stats.ts). */
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

const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

/**
 * Creates the bank's indexes (idempotent) and fills them from the rows the bank already holds.
 * Run inside the transaction that inserts the bank's first rows, or on its own for an existing bank.
 */
export function createBankIndexStatements(bankId: string): InStatement[] {
  const bank = literal(bankId);
  return SEARCHED_TABLES.flatMap((table) => {
    const fts = ftsTable(table, bankId);
    const cols = INDEXED_COLUMNS[table].map((c) => c.name);
    const list = cols.join(", ");
    const values = (row: "new" | "old") => cols.map((c) => `${row}.${c}`).join(", ");
    return [
      `CREATE VIEW IF NOT EXISTS ${fts}_rows AS SELECT pk, ${list} FROM ${table} WHERE bank_id = ${bank}`,
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${fts} USING fts5(${list}, content='${fts}_rows', content_rowid='pk', tokenize='porter unicode61')`,
      `CREATE TRIGGER IF NOT EXISTS ${fts}_ai AFTER INSERT ON ${table} WHEN new.bank_id = ${bank} BEGIN
         INSERT INTO ${fts}(rowid, ${list}) VALUES (new.pk, ${values("new")});
       END`,
      `CREATE TRIGGER IF NOT EXISTS ${fts}_ad AFTER DELETE ON ${table} WHEN old.bank_id = ${bank} BEGIN
         INSERT INTO ${fts}(${fts}, rowid, ${list}) VALUES ('delete', old.pk, ${values("old")});
       END`,
      `CREATE TRIGGER IF NOT EXISTS ${fts}_au AFTER UPDATE OF ${list}, bank_id ON ${table}
         WHEN old.bank_id = ${bank} OR new.bank_id = ${bank} BEGIN
         INSERT INTO ${fts}(${fts}, rowid, ${list}) SELECT 'delete', old.pk, ${values("old")} WHERE old.bank_id = ${bank};
         INSERT INTO ${fts}(rowid, ${list}) SELECT new.pk, ${values("new")} WHERE new.bank_id = ${bank};
       END`,
      `INSERT INTO ${fts}(${fts}) VALUES ('rebuild')`,
      vocabTableStatement(fts),
    ];
  });
}

/** Drops the bank's indexes (a no-op when absent); rows deleted afterwards no longer touch them. */
export function dropBankIndexStatements(bankId: string): InStatement[] {
  return SEARCHED_TABLES.flatMap((table) => {
    const fts = ftsTable(table, bankId);
    return [
      ...TRIGGERS.map((t) => `DROP TRIGGER IF EXISTS ${fts}_${t}`),
      `DROP TABLE IF EXISTS ${vocabTable(fts)}`,
      `DROP TABLE IF EXISTS ${fts}`,
      `DROP VIEW IF EXISTS ${fts}_rows`,
    ];
  });
}

const INDEX_NAME = new RegExp(`^(${SEARCHED_TABLES.join("|")})_fts_([0-9a-f]+)$`);

/** Bank ids (decoded) that have at least one FTS table. */
async function indexedBanks(db: Db): Promise<Map<string, Set<SearchedTable>>> {
  const res = await db.$client.execute(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' AND name LIKE '%\\_fts\\_%' ESCAPE '\\'",
  );
  const out = new Map<string, Set<SearchedTable>>();
  for (const row of res.rows) {
    const m = INDEX_NAME.exec(String(row.name));
    if (!m) continue;
    const bankId = Buffer.from(m[2]!, "hex").toString("utf8");
    const tables = out.get(bankId) ?? new Set<SearchedTable>();
    tables.add(m[1] as SearchedTable);
    out.set(bankId, tables);
  }
  return out;
}

/** Builds the index of a bank that has none (or an incomplete one), from its current rows. */
export async function ensureBankIndex(db: Db, bankId: string): Promise<void> {
  await db.$client.batch([...dropBankIndexStatements(bankId), ...createBankIndexStatements(bankId)], "write");
}

/**
 * Makes the indexes match the banks: builds the missing or incomplete ones, drops those of banks
 * that no longer exist. Cheap when nothing is to do (two catalog reads).
 */
export async function syncSearchIndexes(db: Db): Promise<{ built: string[]; dropped: string[] }> {
  const banks = (await db.$client.execute("SELECT id FROM banks")).rows.map((r) => String(r.id));
  const indexed = await indexedBanks(db);
  const built: string[] = [];
  for (const bankId of banks) {
    if ((indexed.get(bankId)?.size ?? 0) === SEARCHED_TABLES.length) continue;
    await ensureBankIndex(db, bankId);
    built.push(bankId);
  }
  const dropped = [...indexed.keys()].filter((id) => !banks.includes(id));
  if (dropped.length > 0) await db.$client.batch(dropped.flatMap(dropBankIndexStatements), "write");
  return { built, dropped };
}

/** True when an error says a bank's FTS table does not exist (a bank created behind our back). */
export function isMissingIndexError(error: unknown, fts: string): boolean {
  return String(error).includes(`no such table: ${fts}`);
}
