/**
 * Who said it. In a conversation each memory has a speaker, and a question about one person is
 * answered by what that person said: a careless reader answers "What did Ana name her puppy?" with
 * Ben's puppy. The reader prefers the asked person's turns and, when only someone else said the
 * thing asked about, declines rather than attributing it.
 */
import type { RetrievedItem } from "./conversation";
import type { Question } from "./question";
import type { Passage } from "./relevance";

/** LoCoMo's accepted wording for an answer the conversation does not hold. */
export const NOT_MENTIONED = "Not mentioned in the conversation.";

/** How much a passage by the asked person counts over the same passage by someone else. */
export const ASKED_SPEAKER_FACTOR = 1.3;

const plainName = (name: string) => name.replace(/['’]s$/i, "").toLowerCase();

/**
 * The person a question is about: the first name it states, when that name is a speaker of the
 * memories read (a first name matches a full speaker name). Null when it names no speaker first.
 */
export function askedSpeaker(question: Question, items: readonly RetrievedItem[]): string | null {
  const speakers = speakersOf(items);
  if (speakers.length === 0) return null;
  const first = question.entities.find((e) => e.kind === "name");
  if (!first) return null;
  const name = plainName(first.text);
  return speakers.find((s) => s.toLowerCase() === name || s.toLowerCase().split(/\s+/)[0] === name) ?? null;
}

/**
 * Whose the memory is: its speaker; for a memory without one (an observation), the speaker its
 * text opens with ("Caroline attended…", "Melanie's kids…"), which is who it is about.
 */
export function personOf(item: RetrievedItem, speakers: readonly string[]): string | null {
  if (item.speaker !== null) return item.speaker;
  const first = item.text.trim().match(/^(\p{Lu}[\p{L}'’-]*)/u)?.[1];
  if (!first) return null;
  const name = plainName(first);
  return speakers.find((s) => s.toLowerCase() === name || s.toLowerCase().split(/\s+/)[0] === name) ?? null;
}

export function speakersOf(items: readonly RetrievedItem[]): string[] {
  return [...new Set(items.map((i) => i.speaker).filter((s): s is string => s !== null))];
}

/** Passages re-ranked so the asked person's own words come first among equals. */
export function favourSpeaker(
  speaker: string | null,
  passages: readonly Passage[],
  speakers: readonly string[],
): Passage[] {
  if (!speaker) return [...passages];
  return passages
    .map((p) => ({ ...p, score: personOf(p.item, speakers) === speaker ? p.score * ASKED_SPEAKER_FACTOR : p.score }))
    .sort((a, b) => b.score - a.score || a.item.order - b.item.order);
}

/**
 * Someone other than the asked person said (or is said to have done) the answering thing: nothing
 * relevant is the asked person's, or the best passage is someone else's although the asked
 * person's were favoured. That other person, or null. Memories that are nobody's never decide it.
 */
export function saidBySomeoneElse(
  question: Question,
  speaker: string | null,
  lead: Passage,
  relevant: readonly Passage[],
  speakers: readonly string[],
): string | null {
  if (!speaker) return null;
  // A passage counts when it says something asked about, not only by being the asked person's.
  const says = (p: Passage) =>
    [...p.satisfied].some(
      ([i, how]) => ["literal", "prompt", "kind"].includes(how) && !speakerWord(question, i, speaker),
    );
  const saying = [lead, ...relevant].filter(says);
  const other = saying.map((p) => personOf(p.item, speakers)).find((person) => person !== null && person !== speaker);
  if (other === undefined || other === null) return null;
  const mine = saying.filter((p) => personOf(p.item, speakers) === speaker);
  if (mine.length === 0) return other;
  // The asked person said something asked about too. The answer is still someone else's when, even
  // with the asked person's own words favoured (favourSpeaker), the best passage is theirs: two
  // people talk about the same things, and a question that swaps them finds the asked person's
  // weaker match. (LoCoMo dev: category 5 declined 27 → 41 %, answerable questions −0.6 to −1.2
  // points contained.)
  return personOf(lead.item, speakers) === other ? other : null;
}

/** Whether the question's term `i` is the asked person's name. */
function speakerWord(question: Question, i: number, speaker: string): boolean {
  const word = question.terms[i]?.word ?? "";
  return speaker.toLowerCase().split(/\s+/).includes(word);
}
