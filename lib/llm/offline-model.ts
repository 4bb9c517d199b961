/**
 * The embedded offline model: a deterministic, extractive stand-in for an LLM. It reads the same
 * chat-completions request the engine sends an OpenAI server and answers with tool calls:
 * forced turns call the forced tool; auto turns search the next unused tier until retrieved text
 * overlaps the question, then call `done` with an answer quoting retrieved sentences and citing
 * exactly the ids it quotes. No randomness, no clock: the same request gives the same response.
 */
import { emptyCitations, perTier, TIER_INFO, TIER_REGISTRY, TIERS, type Tier, tierForTool } from "@/lib/reflect/domain";
import { ModelCallError } from "@/lib/reflect/errors";
import type { ChatMessage, ModelPort, ModelRequest, ModelResponse, ToolCall } from "@/lib/reflect/ports";
import { keywordQuery, keywords, matchedKeywords } from "./offline-text";

/** Tuning knobs, kept together so the demo can be tuned in one place. */
export const OFFLINE_TUNING = {
  /** An item is relevant when it contains at least this share of the question's keywords (min 1). */
  overlapRatio: 0.34,
  /** Bullets in a `done` answer. */
  maxQuotes: 4,
  /** Bullets taken from any one retrieved item, so an answer draws on several memories. */
  maxQuotesPerItem: 2,
  /** Sentences shorter than this are fragments (headings, list labels) and never quoted. */
  minSentenceChars: 12,
  /** A fact or observation up to this long is quoted whole: its second sentence is often the point. */
  wholeItemChars: 320,
  /** A quote must match at least this share of the best quote's keywords, so stragglers stay out. */
  relativeScore: 0.5,
} as const;

export const NO_ANSWER_TEXT = "I could not find memories that answer this question.";

const DONE = "done";

/** When scores tie, concrete lower-tier facts win over summaries (a stale summary must not hide a newer fact). */
const TIER_PREFERENCE = perTier((t) => TIERS.length - 1 - TIERS.indexOf(t.id));

// The ladder's nudges open with "No progress since step N"; the goal anchor never says it.
const NUDGE_PATTERN = /\bno progress\b/i;

interface RetrievedItem {
  tier: Tier;
  id: string;
  text: string;
  /** Order of retrieval across the conversation; the search's own ranking breaks ties. */
  order: number;
  /** False for a mental model not known to be fresh: it needs lower-tier evidence behind it. */
  trusted: boolean;
}

export function createOfflineModel(): ModelPort {
  return {
    info: { kind: "offline", name: "offline" },
    async complete(request: ModelRequest): Promise<ModelResponse> {
      if (request.signal?.aborted) throw new ModelCallError("offline model: request aborted", "offline");
      const decision = decide(request);
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

interface Decision {
  tool: string;
  args: Record<string, unknown>;
  /** Text beside the tool call (what a real model "thinks aloud"); the engine's anchor quotes it. */
  note: string | null;
}

function decide(request: ModelRequest): Decision {
  const question = request.messages.find((m) => m.role === "user")?.content ?? "";
  const words = keywords(question);
  const query = keywordQuery(question);
  const items = retrievedItems(request.messages);

  if (request.toolChoice !== "auto") {
    const forced = request.toolChoice.function.name;
    if (forced === DONE) return done(words, items);
    return search(forced, query, `Forced ${tierLabel(forced)} search.`);
  }

  const offered = new Set(request.tools.map((t) => t.function.name));
  const used = new Set(toolCallsSoFar(request.messages).map((c) => c.function.name));
  const nextTier = TIER_REGISTRY.find((t) => offered.has(t.tool) && !used.has(t.tool));
  const relevant = relevantItems(words, items);

  if (lastTurnCalledDone(request.messages)) {
    // The engine rejected `done` (no evidence yet, or a release miss): dig into a lower tier.
    if (nextTier) return search(nextTier.tool, query, `The answer was rejected; searching ${nextTier.label}.`);
    return done(words, items);
  }
  if (nudged(request.messages)) {
    if (items.length > 0 || !nextTier) return done(words, items);
    return search(nextTier.tool, query, `Changing approach: searching ${nextTier.label}.`);
  }
  if (relevant.some((item) => item.trusted) || !nextTier) return done(words, items);
  return search(nextTier.tool, query, `Nothing retrieved so far answers the question; searching ${nextTier.label}.`);
}

function search(tool: string, query: string, note: string): Decision {
  return { tool, args: { reason: note, query }, note };
}

function tierLabel(tool: string): string {
  return TIER_REGISTRY.find((t) => t.tool === tool)?.label ?? tool;
}

// ---------- reading the conversation ----------

function toolCallsSoFar(messages: ChatMessage[]): ToolCall[] {
  return messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []) : []));
}

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

