/**
 * How an answer is scored against a gold answer, as LoCoMo scores it (the paper's
 * `task_eval/evaluation.py`): normalise (lower case; drop commas, then all punctuation; drop the
 * words a, an, the, and; collapse spaces), Porter-stem each token, token F1. A multi-part gold
 * answer ("Sweden, Norway") is split on commas, each part takes its best F1 over the answer's own
 * comma-separated parts, and the parts' scores are averaged. Differences from the paper, both
 * small: the stemmer is the Porter algorithm as SQLite's FTS5 applies it (NLTK's variant differs
 * on a few suffixes), and "contains the answer" also matches a date written another way.
 */
import { sameWrittenDate, withoutDates, writtenDates } from "@/lib/reflect/dates";
import { porterStem } from "@/lib/reflect/porter";

const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~’‘“”]/g;

/** LoCoMo's `normalize_answer`. */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(/,/g, "")
    .replace(PUNCTUATION, "")
    .replace(/\b(a|an|the|and)\b/g, " ")
    .split(/\s+/)
    .filter(Boolean)
    .join(" ");
}

const tokens = (text: string) => normalizeAnswer(text).split(" ").filter(Boolean).map(porterStem);

/** Token F1 (0–1) of one answer against one gold answer. */
export function tokenF1(answer: string, gold: string): number {
  const predicted = tokens(answer);
  const truth = tokens(gold);
  if (predicted.length === 0 || truth.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const t of truth) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of predicted) {
    const n = counts.get(t) ?? 0;
    if (n > 0) {
      same++;
      counts.set(t, n - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / predicted.length;
  const recall = same / truth.length;
  return (2 * precision * recall) / (precision + recall);
}

/** LoCoMo's multi-answer F1: each comma-separated gold part scored by its best answer part, averaged. */
export function multiPartF1(answer: string, gold: string): number {
  const answers = answer.split(",").map((p) => p.trim());
  const golds = gold.split(",").map((p) => p.trim());
  const scores = golds.map((g) => Math.max(...answers.map((a) => tokenF1(a, g))));
  return scores.reduce((a, b) => a + b, 0) / scores.length;
}

/**
 * Whether the answer contains the gold answer after normalisation, or — when the gold answer is
 * a date ("7 May 2023", "May 2023", "2022", "The week before 9 June 2023") — the same date in any
 * written form with the gold's other words.
 */
export function containsAnswer(answer: string, gold: string): boolean {
  const a = normalizeAnswer(answer);
  const g = normalizeAnswer(gold);
  if (g === "") return false;
  if (` ${a} `.includes(` ${g} `)) return true;
  const goldDates = writtenDates(gold);
  if (goldDates.length === 0) return false;
  const answerDates = writtenDates(answer);
  if (!goldDates.every((gd) => answerDates.some((d) => sameWrittenDate(gd, d)))) return false;
  // The words around the date must be there too ("the week before"), by normalised token.
  const answerTokens = new Set(tokens(answer));
  return tokens(withoutDates(gold)).every((t) => answerTokens.has(t));
}
