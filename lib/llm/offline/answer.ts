/**
 * The extractive answer. The first line is the lead passage (the answer, quoted from its memory
 * with its id); what it superseded follows; then the supporting passages in the shape the skill's
 * output format asks for: dated bullets (recap), decision/date/who/why (decisions), an open/done
 * checklist with owner and due date (actionables), one line per blocker with since-when and what
 * unblocks it (blockers), or a short brief with open questions (prep). Every passage shown is
 * cited, and nothing else is.
 */
import { formatDay } from "@/lib/reflect/dates";
import type { Lead } from "./newest";
import { polarity } from "./newest";
import type { Passage } from "./relevance";

export type AnswerShape = "short" | "recap" | "decisions" | "actionables" | "blockers" | "prep" | "plain";

/** Reads the skill's output format (then its mission) from the system prompt, as a model would. */
export function answerShape(system: string): AnswerShape {
  const line = (label: string) => system.match(new RegExp(`^${label}:(.*)$`, "im"))?.[1] ?? "";
  for (const text of [line("Output format"), line("Mission")]) {
    // "The answer alone on the first line" (not "a short answer paragraph", which is prose).
    if (/\banswer alone\b/i.test(text)) return "short";
    if (/checklist|action items?/i.test(text)) return "actionables";
    if (/blocker|unblock/i.test(text)) return "blockers";
    if (/decision/i.test(text)) return "decisions";
    if (/meeting|open questions/i.test(text)) return "prep";
    if (/dated bullets|chronolog|summary/i.test(text)) return "recap";
  }
  return "plain";
}

/** How many supporting passages each shape shows at most. */
const SUPPORT_LIMIT: Record<AnswerShape, number> = {
  short: 5,
  recap: 5,
  decisions: 4,
  actionables: 8,
  blockers: 5,
  prep: 6,
  plain: 4,
};

const day = (p: Passage) => p.item.date?.slice(0, 10) ?? "undated";
const ref = (p: Passage) => `[${p.item.id}]`;
const byDateDesc = (a: Passage, b: Passage) => day(b).localeCompare(day(a));

const NAME = "\\p{Lu}\\p{Ll}[\\p{L}'’-]*";
/** Who owns an action item, most explicit first. */
const OWNERS = [
  new RegExp(`action item[^:]*:\\s*(${NAME}(?:\\s+and\\s+${NAME})?)\\s+to\\b`, "iu"),
  new RegExp(`\\b[Oo]wner:?\\s*(${NAME}(?:\\s+${NAME})?)`, "u"),
  new RegExp(`\\b(${NAME})\\s+(?:owns|is taking over|tracks)\\b`, "u"),
];
const WHO = new RegExp(
  `\\b(${NAME})\\s+(?:approved|decided|agreed|overruled|signed off|chose|said|argued|wants|called|pushed)\\b`,
  "gu",
);
const PRONOUNS = new Set(["We", "I", "They", "He", "She", "It"]);
const WHY = /\b(?:because|so that|to protect|in order to)\b[^.;()]+/i;
const DUE = /\b(?:[Dd]ue|[Bb]y|[Uu]ntil)\s+(\p{Lu}\p{Ll}+\.?\s+\d{1,2}(?:,\s+\d{4})?|\d{4}-\d{2}-\d{2})/u;
const DONE = /\b(?:done|closed|completed|finished)\b(?:\s+(?:on|by)\b|[:\s—–.-])|\bupdate:\s*done\b/i;
const UNBLOCKS = /\b(?:the fix is|fix:|until|once|waits? on|depends on|needs|requires|earliest slot is)\s+([^.;—]+)/i;
// "Brightwell asked for SCIM" is a request already met or planned, not a question to raise.
const OPEN = /\b(?:open|not yet|not scheduled|next|at risk|might|unclear|pending)\b|\?/i;
const ACTION = /\baction items?\b|\bdue\b|\bowns\b|\bto-?do\b/i;
const DECIDED = /\b(?:decid\w*|decision|agreed|chose|approved|picked|final)\b/i;

const owner = (p: Passage) => OWNERS.map((re) => p.text.match(re)?.[1]).find((m) => m !== undefined) ?? null;
const who = (p: Passage) =>
  [...new Set([...p.text.matchAll(WHO)].map((m) => m[1] ?? "").filter((n) => n && !PRONOUNS.has(n)))].join(", ") ||
  null;
