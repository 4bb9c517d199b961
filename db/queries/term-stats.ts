/**
 * Term statistics for the offline model: how many memories a bank holds and how many of them
 * contain each porter stem, read from the bank's own FTS5 indexes through their fts5vocab tables
 * (db/queries/search-index.ts). Each bank is weighed by its own words, as if it were alone.
 */
import type { Db } from "../client";
import { bankKeySql } from "./bank-storage";
import {
  ensureBankIndex,
  ensureFreshIndex,
  ftsTable,
  isMissingIndexError,
  SEARCHED_TABLES,
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
  try {
    await ensureFreshIndex(db, bankId);
    return await read(db, bankId, stems);
  } catch (error) {
    if (SEARCHED_TABLES.some((t) => isMissingIndexError(error, ftsTable(t, bankId)))) {
      // A bank inserted without its index (raw SQL): build it, then read.
      await ensureBankIndex(db, bankId);
      return read(db, bankId, stems);
    }
    // An index built before vocab tables existed: add them (they store nothing) and read again.
    const vocabs = SEARCHED_TABLES.map((t) => vocabTable(ftsTable(t, bankId)));
    if (!vocabs.some((v) => isMissingIndexError(error, v))) throw error;
    await db.$client.batch(
      SEARCHED_TABLES.map((t) => vocabTableStatement(ftsTable(t, bankId))),
      "write",
    );
    return read(db, bankId, stems);
  }
}

async function read(db: Db, bankId: string, stems: readonly string[]): Promise<TermDocumentFrequencies> {
  const terms = [...new Set(stems)];
  const placeholders = terms.map(() => "?").join(", ");
  const statements = [
    {
      sql: `SELECT ${SEARCHED_TABLES.map((t) => `(SELECT COUNT(*) FROM ${t} WHERE bank_id = ${bankKeySql(t)})`).join(" + ")} AS n`,
      args: SEARCHED_TABLES.map(() => bankId),
    },
    ...(terms.length === 0
      ? []
      : SEARCHED_TABLES.map((t) => ({
          sql: `SELECT term, doc FROM ${vocabTable(ftsTable(t, bankId))} WHERE term IN (${placeholders})`,
          args: terms,
        }))),
  ];
  const [count, ...vocabs] = await db.$client.batch(statements, "read");
  const frequencies = new Map<string, number>();
  for (const result of vocabs) {
    for (const row of result.rows) {
      const term = String(row.term);
      frequencies.set(term, (frequencies.get(term) ?? 0) + Number(row.doc));
    }
  }
  return { documents: Number(count?.rows[0]?.n ?? 0), frequencies };
}
