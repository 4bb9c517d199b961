/**
 * Answers that say the bank had nothing (docs/engine.md#grounding-citations-and-the-output-guard).
 * The probe reads a negative answer by them, and citation validation tells a decline (an honest
 * "nothing about that", which needs no citation) from an ungrounded claim.
 */

import { isPlaceholderContent, normalizedContent } from "./freshness";

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

/**
 * The answer declines: it says nothing was found, and says little else — at most two sentences and
 * 300 characters. A longer answer that also states things makes claims, and claims need citations,
 * so it is not a decline whatever phrase it opens with.
 */
export function isDecline(answer: string): boolean {
  const text = answer.trim();
  if (!saysNothingFound(text)) return false;
  if (text.length > DECLINE_MAX_CHARS) return false;
  const sentences = text.split(/(?<=[.!?])\s+/).filter((s) => s.trim() !== "");
  return sentences.length <= DECLINE_MAX_SENTENCES;
}
