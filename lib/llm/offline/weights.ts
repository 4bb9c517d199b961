/**
 * Term weights from the bank: a word few memories use says more about what the question is after
 * than one most memories use. The statistics come through a port the composition root provides
 * (document frequencies from the FTS5 index); without it every subject word weighs the same.
 */
import type { Question } from "./question";

/** Document frequencies of porter stems over the memories the search indexes. */
export interface TermStats {
  /** Memories counted (facts, observations and mental models). */
  documents: number;
  /** Memories containing each stem; a stem missing from the map occurs in none. */
  frequencies: ReadonlyMap<string, number>;
}

export interface TermStatsPort {
  lookup(stems: readonly string[]): Promise<TermStats>;
}

/** How much a role counts next to a subject word of the same rarity. */
const ROLE_FACTOR = { subject: 1, answer: 1, frame: 0.35 } as const;
/** Names, numbers and dates the question states are what it is most specifically about. */
const NAMED_FACTOR = 1.5;
/** The head of a compound ("migration" in "data pipeline migration") over its qualifiers. */
const HEAD_FACTOR = 1.3;

/** A word no memory uses, next to the heaviest word the bank does use. */
const UNKNOWN_FACTOR = 1.05;

/** BM25's idf: always positive, ln(1 + (N − df + ½) / (df + ½)). */
export function idf(stats: TermStats, stem: string): number {
  const df = Math.min(stats.frequencies.get(stem) ?? 0, stats.documents);
  return Math.log(1 + (stats.documents - df + 0.5) / (df + 0.5));
}

/** The question with each term's weight set; `stats` null means the uniform fallback. */
export function weigh(question: Question, stats: TermStats | null): Question {
  const rarity = (stems: string[]) => (stats && stems.length > 0 ? Math.min(...stems.map((s) => idf(stats, s))) : 1);
  const terms = question.terms.map((t) => ({
    ...t,
    weight:
      t.stems.length === 0
        ? 0
        : rarity(t.stems) * ROLE_FACTOR[t.role] * (t.named ? NAMED_FACTOR : 1) * (t.head ? HEAD_FACTOR : 1),
  }));
  // A word no memory uses cannot be matched, and its rarity says nothing about what the bank holds:
  // it weighs a little more than the heaviest word the bank does use, not far more ("owe" in "What
  // does Tomás owe from the postmortem?" must not hide the action item that names Tomás and the
  // postmortem), and a passage that states only one other word still covers less than half.
  const known = terms.filter((t) => t.stems.length > 0 && !unknownToBank(stats, t.stems));
  const cap = known.length > 0 ? UNKNOWN_FACTOR * Math.max(...known.map((t) => t.weight)) : null;
  if (cap !== null) {
    for (const t of terms) if (t.stems.length > 0 && unknownToBank(stats, t.stems)) t.weight = Math.min(t.weight, cap);
  }
  // "when", "who", "why": as important as an average word of the question.
  const worded = terms.filter((t) => t.weight > 0);
  const average = worded.length > 0 ? worded.reduce((sum, t) => sum + t.weight, 0) / worded.length : 1;
  return { ...question, terms: terms.map((t) => (t.stems.length === 0 ? { ...t, weight: average } : t)) };
}

/** Whether the bank's statistics say no memory uses the stem at all. */
export function unknownToBank(stats: TermStats | null, stems: readonly string[]): boolean {
  return stats !== null && stems.every((s) => (stats.frequencies.get(s) ?? 0) === 0);
}

/** Stems worth looking up for a question. */
export function questionStems(question: Question): string[] {
  return [...new Set(question.terms.flatMap((t) => t.stems))];
}
