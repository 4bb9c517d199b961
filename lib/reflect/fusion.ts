/**
 * Reciprocal-rank fusion (docs/engine.md#memory-model): the one home of the fusion rule, used by the store's hybrid
 * search (lexical + vector) and by the missed-evidence probe (many queries × tiers).
 */

/** The usual RRF constant: damps the weight of the very first ranks. */
export const RRF_K = 60;

/** The RRF contribution of one 1-based rank. */
export function rrfScore(rank: number): number {
  return 1 / (RRF_K + rank);
}

export interface Fused<T> {
  item: T;
  /** Σ 1 / (RRF_K + rank) over the lists the item appears in; higher is better. */
  score: number;
}

/** Fuses ranked lists, best first: score = Σ 1 / (RRF_K + rank), rank 1-based; ties keep first-seen order. */
export function fuseRanked<T>(lists: T[][], key: (item: T) => string): Fused<T>[] {
  const scored = new Map<string, { item: T; score: number; first: number }>();
  let seen = 0;
  for (const list of lists) {
    list.forEach((item, i) => {
      const k = key(item);
      const entry = scored.get(k) ?? { item, score: 0, first: seen++ };
      entry.score += rrfScore(i + 1);
      scored.set(k, entry);
    });
  }
  return [...scored.values()]
    .sort((a, b) => b.score - a.score || a.first - b.first)
    .map(({ item, score }) => ({ item, score }));
}

/** The fused items alone, best first. */
export function reciprocalRankFusion<T>(lists: T[][], key: (item: T) => string): T[] {
  return fuseRanked(lists, key).map((e) => e.item);
}
