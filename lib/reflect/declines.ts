/**
 * Answers that say the bank had nothing (docs/engine.md#grounding-citations-and-the-output-guard).
 * The probe reads a negative answer by them, and citation validation tells a decline (an honest
 * "nothing about that", which needs no citation) from an ungrounded claim.
 */

import { isPlaceholderContent, normalizedContent } from "./freshness";
import { porterStem } from "./porter";
import { searchTerms } from "./terms";

/**
 * Phrases of an answer that says the bank had nothing (normalized like placeholder text: case-folded,
 * punctuation as spaces, so "couldn't" reads "couldn t").
 */
const NOT_FOUND_PHRASES = [
  "no relevant memories",
  "no relevant memory",
  "no relevant information",
  "no information",
  "no memories",
  "no record",
  "no records",
  "no mention",
  "no evidence",
  "could not find",
  "couldn't find",
  "cannot find",
  "can't find",
  "did not find",
  "didn't find",
  "unable to find",
  "found nothing",
  "nothing was found",
  "nothing about",
  "holds nothing",
  "does not contain",
  "doesn't contain",
  "not mentioned",
  "don't know",
  "do not know",
  "nothing in memory",
  "nothing in the memory",
  "nothing in the bank",
  "no data on",
  "no data about",
].map(normalizedContent);

/**
 * True when an answer text says nothing was found: empty, placeholder or the engine's own
 * no-evidence text (the §3.5b detector), or a not-found phrase anywhere in it.
 */
export function saysNothingFound(answer: string): boolean {
  if (isPlaceholderContent(answer)) return true;
  const text = ` ${normalizedContent(answer)} `;
  return NOT_FOUND_PHRASES.some((p) => text.includes(` ${p} `));
}

/** A decline is short: at most this many sentences and characters. */
export const DECLINE_MAX_SENTENCES = 2;
export const DECLINE_MAX_CHARS = 300;

/** Sentence ends, ASCII and not ("。", "！", "…"), and line breaks. */
const SENTENCE_END = /(?<=[.!?\u2026\u061F\u0964])\s+|(?<=[\u3002\uFF01\uFF1F])\s*|\n+/u;
/**
 * Where a clause ends: sentence ends, ";", ":", ",", dashes, brackets, and the words that join a
 * second statement to the first ("and", "because", …). The contrast words ("but", "however", …)
 * end a clause too, and what follows one must not repeat the question (CONTRAST below).
 */
const CLAUSE_BREAK =
  /[.!?;:,\u2026\u3002\uFF01\uFF1F\uFF1B\uFF0C\u061F\u0964()[\]{}\n\u2013\u2014]|\s-+\s|(?<![\p{L}\p{N}_])(?:while|and|also|besides|plus|because)(?![\p{L}\p{N}_])/iu;
/** A contrast: what follows it is a second statement ("I could not find that, but Atlas launched in May"). */
const CONTRAST =
  /(?<![\p{L}\p{N}_])(?:but|however|though|although|yet|except|instead|whereas|still|nevertheless|nonetheless)(?![\p{L}\p{N}_])/iu;

/**
 * Words a decline may say besides the not-found phrases: courtesy, and the memory it searched
 * ("Sorry, the memory bank has no record of that").
 */
const DECLINE_WORDS = new Set(
  (
    "sorry unfortunately afraid apologies apologize memory memories bank " +
    "conversation conversations records record information info details detail specific relevant " +
    "mentioned mention found available stored provided context data none nothing unable say says said " +
    "answer sure certain able determine retrieved evidence notes note " +
    // What is left of a negation ("don't say"): the clause states nothing.
    "don doesn didn isn aren wasn weren couldn cannot hasn haven hadn"
  ).split(" "),
);
/** Words of the search itself: a clause with one may repeat the question ("I searched for the Atlas launch"). */
const SEARCH_WORDS = new Set(
  "searched search searching looked look looking checked check checking asked question".split(" "),
);

/**
 * A clause beside the "nothing found" states nothing: only courtesy and memory words, or — before
 * any contrast — the search and the question's own words ("I looked for the Atlas launch"). The
 * question's words alone are a statement ("Atlas launched on March 14" to "Did Atlas launch on March 14?").
 */
function statesNothing(clause: string, asked: ReadonlySet<string>, contrasted: boolean): boolean {
  if (saysNothingFound(clause)) return true;
  const terms = searchTerms(clause);
  if (terms.every((t) => DECLINE_WORDS.has(t))) return true;
  return (
    !contrasted &&
    terms.some((t) => SEARCH_WORDS.has(t)) &&
    terms.every((t) => DECLINE_WORDS.has(t) || SEARCH_WORDS.has(t) || asked.has(porterStem(t)))
  );
}

/**
 * The answer declines: it says nothing was found, and says little else — at most two sentences and
 * 300 characters, and no statement beside the "nothing found": every clause either says nothing
 * was found or states nothing (statesNothing: "I could not find X, but the launch is March 14"
 * states a date, and a date needs a citation). A longer answer that also states things makes
 * claims, and claims need citations, so it is not a decline whatever phrase it opens with.
 * `question` is the run's question (a search for it may be described).
 */
export function isDecline(answer: string, question = ""): boolean {
  const text = answer.trim();
  if (!saysNothingFound(text)) return false;
  if (text.length > DECLINE_MAX_CHARS) return false;
  const sentences = text.split(SENTENCE_END).filter((s) => s.trim() !== "");
  if (sentences.length > DECLINE_MAX_SENTENCES) return false;
  if (isPlaceholderContent(text)) return true;
  const asked = new Set(searchTerms(question).map(porterStem));
  return text
    .split(CLAUSE_BREAK)
    .every((part) => part.split(CONTRAST).every((clause, i) => statesNothing(clause, asked, i > 0)));
}
