/**
 * Free text → safe FTS5 MATCH syntax. Every token is quoted (so FTS5 operators and punctuation in
 * the question can never cause a syntax error). `any` OR-joins the tokens, so bm25() ranks
 * documents matching more and rarer tokens first; `all` AND-joins them (null for a single token),
 * which a search tries first because it matches far fewer rows on a large bank. Null when nothing
 * searchable is left.
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

export interface FtsMatch {
  /** Every token (AND); null when the query has one token. */
  all: string | null;
  /** Any token (OR). */
  any: string;
}

export function buildFtsMatch(text: string): FtsMatch | null {
  const seen = new Set<string>();
  for (const token of text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []) {
    if (!STOP_WORDS.has(token)) seen.add(token);
  }
  if (seen.size === 0) return null;
  const quoted = [...seen].map((t) => `"${t}"`);
  return { all: quoted.length > 1 ? quoted.join(" AND ") : null, any: quoted.join(" OR ") };
}

/** The OR form alone (the bench's floor query). */
export function buildFtsQuery(text: string): string | null {
  return buildFtsMatch(text)?.any ?? null;
}
