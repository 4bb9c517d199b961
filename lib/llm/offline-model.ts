/**
 * The embedded offline model: a deterministic, extractive stand-in for an LLM. It reads the same
 * chat-completions request the engine sends an OpenAI server and answers with tool calls. Forced
 * turns call the forced tool. Under auto it reads what the run retrieved like a careful reader:
 * every sentence is scored against the question (term weights from the bank, porter stems as the
 * search uses them, phrases, dates, amounts and names), and when the best passages cover the
 * question it calls `done`; otherwise it makes one targeted search for what is missing first. The
 * answer leads with the best passage (the newest when memories disagree, naming what it
 * superseded), shaped by the skill's output format, citing exactly the ids it quotes.
 * No randomness, no clock: the same request (and bank statistics) gives the same response.
 */
import { TIER_REGISTRY, type Tier } from "@/lib/reflect/domain";
import { ModelCallError } from "@/lib/reflect/errors";
import type { ChatMessage, ModelPort, ModelRequest, ModelResponse, ToolCall } from "@/lib/reflect/ports";
import { type AnswerShape, answerShape, composeAnswer, favourShape } from "./offline/answer";
import { type OfflineTier, type RetrievedItem, retrievedItems, toolCallsSoFar } from "./offline/conversation";
import { chooseLead } from "./offline/newest";
import { analyzeQuestion, keywordQuery, type Question } from "./offline/question";
import { coverage, type Passage, rankPassages, relevantPassages } from "./offline/relevance";
import { shortAnswer } from "./offline/short-answer";
import { askedSpeaker, favourSpeaker, NOT_MENTIONED, saidBySomeoneElse, speakersOf } from "./offline/speakers";
import { stemsOf, tokenize } from "./offline/text";
import { questionStems, type TermStats, type TermStatsPort, weigh } from "./offline/weights";

export type { TermStats, TermStatsPort } from "./offline/weights";

/** Decision thresholds, kept together so the demo can be tuned in one place. */
export const OFFLINE_TUNING = {
  /** Passages scoring below this share of the best are dropped rather than padded in. */
  relativeScore: 0.5,
  /** The question counts as answered when the best passages satisfy this share of its weight… */
  answeredCoverage: 0.7,
  /** …read over this many of the best passages. */
  answeredPassages: 3,
} as const;

export const NO_ANSWER_TEXT = "I could not find memories that answer this question.";

const DONE = "done";

/** Prior for equally relevant sentences: a fresh summary beats a raw fact that says the same. */
const TIER_PRIOR: Record<Tier, number> = { mental_models: 1.15, observations: 1.05, raw_facts: 1 };

/** The registry's tiers, top to bottom, as the reader uses them (docs/engine.md#tools). */
const TIERS: OfflineTier[] = TIER_REGISTRY.map((t) => ({
  tool: t.tool,
  payloadKey: t.resultKey,
  label: t.label,
  citation: t.citationKey,
  curated: t.id === "mental_models",
  prior: TIER_PRIOR[t.id],
}));

// The ladder's nudges open with "No progress since iteration N"; the goal anchor never says it.
const NUDGE_PATTERN = /\bno progress\b/i;

export interface OfflineModelOptions {
  /** Document frequencies from the bank; without them every subject word weighs the same. */
  termStats?: TermStatsPort;
}