const detail = (label: string, value: string | null | undefined) => (value ? ` — ${label}: ${value.trim()}` : "");

function statusLabel(p: Passage): string {
  const state = polarity(p.text);
  return state === "cleared" ? "Resolved: " : state === "blocked" ? "Blocked: " : "";
}

interface Body {
  lines: string[];
  /** The passages the lines quote. */
  used: Passage[];
}

const listed = (passages: Passage[], line: (p: Passage) => string): Body => ({
  lines: passages.map(line),
  used: passages,
});

const checklistItem = (p: Passage) =>
  `- [${DONE.test(p.text) ? "x" : " "}] ${p.text}${detail("owner", owner(p))}${detail("due", p.text.match(DUE)?.[1])} ${ref(p)}`;

/** Supporting passages that are not what the shape lists, shown apart and never labelled as such. */
function related(passages: Passage[]): string[] {
  return passages.length > 0 ? ["Related:", ...passages.map((p) => `- ${p.text} ${ref(p)}`)] : [];
}

function checklist(passages: Passage[]): Body {
  const items = passages.filter((p) => ACTION.test(p.text));
  const done = items.filter((p) => DONE.test(p.text));
  const open = items.filter((p) => !done.includes(p));
  const other = passages.filter((p) => !items.includes(p));
  return {
    lines: [
      ...(open.length > 0 ? ["Open:", ...open.map(checklistItem)] : []),
      ...(done.length > 0 ? ["Done:", ...done.map(checklistItem)] : []),
      ...related(other),
    ],
    used: [...open, ...done, ...other],
  };
}

function blockers(passages: Passage[]): Body {
  const listedBlockers = passages.filter((p) => polarity(p.text) !== null).sort(byDateDesc);
  const other = passages.filter((p) => !listedBlockers.includes(p));
  return {
    lines: [...listedBlockers.map((p) => `- ${blockerLine(p)}`), ...related(other)],
    used: [...listedBlockers, ...other],
  };
}

const blockerLine = (p: Passage) =>
  `${statusLabel(p)}${p.text} — ${polarity(p.text) === "cleared" ? "as of" : "since"}: ${day(p)}${detail("owner", owner(p))}${detail("unblocks", p.text.match(UNBLOCKS)?.[1])} ${ref(p)}`;

const decisionDetails = (p: Passage) =>
  `date: ${day(p)}${detail("who", who(p))}${detail("why", p.text.match(WHY)?.[0])}`;

function decisions(passages: Passage[]): Body {
  const decided = passages.filter((p) => DECIDED.test(p.text)).sort(byDateDesc);
  const context = passages.filter((p) => !decided.includes(p));
  return {
    lines: [
      ...decided.map((p) => `- Decision: ${p.text} — ${decisionDetails(p)} ${ref(p)}`),
      // Only what a memory states as decided is labelled a decision.
      ...related(context),
    ],
    used: [...decided, ...context],
  };
}

function prep(passages: Passage[]): Body {
  const questions = passages.filter((p) => OPEN.test(p.text)).slice(0, 3);
  const facts = passages
    .filter((p) => !questions.includes(p))
    .slice(0, 4)
    .sort(byDateDesc);
  return {
    lines: [
      "Before the meeting:",
      ...(facts.length > 0 ? facts.map((p) => `- ${p.text} ${ref(p)}`) : ["- nothing else in the memories retrieved"]),
      "",
      "Open questions:",
      ...(questions.length > 0
        ? questions.map((p) => `- ${p.text} ${ref(p)}`)
        : ["- none stated in the memories retrieved"]),
    ],
    used: [...facts, ...questions],
  };
}

function body(shape: AnswerShape, support: Passage[]): Body {
  switch (shape) {
    case "recap":
      return listed(
        [...support].sort((a, b) => day(a).localeCompare(day(b))),
        (p) => `- ${day(p)}: ${p.text} ${ref(p)}`,
      );
    case "decisions":
      return decisions(support);
    case "actionables":
      return checklist(support);
    case "blockers":
      return blockers(support);
    case "prep":
      return prep(support);
    case "plain":
      return listed(support, (p) => `- ${p.text} ${ref(p)}`);
    case "short":
      return listed(support, quoteLine);
  }
}

