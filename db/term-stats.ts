/**
 * Term statistics for the offline model: how many memories the search indexes and how many of them
 * contain each porter stem, read from the FTS5 indexes through their fts5vocab tables
 * (migration 0003). Counts span every bank in the database: a cheap, close stand-in for one bank's
 * statistics, which would need a pass over its memories.
 */
import type { Db } from "./client";

const VOCABS = ["facts_fts_vocab", "observations_fts_vocab", "mental_models_fts_vocab"] as const;

export interface TermDocumentFrequencies {
  documents: number;
  frequencies: Map<string, number>;
}

export async function termDocumentFrequencies(db: Db, stems: readonly string[]): Promise<TermDocumentFrequencies> {
  const terms = [...new Set(stems)];
  const placeholders = terms.map(() => "?").join(", ");
  const statements = [
    {
      sql: "SELECT (SELECT COUNT(*) FROM facts) + (SELECT COUNT(*) FROM observations) + (SELECT COUNT(*) FROM mental_models) AS n",
      args: [],
    },
    ...(terms.length === 0
      ? []
      : VOCABS.map((vocab) => ({
          sql: `SELECT term, doc FROM ${vocab} WHERE term IN (${placeholders})`,
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
