/**
 * Term statistics for the offline model: how many memories a bank holds and how many of them
 * contain each porter stem, read from the bank's own FTS5 indexes through fts5vocab tables made
 * in the connection's temp schema (db/queries/search-index.ts). Each bank is weighed by its own words, as if it were alone.
 */
import type { ResultSet } from "@libsql/client";
import type { Db } from "../client";
import { bankKeySql } from "./bank-storage";
import {
  ensureBankIndex,
  ensureFreshIndex,
  fileVocabTableStatement,
  ftsTable,
  indexedTiers,
  isMissingIndexError,
  isReadOnlyError,
  SEARCHED_TABLES,
  type SearchedTable,
  vocabTable,
  vocabTableStatement,
} from "./search-index";

export interface TermDocumentFrequencies {
  documents: number;
  frequencies: Map<string, number>;
}

export async function termDocumentFrequencies(
  db: Db,
  bankId: string,
  stems: readonly string[],
): Promise<TermDocumentFrequencies> {
  await ensureFreshIndex(db, bankId);
  try {
    return await read(db, bankId, stems);
  } catch (error) {
    if (!SEARCHED_TABLES.some((t) => isMissingIndexError(error, ftsTable(t, bankId)))) throw error;
    // Rows without an index (a bank inserted with raw SQL): build it, then read.
    try {
      await ensureBankIndex(db, bankId);
    } catch (err) {
      // A read-only file cannot build it: read the indexes there are.
      if (!isReadOnlyError(err)) throw err;
      return read(db, bankId, stems, await indexedTiers(db, bankId));
    }
    return read(db, bankId, stems);
  }
}

async function read(
  db: Db,
  bankId: string,
  stems: readonly string[],
  indexed: readonly SearchedTable[] = SEARCHED_TABLES,
): Promise<TermDocumentFrequencies> {
  const terms = [...new Set(stems)];
  const placeholders = terms.map(() => "?").join(", ");
  const { rows } = await db.$client.execute({
    sql: `SELECT ${SEARCHED_TABLES.map((t) => `(SELECT COUNT(*) FROM ${t} WHERE bank_id = ${bankKeySql(t)}) AS ${t}`).join(", ")}`,
    args: SEARCHED_TABLES.map(() => bankId),
  });
  const counts = SEARCHED_TABLES.map((t) => Number(rows[0]?.[t] ?? 0));
  const documents = counts.reduce((a, b) => a + b, 0);
  // Only a tier with rows has an index (search-index.ts).
  const tiers = SEARCHED_TABLES.filter((t, i) => counts[i]! > 0 && indexed.includes(t));
  const frequencies = new Map<string, number>();
  if (terms.length === 0 || tiers.length === 0) return { documents, frequencies };
  const results =
    db.$client.protocol === "file"
      ? await db.$client.batch(
          tiers.flatMap((t) => {
            const fts = ftsTable(t, bankId);
            return [
              vocabTableStatement(fts),
              { sql: `SELECT term, doc FROM temp.${vocabTable(fts)} WHERE term IN (${placeholders})`, args: terms },
            ];
          }),
          "read",
        )
      : await readOnServer(db, bankId, tiers, terms);
  for (const result of results) {
    for (const row of result.rows) {
      const term = String(row.term);
      frequencies.set(term, (frequencies.get(term) ?? 0) + Number(row.doc));
    }
  }
  return { documents, frequencies };
}

/**
 * The same read over a libSQL server, whose SQL parser refuses a virtual table in `temp`: the vocab
 * tables are in the file there (search-index.ts `fileVocabTableStatement`). Read as they are; one
 * missing (never made, or dropped when a process opened the database) is made in a write batch
 * that reads too (a read replica forwards it to its primary, which has what it makes).
 */
async function readOnServer(
  db: Db,
  bankId: string,
  tiers: readonly SearchedTable[],
  terms: readonly string[],
): Promise<ResultSet[]> {
  const placeholders = terms.map(() => "?").join(", ");
  const reads = tiers.map((t) => ({
    sql: `SELECT term, doc FROM main.${vocabTable(ftsTable(t, bankId))} WHERE term IN (${placeholders})`,
    args: [...terms],
  }));
  try {
    return await db.$client.batch(reads, "read");
  } catch (error) {
    if (!tiers.some((t) => String(error).includes(`no such table: main.${vocabTable(ftsTable(t, bankId))}`)))
      throw error;
    const made = tiers.map((t) => fileVocabTableStatement(ftsTable(t, bankId)));
    return (await db.$client.batch([...made, ...reads], "write")).slice(made.length);
  }
}
