/**
 * Free text → safe FTS5 MATCH syntax. Every token is quoted (so FTS5 operators and punctuation in
 * the question can never cause a syntax error). bm25() ranks documents matching more and rarer
 * tokens first; the stricter expressions match far fewer rows on a large bank, so they are tried
 * first (search.ts).
 */
import { searchTerms } from "@/lib/reflect/terms";

/**
 * The MATCH expressions a search tries, strictest first: every word (AND), then — with three words
 * or more — every word but one, then any word (OR). A search stops at the first that gives it
 * enough memories. Null when nothing searchable is left.
 */
export function buildFtsMatches(text: string): string[] | null {
  return ftsMatchesOf(searchTerms(text));
}

/**
 * The most words the "every word but one" level takes (search.ts ranks it in pieces, one per word
 * left out); past it a search goes from every word to any word.
 */
export const ALL_BUT_ONE_AT_MOST = 8;

/**
 * `buildFtsMatches` of terms already chosen (search.ts drops the words a bank holds nowhere). The
 * "every word but one" expression repeats each word once per other word, so it is written only up
 * to ALL_BUT_ONE_AT_MOST words: a model's search of 10,000 words made it 800 MB (a RangeError after
 * 6 s) and of 100,000 ran the process out of memory.
 */
export function ftsMatchesOf(terms: readonly string[]): string[] | null {
  if (terms.length === 0) return null;
  const words = terms.map((t) => `"${t}"`);
  if (words.length === 1) return words;
  const allBut = (skip: number) => words.filter((_, i) => i !== skip).join(" AND ");
  return [
    words.join(" AND "),
    ...(words.length >= 3 && words.length <= ALL_BUT_ONE_AT_MOST
      ? [words.map((_, skip) => `(${allBut(skip)})`).join(" OR ")]
      : []),
    words.join(" OR "),
  ];
}

/** The OR of every word (the bench's floor query). */
export function buildFtsQuery(text: string): string | null {
  return buildFtsMatches(text)?.at(-1) ?? null;
}
