/** Text helpers for the offline model: keyword extraction and keyword overlap. */

const STOP_WORDS = new Set(
  `a about above across after again against all almost along already also although always am among an and another
  any anybody anyone anything anywhere are aren around as ask asked at be became because become been before being
  below between both but by can cannot could couldn did didn do does doesn doing don done down during each either
  else enough etc even ever every everything few find for found from further get gets getting give given go going
  got had hadn has hasn have haven having he her here hers herself him himself his how however i if in into is isn
  it its itself just know knew last least let lets like ll made make many may me might mine more most much must my
  myself need needs neither never no nor not nothing now of off often on once one only or other others otherwise
  our ours ourselves out over own per perhaps please quite rather re really regarding said same say says see seem
  seems shall she should shouldn since so some somebody someone something sometimes still such tell tells than that
  the their theirs them themselves then there these they thing things think this those though through thus to too
  toward towards under until up upon us use used using ve very via was wasn way we well went were weren what
  whatever when whenever where whether which while who whoever whom whose why will with within without won would
  wouldn yes yet you your yours yourself yourselves`.split(/\s+/),
);

const WORD = /[\p{L}\p{N}]+/gu;

/** The question's content words: lowercase, stop words and single letters removed, first-seen order, no repeats. */
export function keywords(text: string): string[] {
  const out: string[] = [];
  for (const word of text.toLowerCase().match(WORD) ?? []) {
    if (STOP_WORDS.has(word) || (word.length < 2 && !/\d/.test(word)) || out.includes(word)) continue;
    out.push(word);
  }
  return out;
}

/** The search query the offline model sends to a tier: the keywords, space-separated. */
export function keywordQuery(text: string): string {
  return keywords(text).join(" ");
}

// Longest first; "sion" → "d" lets "decision" meet "decide" and "conclusion" meet "conclude".
const SUFFIXES: [string, string][] = [
  ["ation", ""],
  ["ition", ""],
  ["ssion", "ss"],
  ["sion", "d"],
  ["ated", ""],
  ["ates", ""],
  ["ment", ""],
  ["ate", ""],
  ["ing", ""],
  ["ion", ""],
  ["ed", ""],
  ["es", ""],
  ["er", ""],
  ["ly", ""],
];

/**
 * Crude suffix stripping so "decided"/"decision" and "deploy"/"deploys"/"deploying" meet.
 * Applied to both sides of a comparison, so it only has to be consistent, not linguistic.
 */
export function stem(word: string): string {
  let w = word.toLowerCase();
  if (w.length > 4 && w.endsWith("ies")) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us")) w = w.slice(0, -1);
  for (const [suffix, replacement] of SUFFIXES) {
    if (w.length - suffix.length >= 4 && w.endsWith(suffix)) {
      w = w.slice(0, -suffix.length) + replacement;
      break;
    }
  }
  // "shipped" → "shipp" → "ship"; "e" endings make "decide" and "decid(ed)" meet.
  if (/([b-df-hj-np-tv-z])\1$/.test(w)) w = w.slice(0, -1);
  if (w.length > 4 && w.endsWith("e")) w = w.slice(0, -1);
  return w;
}

/** The question keywords (as given) that appear in the text, compared by stem. */
export function matchedKeywords(words: string[], text: string): string[] {
  const stems = new Set((text.toLowerCase().match(WORD) ?? []).map(stem));
  return words.filter((w) => stems.has(stem(w)));
}
