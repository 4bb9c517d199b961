/**
 * Relevance: every sentence of every retrieved memory scored against the question. A sentence
 * earns each question term it contains (weighted by rarity in the bank), a term its memory's name
 * or tags or its neighbouring sentence supply (for less), a bonus for the question's word pairs in
 * order, and loses most of its score when the question asks for a date, an amount, a name or a
 * reason it does not state. A tier prior breaks near-ties: a fresh mental model before an
 * observation before a raw fact, a stale model last.
 */
import { bareMonths, isoMatches, withoutDates, writtenDates } from "@/lib/reflect/dates";
import type { RetrievedItem } from "./conversation";
import { type Entity, entities, hasKind } from "./entities";
import type { AnswerKind, Question } from "./question";
import { oneLine, outline, sentences, type Token, tokenize } from "./text";

export const RELEVANCE_TUNING = {
  /** How much a term counts when the sentence states it: by its own word, or by an entity of its kind. */
  literal: 1,
  byKind: 0.9,
  /** …when only the mental model's name or the line a sub-bullet sits under carries it. */
  byName: 0.8,
  /** …when only the raw fact's date answers "when" (the fact records an event of that day). */
  byDate: 0.6,
  /** …when only the memory's tags carry it (a curated label of what the memory is about). */
  byTag: 0.8,
  /** …when only a neighbouring sentence that is quoted along with it carries it. */
  byNeighbour: 0.6,
  /** Share of a word pair's weight added when the pair stands in order, at most one word apart. */
  phrase: 0.3,
  /** Multiplier for a sentence that lacks what the question asks for (a date for "when"…). */
  missingAnswer: 0.45,
  /** Multiplier for a plan or action item when the question asks what happened. */
  planForPast: 0.8,
  /** Multiplier for a mental model that is not known to be fresh. */
  stale: 0.75,
  /** Words beyond which a sentence starts paying for its length (long sentences match by chance). */
  lengthPivot: 25,
  lengthSlope: 0.25,
  /** A memory or line up to this long is quoted whole: its other sentence is often the point. */
  wholeChars: 320,
  /** A sentence is relevant when it states the question's heaviest subject word or this share of the subject weight. */
  minSubjectCoverage: 0.5,
  /** Shorter sentences are fragments (headings, list labels) and never quoted. */
  minSentenceChars: 12,
  /** …when only the turn it replies to (the one before it in its conversation) carries it. */
  byPrompt: 0.6,
  /** Multiplier for a turn that only asks (ends with "?"): it asks what another turn answers. */
  askingTurn: 0.6,
} as const;

/** How a term was satisfied in a passage; the factor is what it earned. */
export type Satisfaction = "literal" | "kind" | "date" | "name" | "tag" | "neighbour" | "prompt";

export interface Passage {
  item: RetrievedItem;
  /** The text quoted: a short memory or model line whole, otherwise the sentence. */
  text: string;
  score: number;
  /** Term index → how the passage satisfies it. */
  satisfied: Map<number, Satisfaction>;
  /** Share of the subject and answer weight the passage satisfies. */
  subjectCoverage: number;
  entities: Entity[];
  /** Whether it states what the question asks for (always true when the question asks for no kind). */
  answers: boolean;
}

const FACTOR: Record<Satisfaction, number> = {
  literal: RELEVANCE_TUNING.literal,
  kind: RELEVANCE_TUNING.byKind,
  date: RELEVANCE_TUNING.byDate,
  name: RELEVANCE_TUNING.byName,
  tag: RELEVANCE_TUNING.byTag,
  neighbour: RELEVANCE_TUNING.byNeighbour,
  prompt: RELEVANCE_TUNING.byPrompt,
};

const MONTH_NAMES = new Set(
  "january february march april may june july august september october november december".split(" "),
);

const PLAN = /\baction item\b|\bwill\b|\bplans? to\b|\bgoing to\b/i;

