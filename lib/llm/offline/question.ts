/**
 * What a question asks: its subject words, the word that frames it ("decide"), the kind of thing
 * that answers it (a date for "when", an amount for "how much", a name for "who", a reason for
 * "why"), adjacent word pairs worth matching as phrases, and the keyword query sent to search.
 */

import { porterStem } from "@/lib/reflect/porter";
import { type Entity, type EntityKind, entities } from "./entities";
import { STOP_WORDS, tokenize } from "./text";

/** What answers a question: an entity kind, or a stated reason. */
export type AnswerKind = EntityKind | "reason";

/**
 * subject: names what the question is about (most of the weight);
 * frame: how it asks ("decide", "decision"), matched by the whole word family, lightly weighted;
 * answer: what it wants, satisfied by its own word or by any statement of its kind.
 */
export type TermRole = "subject" | "frame" | "answer";

export interface QuestionTerm {
  /** The word as asked (lowercase); empty for "when"/"who"/"why", which are never searched for. */
  word: string;
  /** Porter stems that satisfy the term. */
  stems: string[];
  /** A statement of this kind satisfies the term too ("October 20" answers "date"). */
  kind: AnswerKind | null;
  role: TermRole;
  /** A name, number or date the question itself states: weighed up. */
  named: boolean;
  /**
   * The last word of a run of subject words ("migration" in "data pipeline migration"): English
   * puts the thing asked about last and its qualifiers before it, so it weighs more.
   */
  head: boolean;
  /** Relative importance, set from the bank's term statistics (see weigh.ts). */
  weight: number;
}

export interface Question {
  text: string;
  terms: QuestionTerm[];
  /** The kind of statement the first line must hold, when the question asks for one. */
  answerKind: AnswerKind | null;
  /** Pairs of term indexes that stand next to each other in the question ("launch date"). */
  phrases: [number, number][];
  /** Names, numbers and dates the question states. */
  entities: Entity[];
  /** It asks how things stand now ("status", "still", "latest"): the newest memory on the subject leads. */
  wantsLatest: boolean;
  /** It asks what happened ("When was it turned off?"): a plan or an action item is weaker evidence than a record of the event. */
  asksPast: boolean;
}

// Words that only say "tell me about it": they name no subject and match unrelated memories.
const FILLER = new Set(
  `status state latest current currently update updates progress happen happened happening happens going summarize
  summarise summary overview recap list explain describe show give remind brief prepare prep walk detail details info
  information stand stands situation news meeting meetings today nowadays presently
  hi hello hey thanks thank ok okay`.split(/\s+/),
);

const family = (words: string) => [...new Set(words.split(/\s+/).map(porterStem))];

/** "decide" asks for decisions: any word of the family in a memory counts. */
const DECISION_FAMILY = family(
  "decide decided decides deciding decision decisions chose choose chosen agreed approved",
);

/**
 * Words a memory uses for the same thing in plainer terms ("the only store behind dashboards"
 * answers "which database"): each also satisfies the question word. Kept small and literal.
 */
const SAME_THING: Record<string, string> = {
  database: "store",
  databases: "stores",
  datastore: "store",
};

const ANSWER_WORDS: Record<string, AnswerKind> = {
  date: "date",
  dates: "date",
  day: "date",
  deadline: "date",
  due: "date",
  cost: "money",
  costs: "money",
  price: "money",
  prices: "money",
  priced: "money",
  pricing: "money",
  charge: "money",
  fee: "money",
  fees: "money",
  pay: "money",
  paid: "money",
  discount: "number",
  discounts: "number",
  limit: "number",
  threshold: "number",
  total: "number",
  count: "number",
  number: "number",
  size: "number",
  percentage: "number",
  rate: "number",
  owner: "name",
  owners: "name",
  owns: "name",
  reason: "reason",
  cause: "reason",
  caused: "reason",
};

const LATEST = new Set(
  "status latest current currently now still yet anymore going today nowadays presently".split(" "),
);
/**
 * Only a wh-question asks for a date, an amount or a name by naming it ("What does it cost?"); in
 * "Do viewers need a paid seat?" or "Summarize the pricing decisions" the word is the subject.
 */
const WH_WORDS = new Set("what which when who whom whose why how where".split(" "));

