/**
 * One detector for "this text has no content" (issue 27): blank and zero-width text, punctuation or
 * markup alone ("...", "<!-- -->"), null-ish words and the placeholder lines a summary carries
 * while it is not written yet ("Generating content (3/10)...", "Refreshing...", "Not yet generated.",
 * "Summary will appear here."). The output guard (an answer), freshness (a mental model is not usable
 * and not citable), the digests (a memory is not quoted) and refresh acceptance all ask it.
 */

/**
 * Text with its markup (HTML comments and tags), markdown packaging, punctuation, zero-width
 * characters and surrounding space removed, case-folded: what is left is what the text says.
 * Heading lines are titles (often the model's name), not content.
 */
export function normalizedContent(content: string): string {
  return content
    .replace(/[\u200B-\u200D\u2060\uFEFF\u00AD]/g, "")
    .replace(/<!--[\s\S]*?(?:-->|$)/g, " ")
    .replace(/<\/?[a-z][\w-]*\s*\/?>/gi, " ")
    .split("\n")
    .filter((line) => !/^\s{0,3}#{1,6}(\s|$)/.test(line))
    .join(" ")
    .replace(/[\p{P}\p{S}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

/**
 * Phrases (normalized) that say nothing wherever they stand: null-ish values and the lines a
 * summary shows while it is being written. Any mix of them, with progress counts ("3 10", "3 of 10"),
 * is no content; one real word beside them is content.
 */
const ALWAYS_EMPTY = [
  "generating content",
  "generating summary",
  "generating the summary",
  "generating",
  "refreshing content",
  "refreshing summary",
  "refreshing",
  "loading",
  "please wait",
  "not yet generated",
  "not generated yet",
  "content pending generation",
  "summary pending generation",
  "pending generation",
  "to be written",
  "summary will appear here",
  "content will appear here",
  "will appear here",
  "placeholder",
  "coming soon",
  "todo",
  "tbd",
  "null",
  "undefined",
  "nil",
  "nan",
  "lorem ipsum",
];

/**
 * Status words that are no content for a stored memory ("In progress", "Pending", "None", "N/A") but
 * can be a true answer to a question ("What is the security review's status?" — "In progress.").
 */
const EMPTY_AS_MEMORY = ["in progress", "pending", "none", "n a"];

const byLength = (phrases: string[]) => [...phrases].sort((a, b) => b.length - a.length);
const ANSWER_PHRASES = byLength(ALWAYS_EMPTY);
const MEMORY_PHRASES = byLength([...ALWAYS_EMPTY, ...EMPTY_AS_MEMORY]);

/** Progress counts left over once the phrases are gone ("3 10", "3 of 10", "40"). */
const PROGRESS_ONLY = /^(?:\d+(?: of)?(?: \d+)?(?: |$))+$/;

export interface NoContentOptions {
  /**
   * What the text is: an `answer` keeps status words ("In progress") as content; a `memory` (a
   * mental model's content, a refresh proposal, an observation or fact) does not. Default `memory`.
   */
  as?: "answer" | "memory";
  /** Further normalized phrases that count as no content here (the engine's own no-evidence text). */
  extra?: readonly string[];
}

/** Whether the text says nothing at all (see the module comment). */
export function hasNoContent(text: string | null | undefined, options: NoContentOptions = {}): boolean {
  if (typeof text !== "string") return true;
  const normalized = normalizedContent(text);
  if (normalized === "") return true;
  const phrases = options.as === "answer" ? ANSWER_PHRASES : MEMORY_PHRASES;
  let rest = ` ${normalized} `;
  let removed = false;
  for (const phrase of [...(options.extra ?? []), ...phrases]) {
    // Phrases are letters, digits and spaces only (normalized), so they are safe inside a pattern.
    const next = rest.replace(new RegExp(` ${phrase}(?= )`, "g"), " ");
    if (next !== rest) removed = true;
    rest = next;
  }
  const left = rest.replace(/\s+/g, " ").trim();
  if (left === "") return true;
  return removed && PROGRESS_ONLY.test(left);
}