const REASON =
  /\b(?:because|so that|due to|reasons?|why|caused|causes?|traced?|led to|to give|to protect|in order to)\b/i;

interface Sentence {
  text: string;
  tokens: Token[];
  stems: Set<string>;
  entities: Entity[];
}

/**
 * Sentences and memories read before, by text: a run reads the same memories call after call and
 * the bank's memories come back run after run. Bounded, and pure functions of the text, so answers
 * stay deterministic.
 */
const READ = new Map<string, Sentence>();
const READ_LIMIT = 20_000;

function readSentence(text: string): Sentence {
  const known = READ.get(text);
  if (known) return known;
  const tokens = tokenize(text);
  const sentence = { text, tokens, stems: new Set(tokens.map((t) => t.stem)), entities: entities(text) };
  if (READ.size >= READ_LIMIT) READ.clear();
  READ.set(text, sentence);
  return sentence;
}

const stemSet = (text: string) => readSentence(text).stems;

function holdsKind(s: Pick<Sentence, "text" | "entities">, kind: AnswerKind): boolean {
  return kind === "reason" ? REASON.test(s.text) : hasKind(s.entities, kind);
}

interface Unit {
  text: string;
  sentences: Sentence[];
  /** Stems of the line a mental model's sub-bullet sits under ("Acme Logistics" for "Converted October 28"). */
  parentStems: Set<string>;
}

const UNITS = new Map<string, Unit[]>();

/** Quotable units of a memory: a mental model by line, anything else whole; each with its sentences. */
function units(item: RetrievedItem): Unit[] {
  const key = `${item.tier.curated ? "m" : "t"}${item.text}`;
  const known = UNITS.get(key);
  if (known) return known;
  const min = RELEVANCE_TUNING.minSentenceChars;
  const blocks = item.tier.curated ? outline(item.text) : [{ text: oneLine(item.text), parent: null }];
  const read = blocks
    .map((block) => ({
      text: block.text,
      sentences: sentences(block.text, min).map(readSentence),
      parentStems: block.parent ? stemSet(block.parent) : new Set<string>(),
    }))
    .filter((u) => u.sentences.length > 0);
  if (UNITS.size >= READ_LIMIT) UNITS.clear();
  UNITS.set(key, read);
  return read;
}

function phraseBonus(question: Question, s: Sentence): number {
  let bonus = 0;
  for (const [a, b] of question.phrases) {
    const ta = question.terms[a];
    const tb = question.terms[b];
    if (!ta || !tb) continue;
    const at = s.tokens.filter((t) => ta.stems.includes(t.stem)).map((t) => t.position);
    const bt = s.tokens.filter((t) => tb.stems.includes(t.stem)).map((t) => t.position);
    if (at.some((p) => bt.some((q) => q - p >= 1 && q - p <= 2))) {
      bonus += RELEVANCE_TUNING.phrase * (ta.weight + tb.weight);
    }
  }
  return bonus;
}

function lengthNorm(s: Sentence): number {
  const { lengthPivot, lengthSlope } = RELEVANCE_TUNING;
  return 1 / (1 + lengthSlope * Math.max(0, s.tokens.length / lengthPivot - 1));
}

/** Ranks every sentence of every item; returns one passage per quotable unit, best first. */
/**
 * The retrieved question each turn answers: the turn right before it in the same session, by
 * someone else, when that turn asks something. A reply to a statement is a reaction, not an answer.
 */
function promptsOf(items: readonly RetrievedItem[]): Map<RetrievedItem, RetrievedItem> {
  const at = new Map<string, RetrievedItem>();
  for (const item of items)
    if (item.sessionId !== null && item.position !== null) at.set(`${item.sessionId}#${item.position}`, item);
  const out = new Map<RetrievedItem, RetrievedItem>();
  for (const item of items) {
    if (item.sessionId === null || item.position === null) continue;
    const before = at.get(`${item.sessionId}#${item.position - 1}`);
    if (before && before.speaker !== item.speaker && before.text.includes("?")) out.set(item, before);
  }
  return out;
}

