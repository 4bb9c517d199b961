/**
 * Words as the memory search sees them: FTS5's `unicode61` tokenizer (letters and digits, lowercase,
 * diacritics removed) followed by its `porter` stemmer (db/migrations/0001_fts.sql).
 */
import { porterStem } from "@/lib/reflect/porter";

const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;

/** A word of a text: its lowercase form, its stem, and its position among the text's words. */
export interface Token {
  word: string;
  stem: string;
  position: number;
}

function fold(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{Mn}/gu, "")
    .toLowerCase();
}

/** unicode61 tokens of a text, each with its porter stem. */
export function tokenize(text: string): Token[] {
  return [...fold(text).matchAll(TOKEN)].map((m, position) => ({ word: m[0], stem: porterStem(m[0]), position }));
}

export function stemsOf(text: string): Set<string> {
  return new Set(tokenize(text).map((t) => t.stem));
}

/**
 * Words that frame a question rather than name its subject. IDF alone would let "what" or "did"
 * weigh in on a small bank, and they should never become search terms.
 */
export const STOP_WORDS = new Set(
  `a about above across after again against all almost along already also although always am among an and another
  any anybody anyone anything anywhere are aren around as ask asked at be became because become been before being
  below between both but by can cannot could couldn did didn do does doesn doing don done down during each either
  else enough etc even ever every everything few find for found from further get gets getting give given go going
  got had hadn has hasn have haven having he her here hers herself him himself his how however i if in into is isn
  it its itself just know knew last least let lets like ll made make many may me might mine more most much must my
  myself need needs neither never no nor not nothing now of off often on once one only or other others otherwise
  our ours ourselves out over own per perhaps please quite rather re really regarding said same say says see seem
  seems shall she should shouldn since so some somebody someone something sometimes still such take taken takes tell
  tells than that the their theirs them themselves then there these they thing things think this those though through
  thus time times to took too toward towards under until up upon us use used using ve very via was wasn way we well went were weren what
  whatever when whenever where whether which while who whoever whom whose why will with within without won would
  wouldn yes yet you your yours yourself yourselves`.split(/\s+/),
);

/** Sentences of a memory's text, markdown list and heading markers and emphasis removed. */
export function sentences(text: string, minChars = 12): string[] {
  return lines(text)
    .flatMap((line) => line.split(/(?<=[.!?])\s+(?=[A-Z0-9"'“(*])/))
    .map((s) => s.trim())
    .filter((s) => s.length >= minChars);
}

/** Non-empty lines with list and heading markers and markdown emphasis removed. */
export function lines(text: string): string[] {
  return outline(text).map((l) => l.text);
}

const cleanLine = (line: string) => stripMarkdown(line.replace(/^\s*(?:[-*+]|#{1,6}|\d+[.)])\s+/, "")).trim();

/** Lines of a markdown text, each with the line it is nested under (a sub-bullet's parent), if any. */
export function outline(text: string): { text: string; parent: string | null }[] {
  const out: { text: string; parent: string | null }[] = [];
  const stack: { indent: number; text: string }[] = [];
  for (const raw of text.split(/\n+/)) {
    const text = cleanLine(raw);
    if (text === "") continue;
    const indent = raw.match(/^\s*/)?.[0].length ?? 0;
    while (stack.length > 0 && (stack.at(-1)?.indent ?? 0) >= indent) stack.pop();
    out.push({ text, parent: stack.at(-1)?.text ?? null });
    stack.push({ indent, text });
  }
  return out;
}

function stripMarkdown(line: string): string {
  return line
    .replace(/\*\*(.+?)\*\*/g, "$1")
    .replace(/__(.+?)__/g, "$1")
    .replace(/`([^`]*)`/g, "$1");
}

export const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