export function createOfflineModel(options: OfflineModelOptions = {}): ModelPort {
  const statsFor = memoizedStats(options.termStats);
  return {
    info: { kind: "offline", name: "offline" },
    async complete(request: ModelRequest): Promise<ModelResponse> {
      if (request.signal?.aborted) throw new ModelCallError("offline model: request aborted", "offline");
      const asked = analyzeQuestion(request.messages.find((m) => m.role === "user")?.content ?? "");
      const question = weigh(asked, await statsFor(questionStems(asked)));
      const decision = decide(request, question);
      const iteration = request.messages.filter((m) => m.role === "assistant").length;
      const toolCall: ToolCall = {
        id: `call_${iteration}_0`,
        type: "function",
        function: { name: decision.tool, arguments: JSON.stringify(decision.args) },
      };
      const output = (decision.note ?? "").length + toolCall.function.arguments.length;
      return {
        content: decision.note,
        toolCalls: [toolCall],
        finishReason: "tool_calls",
        usage: {
          inputTokens: Math.ceil(JSON.stringify({ messages: request.messages, tools: request.tools }).length / 4),
          outputTokens: Math.ceil(output / 4),
        },
      };
    },
  };
}

/** One lookup per question for the life of the model; a failing port means the uniform fallback. */
function memoizedStats(port: TermStatsPort | undefined) {
  const cache = new Map<string, Promise<TermStats | null>>();
  return (stems: string[]): Promise<TermStats | null> => {
    if (!port || stems.length === 0) return Promise.resolve(null);
    const key = stems.join(" ");
    let hit = cache.get(key);
    if (!hit) {
      hit = port.lookup(stems).catch(() => null);
      if (cache.size >= 32) cache.clear();
      cache.set(key, hit);
    }
    return hit;
  };
}

interface Decision {
  tool: string;
  args: Record<string, unknown>;
  /** Text beside the tool call (what a real model "thinks aloud"); the engine's anchor quotes it. */
  note: string | null;
}

function decide(request: ModelRequest, question: Question): Decision {
  const { messages } = request;
  const items = retrievedItems(messages, TIERS);
  // A question with no subject word ("hi") is still searched as asked: a search needs words.
  const query = keywordQuery(question) || asTyped(question);
  const shape = answerShape(messages.find((m) => m.role === "system")?.content ?? "");

  let reading: Reading | undefined;
  const answerNow = () => {
    reading ??= read(question, items);
    return answer(question, reading, shape, items);
  };

  if (request.toolChoice !== "auto") {
    const forced = request.toolChoice.function.name;
    if (forced === DONE) return answerNow();
    return search(forced, query, `Forced ${tierLabel(forced)} search.`);
  }

  const offered = TIERS.filter((t) => request.tools.some((tool) => tool.function.name === t.tool));
  const calls = toolCallsSoFar(messages);
  const used = new Set(calls.map((c) => c.function.name));
  const nextTier = offered.find((t) => !used.has(t.tool));

  if (items.length === 0) {
    // Nothing retrieved yet: the engine sends a `done` back until something is, and ends the run as
    // `no_evidence` itself when the searches run out (docs/engine.md#grounding-citations-and-the-output-guard). So search again with other words
    // or in another tier, never the same search twice; only when every variant is spent, answer.
    // The lowest tier first (where specifics live); after a nudge, the next tier down instead.
    const next = unsearched(question, query, nudged(messages) ? offered : [...offered].reverse(), calls);
    if (!next) return answerNow();
    const missing = missingWords(question, []).map((w) => `"${w}"`);
    const note =
      missing.length > 0
        ? `The memories so far do not mention ${missing.join(", ")}; searching ${next.tier.label} for "${next.query}".`
        : `Nothing found yet; searching ${next.tier.label} for "${next.query}".`;
    return search(next.tier.tool, next.query, note);
  }
  if (lastTurnCalledDone(messages)) {
    // The engine rejected `done` (no evidence yet, or a release miss): dig into a lower tier.
    if (nextTier) return search(nextTier.tool, query, `The answer was rejected; searching ${nextTier.label}.`);
    return answerNow();
  }
  if (nudged(messages)) {
    if (items.length > 0 || !nextTier) return answerNow();
    return search(nextTier.tool, query, `Changing approach: searching ${nextTier.label}.`);
  }

  reading = read(question, items);
  const answered =
    reading.coverage >= OFFLINE_TUNING.answeredCoverage &&
    (question.answerKind === null || reading.best.some((p) => p.answers));
  // A summary is read as a pointer, not as the record: when only mental models answer and they do
  // not state the question's own words (or the date, amount or name it asks for), the lower
  // tiers not searched yet are read before answering.
  // A skill that wants the answer alone, as said, reads it from the record whatever a summary says.
  const unread = [...offered].reverse().find((t) => !used.has(t.tool) && !t.curated);
  const onlySummaries = reading.best.every((p) => p.item.tier.curated);
  if (unread && onlySummaries && (shape === "short" || (answered && summaryOnly(question, reading.best)))) {
    return search(unread.tool, query, `The mental models summarize this without stating it; checking ${unread.label}.`);
  }
  if (answered) return answerNow();

  // Not answered yet: one targeted search for what is missing, in the lowest tier not searched yet.
  const targetedBefore = calls.some((c) => {
    const sent = c.function.name === DONE ? null : searchQuery(c);
    return sent !== null && !sameWords(sent, query);
  });
  const tier = [...offered].reverse().find((t) => !used.has(t.tool)) ?? offered.at(-1);
  const targeted = targetedQuery(question, reading.best);
  if (!targetedBefore && tier && !alreadySearched(calls, tier.tool, targeted)) {
    const missing = missingWords(question, reading.best);
    const note =
      missing.length > 0
        ? `The memories so far do not mention ${missing.map((w) => `"${w}"`).join(", ")}; searching ${tier.label} for it.`
        : `Nothing retrieved so far answers the question; searching ${tier.label}.`;
    return search(tier.tool, targeted, note);
  }
  return answerNow();
}