const ASKS_ONLY = /\?\s*(?:\[shares [^\]]*\])?\s*$/;

export function rankPassages(question: Question, items: readonly RetrievedItem[]): Passage[] {
  const prompts = promptsOf(items);
  const subjectWeight = question.terms.reduce((sum, t) => sum + (t.role === "frame" ? 0 : t.weight), 0);
  // The day of a date the question states ("17" of "November 17") is only stated by that date:
  // "Done September 17" says nothing about November 17.
  const askedDates = question.entities.filter((e) => e.kind === "date");
  const askedDays = new Set(askedDates.flatMap((e) => tokenize(e.text).map((t) => t.word)));
  const dayOfAskedDate = (term: Question["terms"][number]) => /^\d{1,2}$/.test(term.word) && askedDays.has(term.word);
  // A date the question states ("on 13 October 2023", "in July") is met by a memory of that time:
  // its words are satisfied by the memory's own date, which a conversation's turns rarely repeat.
  const statedDates = writtenDates(question.text);
  const statedMonths = bareMonths(question.text);
  const restWords = new Set(tokenize(withoutDates(question.text)).map((t) => t.word));
  const dateWords = new Set(
    tokenize(question.text)
      .map((t) => t.word)
      .filter((w) => !restWords.has(w) || (statedMonths.length > 0 && MONTH_NAMES.has(w))),
  );
  const ofStatedTime = (occurredAt: string | null) =>
    occurredAt !== null &&
    (statedDates.some((d) => isoMatches(occurredAt, d)) ||
      (statedDates.length === 0 && statedMonths.includes(new Date(occurredAt).getUTCMonth() + 1)));
  const statesAskedDate = (s: Sentence) =>
    s.entities.some((e) => e.kind === "date" && askedDates.some((d) => d.key === e.key || e.key.endsWith(`-${d.key}`)));
  const passages: Passage[] = [];

  for (const item of items) {
    const tagStems = new Set(item.tags.flatMap((tag) => [...stemSet(tag)]));
    const itemName = item.name ? stemSet(item.name) : new Set<string>();
    // A tier's prior speaks for a summary about the question: a mental model whose name names none
    // of it is a passing mention, like any raw fact.
    const onTopic = !item.tier.curated || question.terms.some((t) => t.stems.some((stem) => itemName.has(stem)));
    const prior = (onTopic ? item.tier.prior : 1) * (item.trusted ? 1 : RELEVANCE_TUNING.stale);
    for (const unit of units(item)) {
      const prompt = prompts.get(item);
      // A turn is about its speaker: "Ana" in the question is met by what Ana said.
      const named = item.speaker ? new Set([...itemName, ...stemSet(item.speaker)]) : itemName;
      const context: Context = {
        nameStems: unit.parentStems.size > 0 ? new Set([...named, ...unit.parentStems]) : named,
        tagStems,
        occurredAt: item.occurredAt,
        promptStems: prompt ? stemSet(oneLine(prompt.text)) : null,
      };
      const asking = item.sessionId !== null && ASKS_ONLY.test(unit.text) ? RELEVANCE_TUNING.askingTurn : 1;
      const whole = unit.text.length <= RELEVANCE_TUNING.wholeChars;
      const unitSentence = whole ? readSentence(unit.text) : null;
      let best: Passage | null = null;
      for (const [i, s] of unit.sentences.entries()) {
        const neighbours = whole ? unit.sentences.filter((_, j) => j !== i) : [];
        const satisfied = new Map<number, Satisfaction>();
        question.terms.forEach((term, index) => {
          const how = satisfaction(term, s, neighbours, context);
          if (how && !(how === "literal" && dayOfAskedDate(term) && !statesAskedDate(s))) satisfied.set(index, how);
          else if (!how && dateWords.has(term.word) && ofStatedTime(item.occurredAt)) satisfied.set(index, "date");
        });
        let raw = 0;
        let subject = 0;
        for (const [index, how] of satisfied) {
          const term = question.terms[index];
          if (!term) continue;
          raw += term.weight * FACTOR[how];
          if (term.role !== "frame") subject += term.weight;
        }
        raw += phraseBonus(question, s);
        const quoted = unitSentence ?? s;
        const answers =
          question.answerKind === null ||
          holdsKind(quoted, question.answerKind) ||
          (question.answerKind === "date" && item.occurredAt !== null);
        const plan = question.asksPast && PLAN.test(quoted.text) ? RELEVANCE_TUNING.planForPast : 1;
        const score = raw * lengthNorm(s) * prior * plan * asking * (answers ? 1 : RELEVANCE_TUNING.missingAnswer);
        if (best && best.score >= score) continue;
        best = {
          item,
          text: quoted.text,
          score,
          satisfied,
          subjectCoverage: subjectWeight > 0 ? subject / subjectWeight : 1,
          entities: quoted.entities,
          answers,
        };
      }
      if (best) passages.push(best);
    }
  }
  return passages.sort((a, b) => b.score - a.score || a.item.order - b.item.order);
}

