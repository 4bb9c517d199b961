/**
 * What a search query says beyond its words, for a bank whose memories have speakers and dates:
 * the people it names who are speakers of the bank (a question about Caroline is answered by what
 * Caroline said, and her own turns rarely contain her name, while the other speaker's greetings
 * do), and the dates and months it states (a question "on 13 October 2023" is about memories of
 * that day; the date's words would only match other dates by chance). What is left are the words
 * the text search looks for.
 */
import { bareMonths, type WrittenDate, withoutDates, writtenDates } from "./dates";
import { searchTerms } from "./terms";

export interface QueryShape {
  /** The words the text search looks for (the query's own words when nothing else is left). */
  lexical: string;
  /** Speakers of the bank the query names, as the bank spells them. */
  speakers: string[];
  /** Dates it states with a year. */
  dates: WrittenDate[];
  /** Months it names without a year ("in July"), 1–12. */
  months: number[];
}

const MONTH_WORDS = /\b(january|february|march|april|may|june|july|august|september|october|november|december)\b/gi;

export function shapeQuery(
  query: string,
  bankSpeakers: readonly string[],
  options: { dates?: boolean } = {},
): QueryShape {
  const readDates = options.dates ?? true;
  const dates = readDates ? writtenDates(query) : [];
  const months = readDates ? bareMonths(query) : [];
  let rest = readDates ? withoutDates(query) : query;
  if (months.length > 0) rest = rest.replace(MONTH_WORDS, (w) => (w.toLowerCase() === "may" && w !== "May" ? w : " "));
  const terms = searchTerms(rest);
  const speakers = bankSpeakers.filter((s) => {
    const words = searchTerms(s);
    return words.length > 0 && words.every((w) => terms.includes(w));
  });
  const nameWords = new Set(speakers.flatMap((s) => searchTerms(s)));
  const content = terms.filter((t) => !nameWords.has(t));
  // A query that is only a name ("Caroline") still searches for it.
  const lexical = (content.length > 0 ? content : terms.length > 0 ? terms : searchTerms(query)).join(" ");
  return { lexical, speakers, dates, months };
}