/** Every item any search returned, in retrieval order, deduplicated by tier and id. */
function retrievedItems(messages: ChatMessage[]): RetrievedItem[] {
  const toolByCallId = new Map(toolCallsSoFar(messages).map((c) => [c.id, c.function.name]));
  const items: RetrievedItem[] = [];
  const seen = new Set<string>();
  for (const message of messages) {
    if (message.role !== "tool") continue;
    const tier = tierForTool(toolByCallId.get(message.tool_call_id) ?? "");
    for (const hit of parseTierHits(message.content, tier)) {
      const key = `${hit.tier}:${hit.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      items.push({ ...hit, order: items.length });
    }
  }
  return items;
}

function parseTierHits(content: string, expected: Tier | null): Omit<RetrievedItem, "order">[] {
  const keys = expected ? [expected] : TIERS;
  return keys.flatMap((tier) =>
    tierEntries(content, tier).flatMap((entry) => {
      if (typeof entry !== "object" || entry === null) return [];
      const { id, text, content: body, is_stale } = entry as Record<string, unknown>;
      const value = tier === "mental_models" ? body : text;
      const trusted = tier !== "mental_models" || is_stale === false;
      return typeof id === "string" && typeof value === "string" ? [{ tier, id, text: value, trusted }] : [];
    }),
  );
}

/** The tier's array from a tool result; from a result cut at the size cap, its complete entries. */
function tierEntries(content: string, tier: Tier): unknown[] {
  try {
    const payload: unknown = JSON.parse(content);
    const key = TIER_INFO[tier].resultKey;
    const list = typeof payload === "object" && payload !== null ? (payload as Record<string, unknown>)[key] : null;
    return Array.isArray(list) ? list : [];
  } catch {
    return salvageEntries(content, tier);
  }
}

/** Scans `"<result key>":[{…},{…},…` string-aware and keeps every entry that closed before the cut. */
function salvageEntries(content: string, tier: Tier): unknown[] {
  const opening = `"${TIER_INFO[tier].resultKey}":[`;
  const start = content.indexOf(opening);
  if (start < 0) return [];
  const entries: unknown[] = [];
  let depth = 0;
  let inString = false;
  let entryStart = -1;
  for (let i = start + opening.length; i < content.length; i++) {
    const ch = content[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{") {
      if (depth++ === 0) entryStart = i;
    } else if (ch === "}" && --depth === 0) {
      try {
        entries.push(JSON.parse(content.slice(entryStart, i + 1)));
      } catch {
        break; // Not a JSON tool result after all.
      }
    } else if (ch === "]" && depth === 0) break;
  }
  return entries;
}

// ---------- relevance and the extractive answer ----------

function requiredOverlap(keywordCount: number): number {
  return Math.max(1, Math.ceil(OFFLINE_TUNING.overlapRatio * keywordCount));
}

/**
 * Items containing enough of the question's keywords to be worth quoting. A stale mental model
 * only counts when nothing trusted is relevant (the summary may hide newer facts).
 */
function relevantItems(words: string[], items: RetrievedItem[]): RetrievedItem[] {
  if (words.length === 0) return [];
  const needed = requiredOverlap(words.length);
  const relevant = items.filter((item) => matchedKeywords(words, item.text).length >= needed);
  const trusted = relevant.filter((item) => item.trusted);
  return trusted.length > 0 ? trusted : relevant;
}

interface Quote {
  item: RetrievedItem;
  sentence: string;
  score: number;
}

function done(words: string[], items: RetrievedItem[]): Decision {
  const quotes = pickQuotes(words, relevantItems(words, items));
  const citations = emptyCitations();
  for (const { item } of quotes) {
    const list = citations[TIER_INFO[item.tier].citationKey];
    if (!list.includes(item.id)) list.push(item.id);
  }
  return { tool: DONE, args: { answer: composeAnswer(quotes), ...citations }, note: null };
}

function pickQuotes(words: string[], relevant: RetrievedItem[]): Quote[] {
  const candidates: Quote[] = relevant.flatMap((item) =>
    quoteUnits(item).map((sentence) => ({ item, sentence, score: matchedKeywords(words, sentence).length })),
  );
  candidates.sort(
    (a, b) =>
      b.score - a.score || TIER_PREFERENCE[a.item.tier] - TIER_PREFERENCE[b.item.tier] || a.item.order - b.item.order,
  );
  const floor = Math.max(1, Math.ceil((candidates[0]?.score ?? 0) * OFFLINE_TUNING.relativeScore));
  const picked: Quote[] = [];
  const seenSentences = new Set<string>();
  for (const quote of candidates) {
    if (picked.length >= OFFLINE_TUNING.maxQuotes) break;
    const normalized = quote.sentence.toLowerCase();
    const fromItem = picked.filter((p) => p.item === quote.item).length;
    if (quote.score < floor || seenSentences.has(normalized) || fromItem >= OFFLINE_TUNING.maxQuotesPerItem) continue;
    seenSentences.add(normalized);
    picked.push(quote);
  }
  return picked;
}

/** What can be quoted from an item: a short fact or observation whole, anything longer by sentence. */
function quoteUnits(item: RetrievedItem): string[] {
  const text = item.text.replace(/\s+/g, " ").trim();
  if (item.tier !== "mental_models" && text.length <= OFFLINE_TUNING.wholeItemChars) return [text];
  return sentences(item.text);
}

/** Sentences of a memory's text, with markdown list and heading markers removed. */
export function sentences(text: string): string[] {
  return text
    .split(/\n+/)
    .map((line) => line.replace(/^\s*(?:[-*+]|#{1,6}|\d+[.)])\s+/, "").trim())
    .flatMap((line) => line.split(/(?<=[.!?])\s+(?=[A-Z0-9"'“(])/))
    .map((s) => s.trim())
    .filter((s) => s.length >= OFFLINE_TUNING.minSentenceChars);
}

function composeAnswer(quotes: Quote[]): string {
  if (quotes.length === 0) return NO_ANSWER_TEXT;
  const counts = TIER_REGISTRY.map(({ id: tier, label }) => {
    const n = new Set(quotes.filter((q) => q.item.tier === tier).map((q) => q.item.id)).size;
    return n === 0 ? null : `${n} ${n === 1 ? singular(label) : label}`;
  }).filter((c): c is string => c !== null);
  const lead = `Based on ${joinWithAnd(counts)}, the memories say:`;
  const bullets = quotes.map((q) => `- "${q.sentence}" [${q.item.id}]`);
  return [lead, "", ...bullets].join("\n");
}

function singular(label: string): string {
  return label.replace(/s$/, "");
}

function joinWithAnd(parts: string[]): string {
  if (parts.length <= 1) return parts.join("");
  return `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}
