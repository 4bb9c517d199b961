/**
 * The Porter stemmer as SQLite's FTS5 `porter` tokenizer applies it (ext/fts5/fts5_tokenize.c), so
 * the offline model compares words the way the memory search matches them: "decided" and "deciding"
 * meet as "decid", "pricing" and "priced" as "price", while "decision" stays "decis" in both places.
 * Tokens shorter than 3 or longer than 64 bytes pass through unchanged, as in FTS5.
 */

const MAX_TOKEN_BYTES = 64;

function isVowel(c: string | undefined, yIsVowel: boolean): boolean {
  return c === "a" || c === "e" || c === "i" || c === "o" || c === "u" || (yIsVowel && c === "y");
}

/** Length of the first vowel-consonant run of `stem` (0 when there is none); `y` after a consonant is a vowel. */
function gobbleVC(stem: string, prevConsonant: boolean): number {
  let consonant = prevConsonant;
  let i = 0;
  for (; i < stem.length; i++) {
    consonant = !isVowel(stem[i], consonant);
    if (!consonant) break;
  }
  for (i++; i < stem.length; i++) {
    consonant = !isVowel(stem[i], consonant);
    if (consonant) return i + 1;
  }
  return 0;
}

/** Porter's measure m of the stem is greater than zero. */
const mGt0 = (stem: string) => gobbleVC(stem, false) > 0;

function mGt1(stem: string): boolean {
  const n = gobbleVC(stem, false);
  return n > 0 && gobbleVC(stem.slice(n), true) > 0;
}

function mEq1(stem: string): boolean {
  const n = gobbleVC(stem, false);
  return n > 0 && gobbleVC(stem.slice(n), true) === 0;
}

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
function endsCvc(stem: string): boolean {
  const last = stem.at(-1);
  if (last === "w" || last === "x" || last === "y") return false;
  let mask = 0;
  let consonant = false;
  for (const c of stem) {
    consonant = !isVowel(c, consonant);
    mask = ((mask << 1) | (consonant ? 1 : 0)) & 0x7;
  }
  return stem.length >= 3 && mask === 0b101;
}

/** *v*: the stem contains a vowel (FTS5 counts any `y` after the first letter). */
function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (isVowel(stem[i], i > 0)) return true;
  return false;
}

type Rule = [suffix: string, replacement: string, condition: (stem: string) => boolean];

/**
 * Applies the first rule whose suffix the word ends with (strictly longer than the suffix); when its
 * condition fails no other rule is tried, as in Porter's "longest matching suffix" reading.
 */
function applyFirst(word: string, rules: readonly Rule[]): string {
  for (const [suffix, replacement, condition] of rules) {
    if (word.length <= suffix.length || !word.endsWith(suffix)) continue;
    const stem = word.slice(0, -suffix.length);
    return condition(stem) ? stem + replacement : word;
  }
  return word;
}

const STEP2: Rule[] = [
  ["ational", "ate", mGt0],
  ["tional", "tion", mGt0],
  ["enci", "ence", mGt0],
  ["anci", "ance", mGt0],
  ["izer", "ize", mGt0],
  ["logi", "log", mGt0],
  ["bli", "ble", mGt0],
  ["alli", "al", mGt0],
  ["entli", "ent", mGt0],
  ["eli", "e", mGt0],
  ["ousli", "ous", mGt0],
  ["ization", "ize", mGt0],
  ["ation", "ate", mGt0],
  ["ator", "ate", mGt0],
  ["alism", "al", mGt0],
  ["iveness", "ive", mGt0],
  ["fulness", "ful", mGt0],
  ["ousness", "ous", mGt0],
  ["aliti", "al", mGt0],
  ["iviti", "ive", mGt0],
  ["biliti", "ble", mGt0],
];

const STEP3: Rule[] = [
  ["icate", "ic", mGt0],
  ["ative", "", mGt0],
  ["alize", "al", mGt0],
  ["iciti", "ic", mGt0],
  ["ical", "ic", mGt0],
  ["ful", "", mGt0],
  ["ness", "", mGt0],
];

