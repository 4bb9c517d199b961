/**
 * The words a search is made of: letters and digits, lower-cased, without the stop words that name
 * no topic. One home for the rule: the store builds its FTS5 queries from these terms
 * (db/queries/fts-query.ts), and the missed-evidence probe measures how many of them a hit holds.
 */
import { porterStem } from "./porter";

export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again all also am an and any are as at be been before being below between both but by can " +
    "could did do does doing down during each few for from further had has have having he her here hers him his how " +
    "i if in into is it its itself just me more most my no nor not of off on once only or other our ours out over own " +
    "same she should so some such than that the their theirs them then there these they this those through to too " +
    "under until up very was we were what when where which while who whom why will with would you your yours " +
    // Question filler: words people wrap a question in that name no topic and match half a bank.
    "anything going happen happened happening happens know please something tell thing things think"
  ).split(" "),
);

const WORD = /[\p{L}\p{N}_]+/gu;

/** The distinct words of a text, lower-cased, stop words included, in order of first appearance. */
export function wordsOf(text: string): string[] {
  return [...new Set(text.toLowerCase().match(WORD) ?? [])];
}

/**
 * The distinct search terms of a text, in order of first appearance. A lone letter names no topic:
 * it is what is left of "Caroline's" or "won't" ("s", "t"); a lone digit is kept.
 */
export function searchTerms(text: string): string[] {
  return wordsOf(text).filter((token) => !STOP_WORDS.has(token) && (token.length > 1 || /\d/.test(token)));
}

/** The share of `terms` (0–1) that occur in `text`, compared by porter stem as the search compares them; 0 when there are none. */
export function termCoverage(terms: readonly string[], text: string): number {
  if (terms.length === 0) return 0;
  const stems = new Set((text.toLowerCase().match(WORD) ?? []).map(porterStem));
  return terms.filter((t) => stems.has(porterStem(t))).length / terms.length;
}