/** The question's words as typed, for a question whose every word is a stop word or filler. */
function asTyped(question: Question): string {
  return question.text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join(" ");
}

/**
 * The first search not made yet: the whole query, then each of its words alone (heaviest first),
 * each in the lowest tier first.
 */
function unsearched(
  question: Question,
  query: string,
  tiers: OfflineTier[],
  calls: ToolCall[],
): { tier: OfflineTier; query: string } | null {
  const words = question.terms
    .filter((t) => t.word !== "")
    .sort((a, b) => b.weight - a.weight)
    .map((t) => t.word);
  const variants = [...new Set([query, ...(words.length > 1 ? words : [])])];
  for (const variant of variants) {
    for (const tier of tiers) if (!alreadySearched(calls, tier.tool, variant)) return { tier, query: variant };
  }
  return null;
}

function search(tool: string, query: string, note: string): Decision {
  return { tool, args: { reason: note, query }, note };
}

function tierLabel(tool: string): string {
  return TIERS.find((t) => t.tool === tool)?.label ?? tool;
}

// ---------- reading the conversation ----------

function lastTurnCalledDone(messages: ChatMessage[]): boolean {
  const last = messages.findLast((m) => m.role === "assistant");
  return last?.role === "assistant" && (last.tool_calls ?? []).some((c) => c.function.name === DONE);
}

/** Request-scoped system messages come after the conversation: any system message past the first non-system one. */
function nudged(messages: ChatMessage[]): boolean {
  const firstTurn = messages.findIndex((m) => m.role !== "system");
  return messages.some(
    (m, i) => firstTurn >= 0 && i > firstTurn && m.role === "system" && NUDGE_PATTERN.test(m.content),
  );
}

function searchQuery(call: ToolCall): string | null {
  try {
    const args: unknown = JSON.parse(call.function.arguments);
    const query = typeof args === "object" && args !== null ? (args as Record<string, unknown>).query : null;
    return typeof query === "string" ? query : null;
  } catch {
    return null;
  }
}

/** Search queries are OR-ed words: the same words in another order are the same search. */
function sameWords(a: string, b: string): boolean {
  const words = (q: string) => [...new Set(q.toLowerCase().split(/\s+/).filter(Boolean))].sort().join(" ");
  return words(a) === words(b);
}