/** A quoted memory under a short answer: who said it and when, when the memory knows. */
function quoteLine(p: Passage): string {
  const said = [p.item.speaker, p.item.date ? formatDay(p.item.date) : null].filter(Boolean).join(", ");
  return `- ${said ? `${said}: ` : ""}${p.text} ${ref(p)}`;
}

const SUPERSEDED_INTRO: Record<AnswerShape, string> = {
  short: "It replaces what older memories said:",
  recap: "It replaces what older memories said:",
  decisions: "It replaced the earlier decision:",
  actionables: "Older memories said otherwise:",
  blockers: "Older memories said otherwise:",
  prep: "Older memories said otherwise:",
  plain: "It replaces what older memories said:",
};

function supersededLine(lead: Lead, shape: AnswerShape): string[] {
  if (lead.superseded.length === 0) return [];
  const quoted = lead.superseded.map((p) => `"${p.text}" ${ref(p)} (${day(p)})`);
  return [`${SUPERSEDED_INTRO[shape]} ${quoted.join("; ")}.`];
}

/** What each shape's mission looks for first: action items (open before done), blockers, decisions. */
const SHAPE_FAVOURS: Partial<Record<AnswerShape, { marker: RegExp; factor: number }>> = {
  actionables: { marker: ACTION, factor: 1.5 },
  blockers: { marker: /\bblock\w*|\bstuck\b/i, factor: 1.3 },
  decisions: { marker: DECIDED, factor: 1.3 },
};
const DONE_ITEM_FACTOR = 0.7;

/** Passages re-ranked for the skill's shape: what its mission asks for first. */
export function favourShape(shape: AnswerShape, passages: readonly Passage[]): Passage[] {
  const favour = SHAPE_FAVOURS[shape];
  if (!favour) return [...passages];
  const factor = (p: Passage) =>
    (favour.marker.test(p.text) ? favour.factor : 1) *
    (shape === "actionables" && DONE.test(p.text) ? DONE_ITEM_FACTOR : 1);
  return passages
    .map((p) => ({ ...p, score: p.score * factor(p) }))
    .sort((a, b) => b.score - a.score || a.item.order - b.item.order);
}

export interface ComposedAnswer {
  answer: string;
  /** Every passage the answer shows, lead first: exactly what it cites. */
  quoted: Passage[];
}

/** The first line: the answer, in the shape's own line form for a checklist or a blocker list. */
function leadLine(shape: AnswerShape, p: Passage): string {
  // Only an action item gets a checkbox: a fact that answers the question is not a task.
  if (shape === "actionables" && ACTION.test(p.text)) return checklistItem(p);
  if (shape === "blockers") return blockerLine(p);
  // A fact that answers "when" by the day it records gets that day in front.
  const dated = [...p.satisfied.values()].includes("date") ? `${day(p)}: ` : "";
  return `${dated}${p.text} ${ref(p)}`;
}

/**
 * The answer text from a lead and the other relevant passages (best first). A short-answer shape
 * puts `short` (the answer alone) on the first line and quotes the lead under it.
 */
export function composeAnswer(
  shape: AnswerShape,
  lead: Lead,
  relevant: readonly Passage[],
  short: string | null = null,
): ComposedAnswer {
  const taken = new Set<Passage>([lead.lead, ...lead.superseded]);
  const seenText = new Set([...taken].map((p) => p.text.toLowerCase()));
  const support: Passage[] = [];
  for (const p of relevant) {
    if (support.length >= SUPPORT_LIMIT[shape]) break;
    const key = p.text.toLowerCase();
    if (taken.has(p) || seenText.has(key)) continue;
    seenText.add(key);
    support.push(p);
  }
  const rest = body(shape, support);
  if (shape === "short") {
    return {
      answer: [short ?? lead.lead.text, quoteLine(lead.lead), ...supersededLine(lead, shape), ...rest.lines].join("\n"),
      quoted: [lead.lead, ...lead.superseded, ...rest.used],
    };
  }
  const lines = [
    leadLine(shape, lead.lead),
    ...supersededLine(lead, shape),
    ...(shape === "decisions" && DECIDED.test(lead.lead.text)
      ? [`The decision above — ${decisionDetails(lead.lead)} ${ref(lead.lead)}`]
      : []),
    ...(rest.lines.length > 0 ? ["", ...rest.lines] : []),
  ];
  return { answer: lines.join("\n"), quoted: [lead.lead, ...lead.superseded, ...rest.used] };
}
