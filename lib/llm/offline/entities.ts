/**
 * The concrete things a sentence states: dates, amounts of money, other numbers and names. A
 * question that asks "when", "how much", "how many" or "who" is answered by a sentence that holds
 * one; two memories about the same subject that hold different ones disagree.
 */

import { MONTH_NAMES } from "@/lib/reflect/dates";

export type EntityKind = "date" | "money" | "number" | "name";

export interface Entity {
  kind: EntityKind;
  /** As written. */
  text: string;
  /** Normalized value: two entities with the same kind and key say the same thing. */
  key: string;
}

const MONTHS = MONTH_NAMES.map((m) => m.toLowerCase());
const MONTH =
  "(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\\.?";
const DAY = "(\\d{1,2})(?:st|nd|rd|th)?";
const YEAR = "(\\d{4})";

function monthNumber(name: string): string {
  const i = MONTHS.findIndex((m) => m.startsWith(name.toLowerCase().replace(".", "").slice(0, 3)));
  return String(i + 1).padStart(2, "0");
}

const pad = (d: string) => d.padStart(2, "0");

// A bare month needs its full name and a capital ("in January"); "May" alone is usually the verb.
const BARE_MONTH = /\b(January|February|March|April|June|July|August|September|October|November|December)\b/g;

interface Pattern {
  kind: EntityKind;
  re: RegExp;
  key: (m: RegExpExecArray) => string;
}

// Order matters: an earlier pattern claims its span, so "October 20, 2026" is one date, not a date and a number.
const PATTERNS: Pattern[] = [
  { kind: "date", re: /\b(\d{4})-(\d{2})-(\d{2})\b/g, key: (m) => `${m[2]}-${m[3]}` },
  {
    kind: "date",
    re: new RegExp(`\\b${MONTH}\\s+${DAY}(?:\\s*[–-]\\s*\\d{1,2})?(?:,?\\s+${YEAR})?\\b`, "g"),
    key: (m) => `${monthNumber(m[1] ?? "")}-${pad(m[2] ?? "")}`,
  },
  {
    kind: "date",
    re: new RegExp(`\\b${DAY}\\s+${MONTH}(?:,?\\s+${YEAR})?\\b`, "g"),
    key: (m) => `${monthNumber(m[2] ?? "")}-${pad(m[1] ?? "")}`,
  },
  {
    kind: "date",
    re: new RegExp(`\\b${MONTH}\\s+${YEAR}\\b`, "g"),
    key: (m) => `${m[2]}-${monthNumber(m[1] ?? "")}`,
  },
  { kind: "date", re: BARE_MONTH, key: (m) => monthNumber(m[1] ?? "") },
  { kind: "date", re: /\b(Q[1-4])\b/g, key: (m) => m[1] ?? "" },
  {
    kind: "money",
    re: /(?:\$|€|£)\s?(\d[\d,]*(?:\.\d+)?)(?:\s?(k|K|M|million|thousand))?/g,
    key: (m) => `${(m[1] ?? "").replace(/,/g, "")}${m[2] ? m[2][0]?.toLowerCase() : ""}`,
  },
  {
    kind: "number",
    re: /\b(\d[\d,]*(?:\.\d+)?)\s?(%|percent\b)?/g,
    key: (m) => `${(m[1] ?? "").replace(/,/g, "")}${m[2] ? "%" : ""}`,
  },
];

const NOT_NAMES = new Set([
  "i",
  "monday",
  "tuesday",
  "wednesday",
  "thursday",
  "friday",
  "saturday",
  "sunday",
  ...MONTHS,
]);

// A capitalized word (Tomás, ClickHouse, not an acronym such as SSO or AES-GCM); the first word of a
// sentence only when the next word is capitalized too ("Helen Park said…"), since any sentence starts with a capital.
const NAME = /(?<![\p{L}\p{N}])(\p{Lu}[\p{L}\p{N}'’-]*)(?![\p{L}\p{N}])/gu;
const ACRONYM = /^[\p{Lu}\p{N}'’-]+$|\p{N}/u;

function names(text: string): Entity[] {
  const out: Entity[] = [];
  const words = [...text.matchAll(NAME)];
  for (const [i, m] of words.entries()) {
    const word = m[1] ?? "";
    // What precedes the word, up to a few characters: a sentence end, a list marker, or nothing.
    const before = text.slice(Math.max(0, m.index - 4), m.index).trimEnd();
    const sentenceStart = (m.index <= 4 && before === "") || /(?:[.!?:—–(\n]|^[-*+#]+)$/.test(before);
    if (NOT_NAMES.has(word.toLowerCase()) || ACRONYM.test(word)) continue;
    if (sentenceStart) {
      const next = words[i + 1];
      const adjacent = next && /^\s+$/.test(text.slice(m.index + word.length, next.index));
      if (!adjacent) continue;
    }
    out.push({ kind: "name", text: word, key: word.toLowerCase() });
  }
  return out;
}

/** Every entity of a text, left to right; spans claimed by a date or an amount are not numbers again. */
export function entities(text: string): Entity[] {
  const claimed: [number, number][] = [];
  const found: (Entity & { at: number })[] = [];
  // Every pattern but the bare month needs a digit or a currency sign.
  const digits = /[\d$€£]/.test(text);
  for (const { kind, re, key } of PATTERNS) {
    if (!digits && re !== BARE_MONTH) continue;
    for (const m of text.matchAll(re)) {
      const start = m.index;
      const end = start + m[0].length;
      if (claimed.some(([s, e]) => start < e && end > s)) continue;
      claimed.push([start, end]);
      found.push({ kind, text: m[0].trim(), key: key(m as RegExpExecArray), at: start });
    }
  }
  found.sort((a, b) => a.at - b.at);
  return [...found.map(({ at: _at, ...e }) => e), ...names(text)];
}

export function hasKind(list: readonly Entity[], kind: EntityKind): boolean {
  return list.some((e) => e.kind === kind);
}
