/**
 * Free text → safe FTS5 MATCH syntax. Every token is quoted (so FTS5 operators and punctuation in
 * the question can never cause a syntax error). bm25() ranks documents matching more and rarer
 * tokens first; the stricter expressions match far fewer rows on a large bank, so they are tried
 * first (search.ts).
 */
const STOP_WORDS = new Set(
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

/**
 * The MATCH expressions a search tries, strictest first: every word (AND), then — with three words
 * or more — every word but one, then any word (OR). A search stops at the first that gives it
 * enough memories. Null when nothing searchable is left.
 */
export function buildFtsMatches(text: string): string[] | null {
  const seen = new Set<string>();
  for (const token of text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []) {
    if (!STOP_WORDS.has(token)) seen.add(token);
  }
  if (seen.size === 0) return null;
  const words = [...seen].map((t) => `"${t}"`);
  if (words.length === 1) return words;
  const allBut = (skip: number) => words.filter((_, i) => i !== skip).join(" AND ");
  return [
    words.join(" AND "),
    ...(words.length >= 3 ? [words.map((_, skip) => `(${allBut(skip)})`).join(" OR ")] : []),
    words.join(" OR "),
  ];
}

/** The OR of every word (the bench's floor query). */
export function buildFtsQuery(text: string): string | null {
  return buildFtsMatches(text)?.at(-1) ?? null;
}