function alreadySearched(calls: ToolCall[], tool: string, query: string): boolean {
  return (
    query === "" ||
    calls.some((c) => {
      const sent = c.function.name === tool ? searchQuery(c) : null;
      return sent !== null && sameWords(sent, query);
    })
  );
}

// ---------- reading the evidence ----------

interface Reading {
  /** Relevant passages, best first; only from trusted memories when any trusted one is relevant. */
  relevant: Passage[];
  /** The few best relevant passages the "answered?" check reads. */
  best: Passage[];
  coverage: number;
  /** Every trusted passage read, relevant or not, best first. */
  read: Passage[];
}

/**
 * A mental model not known to be fresh only counts when nothing trusted is relevant: a stale
 * summary must not speak over the memories it may be out of date with.
 */
function read(question: Question, items: RetrievedItem[]): Reading {
  const ranked = rankPassages(question, items);
  const relevant = relevantPassages(question, ranked, OFFLINE_TUNING.relativeScore);
  const trusted = relevant.filter((p) => p.item.trusted);
  const usable = trusted.length > 0 ? trusted : relevant;
  const best = trusted.slice(0, OFFLINE_TUNING.answeredPassages);
  return { relevant: usable, best, coverage: coverage(question, best), read: ranked.filter((p) => p.item.trusted) };
}

/**
 * The best passages are all curated summaries, and none of them states on its own every subject
 * word of the question (its text or its model's name) and, when the question asks for a date, an
 * amount or a name, a value of that kind: a summary that touches the words in different places
 * points at the answer without stating it.
 */
function summaryOnly(question: Question, best: Passage[]): boolean {
  if (best.length === 0 || best.some((p) => !p.item.tier.curated)) return false;
  const kind = question.answerKind;
  const states = (p: Passage) =>
    question.terms.every(
      (t, i) => t.role !== "subject" || t.stems.length === 0 || ["literal", "name"].includes(p.satisfied.get(i) ?? ""),
    ) &&
    (kind === null || kind === "reason" || p.entities.some((e) => e.kind === kind));
  return !best.some(states);
}

/** Words of the question none of the best passages satisfies, heaviest first. */
function missingWords(question: Question, best: Passage[]): string[] {
  const covered = new Set(best.flatMap((p) => [...p.satisfied.keys()]));
  return question.terms
    .map((term, i) => ({ term, i }))
    .filter(({ term, i }) => term.word !== "" && !covered.has(i))
    .sort((a, b) => b.term.weight - a.term.weight)
    .map(({ term }) => term.word);
}

/** The missing words plus the question's heaviest subject word, so the search stays on topic; in question order. */
function targetedQuery(question: Question, best: Passage[]): string {
  const missing = missingWords(question, best);
  const anchor = question.terms
    .filter((t) => t.role === "subject" && t.word !== "" && !missing.includes(t.word))
    .sort((a, b) => b.weight - a.weight)[0];
  const words = (withAnchor: boolean) =>
    question.terms
      .filter((t) => t.word !== "" && (missing.includes(t.word) || (withAnchor && t === anchor)))
      .map((t) => t.word)
      .join(" ");
  const anchored = words(true);
  // An anchor that brings back every word of the question would make the search no more targeted.
  return missing.length > 0 && sameWords(anchored, keywordQuery(question)) ? words(false) : anchored;
}

// ---------- the answer ----------

/**
 * The names, numbers and dates the question states as its subject that no memory it read mentions
 * anywhere (text, model name, tags, speaker), as the question wrote them. A verb no memory uses
 * ("owe") is not one: only what the question names is distinctive enough to say it was not found.
 */
function unmetNames(question: Question, items: RetrievedItem[]): string[] {
  const seen = new Set<string>();
  for (const item of items) {
    for (const text of [item.text, item.name ?? "", item.speaker ?? "", ...item.tags]) {
      for (const stem of stemsOf(text)) seen.add(stem);
    }
  }
  const asWritten = new Map(tokenizeWritten(question.text));
  return question.terms
    .filter((t) => t.role === "subject" && t.named && t.word !== "" && t.stems.length > 0)
    .filter((t) => !t.stems.some((s) => seen.has(s)))
    .map((t) => asWritten.get(t.word) ?? t.word);
}

