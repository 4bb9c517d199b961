/**
 * Dates as people write them: absolute ("7 May 2023", "May 7, 2023", "2023-05-07", "May 2023",
 * "2022", a month on its own) and relative to the day something was said ("yesterday", "last
 * week", "two weekends ago", "next month"). One home for both readings: the store uses a question's
 * dates to favour memories of that time, the offline reader resolves what a memory's "yesterday"
 * meant, and the experiment scorer matches a gold date written another way. Pure; UTC throughout.
 */

/** The months as written in English, January first. */
export const MONTH_NAMES: readonly string[] = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const MONTH =
  "(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?";
const monthOf = (name: string) =>
  ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"].indexOf(
    name.toLowerCase().slice(0, 3),
  ) + 1;

/** A date as written: a year, and the month and day when it states them. */
export interface WrittenDate {
  year: number;
  month: number | null;
  day: number | null;
}

interface DateForm {
  re: RegExp;
  read: (m: RegExpMatchArray) => WrittenDate;
}

const DATE_FORMS: DateForm[] = [
  { re: /\b(\d{4})-(\d{2})-(\d{2})\b/g, read: (m) => ({ year: +m[1]!, month: +m[2]!, day: +m[3]! }) },
  {
    re: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH},?\\s+(\\d{4})\\b`, "gi"),
    read: (m) => ({ year: +m[3]!, month: monthOf(m[2]!), day: +m[1]! }),
  },
  {
    re: new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, "gi"),
    read: (m) => ({ year: +m[3]!, month: monthOf(m[1]!), day: +m[2]! }),
  },
  // 5/7/2023: month first, as written English dates in these sets are.
  { re: /\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/g, read: (m) => ({ year: +m[3]!, month: +m[1]!, day: +m[2]! }) },
  {
    re: new RegExp(`\\b${MONTH},?\\s+(\\d{4})\\b`, "gi"),
    read: (m) => ({ year: +m[2]!, month: monthOf(m[1]!), day: null }),
  },
  { re: /\b(19\d{2}|20\d{2})\b/g, read: (m) => ({ year: +m[1]!, month: null, day: null }) },
];

/** Every date a text writes with a year, each place read once in its most specific form. */
export function writtenDates(text: string): WrittenDate[] {
  return datesWithSpans(text).map((d) => d.date);
}

function datesWithSpans(text: string): { date: WrittenDate; start: number; end: number }[] {
  const found: { date: WrittenDate; start: number; end: number }[] = [];
  for (const form of DATE_FORMS) {
    for (const m of text.matchAll(form.re)) {
      const start = m.index ?? 0;
      const end = start + m[0].length;
      if (found.some((f) => start < f.end && end > f.start)) continue;
      const date = form.read(m);
      if (date.month !== null && (date.month < 1 || date.month > 12)) continue;
      if (date.day !== null && (date.day < 1 || date.day > 31)) continue;
      found.push({ date, start, end });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** The text with its written dates taken out (each replaced by a space). */
export function withoutDates(text: string): string {
  let out = text;
  for (const { start, end } of [...datesWithSpans(text)].reverse()) out = `${out.slice(0, start)} ${out.slice(end)}`;
  return out;
}

/**
 * Months named on their own ("in July"), 1–12, by their full names; a month inside a full date is
 * not counted, and "may" is a month only as "May" after in/of/since/until/by/early/late/mid.
 */
export function bareMonths(text: string): number[] {
  const rest = withoutDates(text);
  const months: number[] = [];
  for (const m of rest.matchAll(
    /\b(january|february|march|april|may|june|july|august|september|october|november|december)\b/gi,
  )) {
    if (m[0].toLowerCase() === "may") {
      const before =
        rest
          .slice(0, m.index ?? 0)
          .trimEnd()
          .split(/\s+/)
          .at(-1)
          ?.toLowerCase() ?? "";
      if (m[0] !== "May" || !["in", "of", "since", "until", "by", "early", "late", "mid", "during"].includes(before))
        continue;
    }
    months.push(monthOf(m[0]));
  }
  return [...new Set(months)];
}

/** Whether an ISO time falls on / in a written date. */
export function isoMatches(iso: string, date: WrittenDate): boolean {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime()) || d.getUTCFullYear() !== date.year) return false;
  if (date.month !== null && d.getUTCMonth() + 1 !== date.month) return false;
  return date.day === null || d.getUTCDate() === date.day;
}

export function sameWrittenDate(gold: WrittenDate, d: WrittenDate): boolean {
  return (
    gold.year === d.year && (gold.month === null || gold.month === d.month) && (gold.day === null || gold.day === d.day)
  );
}

/** "7 May 2023" (day month year, as LoCoMo writes its answers). */
export function formatDay(iso: string): string {
  const d = new Date(iso);
  return `${d.getUTCDate()} ${MONTH_NAMES[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

export function formatMonth(iso: string): string {
  const d = new Date(iso);
  return `${MONTH_NAMES[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

// ---------- relative to the day something was said ----------

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
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
  couple: 2,
  few: 3,
};
const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

/** What a relative expression meant, read against the day it was said. */
export interface ResolvedTime {
  /** The expression as written ("last week"). */
  phrase: string;
  /** How to say it as a date: "7 May 2023", "the week before 9 June 2023", "May 2023", "2022". */
  text: string;
  /** The day (or the start of the span) it names, ISO. */
  iso: string;
  precision: "day" | "week" | "weekend" | "month" | "year";
}

const DAY = 86_400_000;
const shift = (iso: string, days: number) => new Date(new Date(iso).getTime() + days * DAY).toISOString();
const firstOfMonth = (iso: string, months: number) => {
  const d = new Date(iso);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1)).toISOString();
};
const firstOfYear = (iso: string, years: number) =>
  new Date(Date.UTC(new Date(iso).getUTCFullYear() + years, 0, 1)).toISOString();

const COUNT = `(\\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few|couple of|few)`;
const countOf = (word: string) => {
  const w = word
    .toLowerCase()
    .replace(/\s*of$/, "")
    .replace(/^a\s+/, "");
  return /^\d+$/.test(w) ? Number(w) : (NUMBER_WORDS[w] ?? 1);
};

interface RelativeForm {
  re: RegExp;
  resolve: (m: RegExpMatchArray, said: string) => Omit<ResolvedTime, "phrase"> | null;
}

const RELATIVE_FORMS: RelativeForm[] = [
  {
    re: /\b(yesterday)\b/gi,
    resolve: (_m, said) => day(shift(said, -1)),
  },
  { re: /\b(today|tonight|this morning|this afternoon|this evening)\b/gi, resolve: (_m, said) => day(said) },
  { re: /\b(tomorrow)\b/gi, resolve: (_m, said) => day(shift(said, 1)) },
  {
    re: new RegExp(`\\b${COUNT}\\s+days?\\s+ago\\b`, "gi"),
    resolve: (m, said) => day(shift(said, -countOf(m[1]!))),
  },
  {
    re: /\b(last|this past)\s+weekend\b/gi,
    resolve: (_m, said) => ({
      text: `the weekend before ${formatDay(said)}`,
      iso: shift(said, -7),
      precision: "weekend",
    }),
  },
  {
    re: new RegExp(`\\b${COUNT}\\s+weekends?\\s+ago\\b`, "gi"),
    resolve: (m, said) => {
      const n = countOf(m[1]!);
      return {
        text: `${n === 1 ? "the weekend" : `${n} weekends`} before ${formatDay(said)}`,
        iso: shift(said, -7 * n),
        precision: "weekend",
      };
    },
  },
  {
    re: /\b(last|this past)\s+week\b/gi,
    resolve: (_m, said) => ({ text: `the week before ${formatDay(said)}`, iso: shift(said, -7), precision: "week" }),
  },
  {
    re: new RegExp(`\\b${COUNT}\\s+weeks?\\s+ago\\b`, "gi"),
    resolve: (m, said) => {
      const n = countOf(m[1]!);
      return {
        text: `${n === 1 ? "the week" : `${n} weeks`} before ${formatDay(said)}`,
        iso: shift(said, -7 * n),
        precision: "week",
      };
    },
  },
  {
    re: /\bnext\s+week\b/gi,
    resolve: (_m, said) => ({ text: `the week after ${formatDay(said)}`, iso: shift(said, 7), precision: "week" }),
  },
  {
    re: /\blast\s+(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/gi,
    resolve: (m, said) => {
      const target = WEEKDAYS.indexOf(m[1]!.toLowerCase());
      const back = (new Date(said).getUTCDay() - target + 7) % 7 || 7;
      return {
        text: `the ${m[1]!.toLowerCase()} before ${formatDay(said)}`,
        iso: shift(said, -back),
        precision: "day",
      };
    },
  },
  { re: /\b(last|this past)\s+month\b/gi, resolve: (_m, said) => month(firstOfMonth(said, -1)) },
  { re: /\bthis\s+month\b/gi, resolve: (_m, said) => month(firstOfMonth(said, 0)) },
  { re: /\bnext\s+month\b/gi, resolve: (_m, said) => month(firstOfMonth(said, 1)) },
  {
    re: new RegExp(`\\b${COUNT}\\s+months?\\s+ago\\b`, "gi"),
    resolve: (m, said) => month(firstOfMonth(said, -countOf(m[1]!))),
  },
  { re: /\blast\s+year\b/gi, resolve: (_m, said) => year(firstOfYear(said, -1)) },
  { re: /\bthis\s+year\b/gi, resolve: (_m, said) => year(firstOfYear(said, 0)) },
  { re: /\bnext\s+year\b/gi, resolve: (_m, said) => year(firstOfYear(said, 1)) },
  {
    re: new RegExp(`\\b${COUNT}\\s+years?\\s+ago\\b`, "gi"),
    resolve: (m, said) => year(firstOfYear(said, -countOf(m[1]!))),
  },
];

function day(iso: string): Omit<ResolvedTime, "phrase"> {
  return { text: formatDay(iso), iso, precision: "day" };
}
function month(iso: string): Omit<ResolvedTime, "phrase"> {
  return { text: formatMonth(iso), iso, precision: "month" };
}
function year(iso: string): Omit<ResolvedTime, "phrase"> {
  return { text: String(new Date(iso).getUTCFullYear()), iso, precision: "year" };
}

/** Relative time expressions of a text said on `said` (ISO), resolved, in text order. */
export function resolveRelativeTimes(text: string, said: string): ResolvedTime[] {
  if (Number.isNaN(new Date(said).getTime())) return [];
  const found: (ResolvedTime & { start: number; end: number })[] = [];
  for (const form of RELATIVE_FORMS) {
    for (const m of text.matchAll(form.re)) {
      const start = m.index ?? 0;
      const end = start + m[0].length;
      if (found.some((f) => start < f.end && end > f.start)) continue;
      const resolved = form.resolve(m, said);
      if (resolved) found.push({ ...resolved, phrase: m[0], start, end });
    }
  }
  return found.sort((a, b) => a.start - b.start).map(({ start: _s, end: _e, ...r }) => r);
}
