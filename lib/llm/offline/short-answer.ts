/**
 * The short answer a question asks for, taken from the passage that answers it: a date for
 * "when" (what the memory's "yesterday" or "last week" meant on the day it was said), a number for
 * "how many" (stated, or counted over the distinct occasions the memories record), a name for
 * "who", a reason for "why", yes or no for a yes/no question, and otherwise the words of the
 * passage that answer "what/which/where/how": the part of the sentence that is not the question
 * said back. Extractive: every word comes from a memory, and the memories quoted below it are
 * what it is cited by.
 */
import { formatDay, resolveRelativeTimes, writtenDates } from "@/lib/reflect/dates";
import type { Question } from "./question";
import type { Passage } from "./relevance";
import { STOP_WORDS, tokenize } from "./text";

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  once: 1,
  twice: 2,
};

/** Words a speaker opens a turn with that answer nothing ("Yeah, …", "Wow, …", "Thanks, …"). */
const OPENERS = new Set(
  `yeah yep yes yup no nope oh wow whoa hey hi hello haha lol thanks thank totally absolutely sure well ok okay
  awesome great cool nice aw aww definitely honestly actually really so um uh hmm right indeed sounds`.split(/\s+/),
);
/** Words that only carry the sentence ("I've been", "it's", "we"): trimmed from a phrase's ends. */
const CARRIERS = new Set(
  `i im ive id ill me my mine we were weve our you youre your it its this that these those there theres he she
  they them his her their just also been being be is are was am have has had do did does get got gonna wanna
  kinda lot lots really very so much some any one thing things stuff`.split(/\s+/),
);