/** Question words that ask for a kind without naming it as a word of the memories. */
function askedKind(words: string[], i: number): AnswerKind | null {
  const w = words[i];
  const next = words[i + 1] ?? "";
  if (w === "when") return "date";
  if (w === "who" || w === "whom" || w === "whose") return "name";
  if (w === "why") return "reason";
  if (w === "how" && next === "much") return /(?:er|more|less)$/.test(words[i + 2] ?? "") ? "number" : "money";
  if (w === "how" && (next === "many" || next === "long" || next === "often")) return "number";
  return null;
}

/** "our 1:1" names a kind of meeting, not the number one ("September 1" must not match it). */
const ONE_ON_ONE = /\b1\s*:\s*1s?\b/gi;

export function analyzeQuestion(text: string): Question {
  const tokens = tokenize(text.replace(ONE_ON_ONE, " "));
  const words = tokens.map((t) => t.word);
  const stated = entities(text);
  const namedWords = new Set(
    stated.flatMap((e) => tokenize(e.text).map((t) => t.stem)).filter((s) => !STOP_WORDS.has(s)),
  );
  const terms: QuestionTerm[] = [];
  const termAt = new Map<number, number>();
  let answerKind: AnswerKind | null = null;
  const wh = words.some((w) => WH_WORDS.has(w));

  tokens.forEach((token, i) => {
    const asked = askedKind(words, i);
    if (asked) {
      answerKind ??= asked;
      if (!terms.some((t) => t.role === "answer" && t.word === "" && t.kind === asked)) {
        terms.push({ word: "", stems: [], kind: asked, role: "answer", named: false, head: false, weight: 0 });
      }
      return;
    }
    const { word, stem } = token;
    if (STOP_WORDS.has(word) || FILLER.has(word) || (word.length < 2 && !/\d/.test(word))) return;
    const existing = terms.findIndex((t) => t.stems.includes(stem));
    if (existing >= 0) {
      termAt.set(token.position, existing);
      return;
    }
    const kind = wh ? (ANSWER_WORDS[word] ?? null) : null;
    if (kind) answerKind ??= kind;
    const decision = DECISION_FAMILY.includes(stem);
    const alike = SAME_THING[word];
    terms.push({
      word,
      stems: decision ? DECISION_FAMILY : alike ? [stem, porterStem(alike)] : [stem],
      kind,
      role: decision ? "frame" : kind ? "answer" : "subject",
      named: namedWords.has(stem),
      head: false,
      weight: 0,
    });
    termAt.set(token.position, terms.length - 1);
  });

  const phrases: [number, number][] = [];
  for (const [position, a] of termAt) {
    const b = termAt.get(position + 1);
    if (b !== undefined && a !== b && terms[a]?.role !== "frame" && terms[b]?.role !== "frame") phrases.push([a, b]);
  }
  // A compound's head: a subject word with another subject word right before it and none right after.
  const isSubject = (position: number) => terms[termAt.get(position) ?? -1]?.role === "subject";
  for (const [position, index] of termAt) {
    const term = terms[index];
    if (term && isSubject(position) && isSubject(position - 1) && !isSubject(position + 1)) term.head = true;
  }
  // The word a "what"/"which"/"how many" asks about ("What lesson…", "How many signups…") is the thing
  // wanted, as is the verb a "who" asks about ("Who sponsors…").
  for (const [position, index] of termAt) {
    const before = words[position - 1] ?? "";
    const asking =
      before === "what" ||
      before === "which" ||
      before === "who" ||
      ((before === "many" || before === "much") && words[position - 2] === "how");
    const term = terms[index];
    if (asking && term?.role === "subject") term.head = true;
  }
  return {
    text,
    terms,
    answerKind,
    phrases,
    entities: stated,
    wantsLatest: words.some((w) => LATEST.has(w)),
    asksPast: ["did", "was", "were"].includes(words[0] ?? "") || ["did", "was", "were"].includes(words[1] ?? ""),
  };
}

/** The search query: the question's searchable words, first-seen order, once each. */
export function keywordQuery(question: Question): string {
  return question.terms
    .map((t) => t.word)
    .filter((w) => w !== "")
    .join(" ");
}
