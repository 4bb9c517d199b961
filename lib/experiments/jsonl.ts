/**
 * Suite questions as JSONL (one JSON object per line). Parsing refuses the whole document at the
 * first bad line, naming its number, so an import is all or nothing. Pure.
 */
import { AppError } from "@/lib/contracts/errors";
import { SUITE_LIMITS, SuiteQuestion } from "@/lib/contracts/suites";
import { findTextProblems } from "@/lib/contracts/text";

export function parseSuiteJsonl(text: string): SuiteQuestion[] {
  return parseSuiteJsonlLines(text).map((q) => q.question);
}

/** Each question with the number of the line it came from (blank lines are skipped). */
export function parseSuiteJsonlLines(text: string): { line: number; question: SuiteQuestion }[] {
  const out: { line: number; question: SuiteQuestion }[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    if (!line.trim()) continue;
    const n = i + 1;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (err) {
      throw badJsonlLine(n, `not JSON (${(err as Error).message})`);
    }
    // JSON escapes (\u0000, a lone \ud800) decode to text the store refuses (SECURITY.md).
    const [field, problems] = Object.entries(findTextProblems(json, 1))[0] ?? [];
    if (field) throw badJsonlLine(n, `${field === "_" ? "" : `${field}: `}${problems?.[0]}`);
    const parsed = SuiteQuestion.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = issue?.path.length ? `${issue.path.join(".")}: ` : "";
      throw badJsonlLine(n, `${path}${issue?.message ?? "invalid question"}`);
    }
    out.push({ line: n, question: parsed.data });
    if (out.length > SUITE_LIMITS.questions)
      throw badJsonlLine(n, `at most ${SUITE_LIMITS.questions} questions in a suite`);
  }
  return out;
}

/** A refused JSONL line: the whole document is refused, naming the line. */
export function badJsonlLine(line: number, message: string) {
  return new AppError("invalid_input", `line ${line}: ${message}; nothing was imported`, {
    fieldErrors: { [`line ${line}`]: [message] },
  });
}

export function toSuiteJsonl(questions: readonly SuiteQuestion[]): string {
  return questions.map((q) => `${JSON.stringify(q)}\n`).join("");
}