const YES_NO = /^(?:is|are|was|were|do|does|did|would|could|can|will|has|have|had|should|might)\b/i;
const CLAUSE_BREAK = /\s*(?:[,;:!?()"“”]|\.(?:\s|$)|\s[—–-]\s|—|–)\s*/;
const MAX_PHRASE_WORDS = 8;

/** The words of a clause, as written, with what the tokenizer reads of each. */
function wordsOf(clause: string): { raw: string; word: string; stem: string }[] {
  return clause
    .split(/\s+/)
    .filter(Boolean)
    .map((raw) => {
      const token = tokenize(raw)[0];
      return {
        raw: raw.replace(/^[^\p{L}\p{N}$€£]+|[^\p{L}\p{N}%]+$/gu, ""),
        word: token?.word ?? "",
        stem: token?.stem ?? "",
      };
    })
    .filter((w) => w.raw !== "");
}

const questionStems = (question: Question) => new Set(question.terms.flatMap((t) => t.stems));

/** The sentence of a passage that holds the most question words (the first when none does). */
function answeringSentence(question: Question, passage: Passage): string {
  const stems = questionStems(question);
  const parts = passage.text
    .replace(/\s*\[shares ([^\]]+)\]/g, ". $1.")
    .split(/(?<=[.!?])\s+/)
    .filter((s) => s.trim());
  let best = parts[0] ?? passage.text;
  let bestHits = -1;
  for (const s of parts) {
    const hits = tokenize(s).filter((t) => stems.has(t.stem)).length;
    if (hits > bestHits) {
      best = s;
      bestHits = hits;
    }
  }
  return best;
}

/** A phrase with the question's own words, carriers and openers trimmed from its ends. */
function trimPhrase(words: { raw: string; word: string; stem: string }[], asked: Set<string>) {
  const idle = (w: { word: string; stem: string }) =>
    w.word === "" || asked.has(w.stem) || STOP_WORDS.has(w.word) || CARRIERS.has(w.word) || OPENERS.has(w.word);
  let start = 0;
  let end = words.length;
  while (start < end && idle(words[start]!)) start++;
  while (end > start && idle(words[end - 1]!)) end--;
  return words.slice(start, end);
}

/**
 * The part of the answering sentence that is not the question said back: the clause holding the
 * question's words, trimmed of them; when that clause is only the question (an echo), the next
 * clause, which is where a turn usually puts the answer.
 */
function phrase(question: Question, passage: Passage): string | null {
  const asked = questionStems(question);
  const clauses = answeringSentence(question, passage)
    .split(CLAUSE_BREAK)
    .filter((c) => c.trim());
  const scored = clauses.map((c, i) => {
    const words = wordsOf(c);
    return { i, words, hits: words.filter((w) => asked.has(w.stem)).length, rest: trimPhrase(words, asked) };
  });
  const best = [...scored].sort((a, b) => b.hits - a.hits || a.i - b.i)[0];
  if (!best) return null;
  const pick = best.rest.length > 0 ? best : scored.find((c) => c.i > best.i && c.rest.length > 0);
  const words = answerSpan((pick ?? best).rest, asked).slice(0, MAX_PHRASE_WORDS);
  return words.length > 0 ? words.map((w) => w.raw).join(" ") : null;
}

/** Words of a time expression: what a "what" answer is not ("last Saturday", "two weeks ago"). */
const TIME_WORDS = new Set(
  `last next ago yesterday today tonight tomorrow week weeks weekend month months year years day days recently lately
  monday tuesday wednesday thursday friday saturday sunday morning evening night`.split(/\s+/),
);

/**
 * Inside a clause that says the question back, the answer follows the echoed words ("I ran a
 * charity race for mental health last Saturday" → "mental health"): the run of words after the
 * last question word, without a trailing time expression; the longest run when nothing follows.
 */
function answerSpan(words: { raw: string; word: string; stem: string }[], asked: Set<string>) {
  const runs: (typeof words)[] = [[]];
  for (const w of words) {
    if (asked.has(w.stem)) runs.push([]);
    else runs.at(-1)!.push(w);
  }
  const trimmed = runs.map((r) => {
    const kept = trimPhrase(r, asked);
    let end = kept.length;
    while (end > 0 && (TIME_WORDS.has(kept[end - 1]!.word) || /^\d+$/.test(kept[end - 1]!.word))) end--;
    return trimPhrase(kept.slice(0, end), asked);
  });
  const after = trimmed.at(-1)!;
  if (after.length > 0 && runs.length > 1) return after;
  return trimmed.reduce((a, b) => (b.length > a.length ? b : a), [] as typeof words);
}

/** "when": the day a relative expression meant, a date the memory writes, or the day it records. */
function when(passage: Passage): string | null {
  const said = passage.item.occurredAt ?? passage.item.date;
  if (said) {
    const resolved = resolveRelativeTimes(passage.text, said)[0];
    if (resolved) return resolved.text;
  }
  const written = writtenDates(passage.text)[0];
  if (written) {
    if (written.day !== null && written.month !== null)
      return formatDay(new Date(Date.UTC(written.year, written.month - 1, written.day)).toISOString());
    return passage.text.match(/\b(?:[A-Z][a-z]+\s+)?\d{4}\b/)?.[0] ?? String(written.year);
  }
  return said ? formatDay(said) : null;
}

/** A number the passage states, with the word it counts ("4 years", "three kids" → "3 kids"). */
function statedNumber(passage: Passage): string | null {
  const words = wordsOf(answeringSentenceAny(passage));
  for (const [i, w] of words.entries()) {
    const n = /^\d+(?:\.\d+)?$/.test(w.raw)
      ? w.raw
      : NUMBER_WORDS[w.word] !== undefined
        ? String(NUMBER_WORDS[w.word])
        : null;
    if (n === null) continue;
    const unit = words[i + 1];
    return unit && /^[a-z]+$/.test(unit.word) && !STOP_WORDS.has(unit.word) ? `${n} ${unit.raw}` : n;
  }
  return null;
}
const answeringSentenceAny = (p: Passage) => p.text;

/** "how many": a number stated; otherwise the distinct occasions (sessions or days) the passages record. */
function howMany(passage: Passage, relevant: readonly Passage[]): string {
  const stated = statedNumber(passage);
  if (stated) return stated;
  const occasions = new Set(relevant.map((p) => p.item.sessionId ?? p.item.date?.slice(0, 10) ?? p.item.id));
  return String(Math.max(1, occasions.size));
}

function who(question: Question, passage: Passage): string | null {
  const asked = new Set(question.entities.filter((e) => e.kind === "name").map((e) => possessiveless(e.key)));
  const names = passage.entities
    .filter((e) => e.kind === "name" && !asked.has(possessiveless(e.key)))
    .map((e) => possessiveless(e.text));
  return names[0] ?? null;
}

const possessiveless = (name: string) => name.replace(/['’]s$/i, "");

const REASON_CLAUSE = /\b(?:because|since|so that|as|to)\b\s+([^.;!?]+)/i;

function why(question: Question, passage: Passage): string | null {
  const sentence = answeringSentence(question, passage);
  const reason = sentence.match(REASON_CLAUSE)?.[1];
  return reason
    ? wordsOf(reason)
        .slice(0, MAX_PHRASE_WORDS)
        .map((w) => w.raw)
        .join(" ")
    : phrase(question, passage);
}

const NEGATION = /\b(?:not|no|never|n't|nope|neither|nor)\b/i;

/**
 * A question that asks for several things ("What books has Ana read?", "Which sports does Ben
 * play?"): a what/which question whose thing asked about is plural.
 */
export function asksForSeveral(question: Question): boolean {
  if (!/^\s*(?:what|which)\b/i.test(question.text)) return false;
  const head = question.terms.find((t) => t.head && t.role === "subject");
  return head !== undefined && /[^su]s$/.test(head.word) && head.stems[0] !== head.word;
}

/** Distinct occasions' answers, in the order the passages rank: one per session (or day). */
function several(question: Question, lead: Passage, relevant: readonly Passage[]): string | null {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const p of [lead, ...relevant]) {
    const occasion = p.item.sessionId ?? p.item.date?.slice(0, 10) ?? p.item.id;
    if (seen.has(occasion)) continue;
    seen.add(occasion);
    const part = phrase(question, p);
    if (part && !parts.some((x) => x.toLowerCase() === part.toLowerCase())) parts.push(part);
    if (parts.length >= MAX_PARTS) break;
  }
  return parts.length > 0 ? parts.join(", ") : null;
}
const MAX_PARTS = 3;

/** The short answer for a question from the passage that answers it (and the others relevant to it). */
export function shortAnswer(question: Question, lead: Passage, relevant: readonly Passage[]): string {
  const text = question.text.trim();
  if (YES_NO.test(text)) return NEGATION.test(answeringSentence(question, lead)) ? "No" : "Yes";
  if (question.answerKind === null && asksForSeveral(question))
    return (several(question, lead, relevant) ?? lead.text).trim();
  const answer =
    question.answerKind === "date"
      ? when(lead)
      : question.answerKind === "number" || question.answerKind === "money"
        ? howMany(lead, relevant)
        : question.answerKind === "name"
          ? who(question, lead)
          : question.answerKind === "reason"
            ? why(question, lead)
            : phrase(question, lead);
  return (answer ?? lead.text).trim();
}
