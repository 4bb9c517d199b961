/** The stored answer's size limit (docs/engine.md#never-a-misleading-result): limits cut on code-point boundaries and say so. */
import { cutAtCodePoint } from "./tools";

export const ANSWER_CAP_CHARS = 20_000;
const TRUNCATION_NOTE = `\n\n[answer truncated at ${ANSWER_CAP_CHARS.toLocaleString("en-US")} characters]`;

/** The answer as stored: at most ANSWER_CAP_CHARS characters, with a visible note when it was cut. */
export function capAnswer(text: string): { text: string; truncated: boolean } {
  if (text.length <= ANSWER_CAP_CHARS) return { text, truncated: false };
  return { text: cutAtCodePoint(text, ANSWER_CAP_CHARS - TRUNCATION_NOTE.length) + TRUNCATION_NOTE, truncated: true };
}