/** Each folded word of the text with its spelling as written ("tomas" → "Tomás"). */
function tokenizeWritten(text: string): [string, string][] {
  return [...text.matchAll(/[\p{L}\p{N}]+/gu)].flatMap((m) => {
    const folded = tokenize(m[0])[0]?.word;
    return folded ? [[folded, m[0]] as [string, string]] : [];
  });
}

/** Records quoted behind an observation that leads a short answer, at most this many. */
const MAX_BACKING = 2;

/**
 * The turns an observation leading a short answer was made from, when the run read them: the
 * answer's first quotes are then what was said, not only the summary of it (each turn's best
 * sentence). Nothing for a lead that is not an observation.
 */
function saidBehind(lead: Passage, read: readonly Passage[]): Passage[] {
  const out: Passage[] = [];
  for (const id of lead.item.sources) {
    const said = read.find((p) => p.item.id === id && p.item.tier.citation === "memory_ids");
    if (said) out.push(said);
    if (out.length >= MAX_BACKING) break;
  }
  return out;
}

function answer(question: Question, reading: Reading, shape: AnswerShape, items: RetrievedItem[]): Decision {
  const speaker = askedSpeaker(question, items);
  const speakers = speakersOf(items);
  // The answer alone, as said: from the records when any record is relevant, not a summary's wording.
  const records = shape === "short" ? reading.relevant.filter((p) => !p.item.tier.curated) : [];
  const pool = records.length > 0 ? records : reading.relevant;
  const relevant = favourSpeaker(speaker, favourShape(shape, pool), speakers);
  const lead = chooseLead(question, relevant, reading.read);
  const citations = { memory_ids: [] as string[], observation_ids: [] as string[], mental_model_ids: [] as string[] };
  if (!lead) return { tool: DONE, args: { answer: NO_ANSWER_TEXT, ...citations }, note: null };
  const other = saidBySomeoneElse(question, speaker, lead.lead, relevant, speakers);
  if (other && speaker) {
    // Quoting the other person's words would attribute them to the one asked about: decline, cite
    // nothing. The decline says only what was not found: "it was someone else who said it" would be
    // a claim, and an uncited claim is ungrounded (lib/reflect/declines.ts).
    const none = `There is no record of ${speaker} saying this.`;
    const text = shape === "short" ? `${NOT_MENTIONED}\n${none}` : none;
    return { tool: DONE, args: { answer: text, ...citations }, note: null };
  }
  const short = shape === "short" ? shortAnswer(question, lead.lead, relevant) : null;
  const backing = shape === "short" ? saidBehind(lead.lead, reading.read) : [];
  const composed = composeAnswer(shape, lead, [...backing, ...relevant.filter((p) => !backing.includes(p))], short);
  for (const { item } of composed.quoted) {
    const list = citations[item.tier.citation];
    if (!list.includes(item.id)) list.push(item.id);
  }
  // The answer alone, as said (conversation QA), keeps its first line for the short answer.
  const unmet = shape === "short" ? [] : unmetNames(question, items);
  if (unmet.length > 0) {
    // The question is about something no memory it read mentions ("Japan"): say so before what it
    // did find, rather than answer confidently about something else (issue 27).
    const names = unmet.map((w) => `"${w}"`).join(" or ");
    const text = `${NO_ANSWER_TEXT.replace(/\.$/, "")}: nothing I read mentions ${names}. What the memories say on the rest of the question:\n\n${composed.answer}`;
    return { tool: DONE, args: { answer: text, ...citations }, note: null };
  }
  return { tool: DONE, args: { answer: composed.answer, ...citations }, note: null };
}
