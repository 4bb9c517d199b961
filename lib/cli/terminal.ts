/**
 * Human output is text a terminal interprets: stored text (a fact quoted in an answer, a suite's
 * question, a model server's error) must not set the title, clear the screen or recolour it. Every
 * control character but newline and tab is shown escaped (`\x1b`, `\u009b`); JSON output is left
 * exact (JSON escapes controls itself).
 */
// C0 controls but \t and \n, DEL, C1 controls, and the bidi overrides/isolates that reorder a line.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is escaped
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

export function terminalSafe(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