interface Context {
  nameStems: Set<string>;
  tagStems: Set<string>;
  occurredAt: string | null;
  /** Stems of the turn this one replies to, when that turn was retrieved too. */
  promptStems: Set<string> | null;
}

function satisfaction(
  term: Question["terms"][number],
  s: Sentence,
  neighbours: Sentence[],
  context: Context,
): Satisfaction | null {
  const has = (stems: Set<string>) => term.stems.some((stem) => stems.has(stem));
  if (has(s.stems)) return "literal";
  if (term.kind && holdsKind(s, term.kind)) return "kind";
  if (has(context.nameStems)) return "name";
  if (neighbours.some((n) => has(n.stems) || (term.kind !== null && holdsKind(n, term.kind)))) return "neighbour";
  if (has(context.tagStems)) return "tag";
  if (context.promptStems && has(context.promptStems)) return "prompt";
  if (term.kind === "date" && context.occurredAt !== null) return "date";
  return null;
}

/**
 * Passages that answer at all: some subject word stated in the text itself or its model's name
 * (not only by kind, date or tag); the heaviest subject word or enough of the subject covered; and
 * a score within `share` of the best.
 */
export function relevantPassages(question: Question, ranked: readonly Passage[], share: number): Passage[] {
  const subjects = question.terms.map((t, i) => ({ t, i })).filter(({ t }) => t.role !== "frame" && t.stems.length > 0);
  const heaviest = subjects.reduce<{ t: Question["terms"][number]; i: number } | null>(
    (a, b) => (a && a.t.weight >= b.t.weight ? a : b),
    null,
  );
  const stated = (p: Passage, i: number) => {
    const how = p.satisfied.get(i);
    return how === "literal" || how === "name" || how === "tag" || how === "kind" || how === "prompt";
  };
  const candidates = ranked.filter(
    (p) =>
      p.score > 0 &&
      (subjects.length === 0 ||
        (subjects.some(({ i }) => ["literal", "name", "prompt"].includes(p.satisfied.get(i) ?? "")) &&
          ((heaviest !== null && stated(p, heaviest.i)) || p.subjectCoverage >= RELEVANCE_TUNING.minSubjectCoverage))),
  );
  const top = candidates[0]?.score ?? 0;
  return candidates.filter((p) => p.score >= top * share);
}

/** Share of the question's weight the passages satisfy together, by their own words or kinds. */
export function coverage(question: Question, passages: readonly Passage[]): number {
  const total = question.terms.reduce((sum, t) => sum + t.weight, 0);
  if (total === 0) return 0;
  const covered = new Set(passages.flatMap((p) => [...p.satisfied.keys()]));
  return [...covered].reduce((sum, i) => sum + (question.terms[i]?.weight ?? 0), 0) / total;
}