const STEP4: Rule[] = [
  ["al", "", mGt1],
  ["ance", "", mGt1],
  ["ence", "", mGt1],
  ["er", "", mGt1],
  ["ic", "", mGt1],
  ["able", "", mGt1],
  ["ible", "", mGt1],
  ["ant", "", mGt1],
  ["ement", "", mGt1],
  ["ment", "", mGt1],
  ["ent", "", mGt1],
  ["ion", "", (stem) => (stem.endsWith("s") || stem.endsWith("t")) && mGt1(stem)],
  ["ou", "", mGt1],
  ["ism", "", mGt1],
  ["ate", "", mGt1],
  ["iti", "", mGt1],
  ["ous", "", mGt1],
  ["ive", "", mGt1],
  ["ize", "", mGt1],
];

// FTS5 picks a step's rule by the word's second-to-last letter, so among rules sharing that letter
// the first listed wins even when a longer suffix of another letter would also match.
function byPenultimate(rules: readonly Rule[]): Map<string, Rule[]> {
  const map = new Map<string, Rule[]>();
  for (const rule of rules) {
    const key = rule[0].at(-2) ?? "";
    map.set(key, [...(map.get(key) ?? []), rule]);
  }
  return map;
}
const STEP2_BY = byPenultimate(STEP2);
const STEP3_BY = byPenultimate(STEP3);
const STEP4_BY = byPenultimate(STEP4);

function step(word: string, rules: Map<string, Rule[]>): string {
  return applyFirst(word, rules.get(word.at(-2) ?? "") ?? []);
}

function step1a(w: string): string {
  if (!w.endsWith("s")) return w;
  if (w.at(-2) === "e") {
    if ((w.length > 4 && w.endsWith("sses")) || (w.length > 3 && w.endsWith("ies"))) return w.slice(0, -2);
    return w.slice(0, -1);
  }
  return w.at(-2) === "s" ? w : w.slice(0, -1);
}

/** Step 1b: returns the word and whether "ed"/"ing" was removed (which triggers the clean-up). */
function step1b(w: string): [string, boolean] {
  if (w.at(-2) === "e") {
    if (w.length > 3 && w.endsWith("eed")) return [mGt0(w.slice(0, -3)) ? w.slice(0, -1) : w, false];
    if (w.length > 2 && w.endsWith("ed") && hasVowel(w.slice(0, -2))) return [w.slice(0, -2), true];
  } else if (w.at(-2) === "n" && w.length > 3 && w.endsWith("ing") && hasVowel(w.slice(0, -3))) {
    return [w.slice(0, -3), true];
  }
  return [w, false];
}

function step1bCleanUp(w: string): string {
  for (const [end, full] of [
    ["at", "ate"],
    ["bl", "ble"],
    ["iz", "ize"],
  ] as const) {
    if (w.length > 2 && w.endsWith(end)) return w.slice(0, -2) + full;
  }
  const last = w.at(-1);
  if (last && !isVowel(last, false) && last !== "l" && last !== "s" && last !== "z" && last === w.at(-2)) {
    return w.slice(0, -1);
  }
  if (mEq1(w) && endsCvc(w)) return `${w}e`;
  return w;
}

// ASCII only (every code unit below 0x80): one byte per character.
const utf8Length = (s: string) => (/^[^\u0080-\uffff]*$/.test(s) ? s.length : Buffer.byteLength(s, "utf8"));

// Stems by word: a bank repeats its vocabulary. Bounded; a pure function, so still deterministic.
const STEMS = new Map<string, string>();
const STEMS_LIMIT = 50_000;

/** The FTS5 porter stem of one lowercase token. */
export function porterStem(token: string): string {
  const known = STEMS.get(token);
  if (known !== undefined) return known;
  const stem = stemUncached(token);
  if (STEMS.size >= STEMS_LIMIT) STEMS.clear();
  STEMS.set(token, stem);
  return stem;
}

function stemUncached(token: string): string {
  const bytes = utf8Length(token);
  if (bytes < 3 || bytes > MAX_TOKEN_BYTES) return token;
  const [afterStep1b, removed] = step1b(step1a(token));
  let w = removed ? step1bCleanUp(afterStep1b) : afterStep1b;
  if (w.endsWith("y") && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  w = step(w, STEP2_BY);
  w = step(w, STEP3_BY);
  w = step(w, STEP4_BY);
  if (w.endsWith("e")) {
    const stem = w.slice(0, -1);
    if (mGt1(stem) || (mEq1(stem) && !endsCvc(stem))) w = stem;
  }
  if (w.length > 1 && w.endsWith("ll") && mGt1(w.slice(0, -1))) w = w.slice(0, -1);
  return w;
}
