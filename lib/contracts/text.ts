/**
 * Stored text is valid text (SECURITY.md): no NUL character (SQLite cuts the string there, so a fact
 * reads back shorter and its bank's export no longer imports), no lone surrogate (not encodable as
 * UTF-8), and bytes that decode as UTF-8. One validator, applied where text enters: the API body,
 * query and path, server actions, MCP tool arguments, CLI arguments and bundles. It walks the whole
 * value, so a field added later is covered too, and the error names the field.
 */
import { AppError, type FieldErrors, formatPath } from "./errors";

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why the string is not valid text, or null when it is. */
export function textProblem(value: string): string | null {
  if (value.includes("\u0000")) return "contains a NUL character (\\u0000)";
  if (LONE_SURROGATE.test(value)) return "contains a lone surrogate (not valid Unicode)";
  return null;
}

/** A key as it can be shown: NUL and surrogate halves replaced. */
function printable(key: string): string {
  return Array.from(key, (ch) =>
    ch === "\u0000" || (ch.length === 1 && LONE_SURROGATE.test(ch)) ? "\ufffd" : ch,
  ).join("");
}

interface Visit {
  v: unknown;
  key?: PropertyKey;
  parent?: Visit;
}

/** The path of a visited value, built only when a problem is found. */
function pathOf(node: Visit): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let n: Visit | undefined = node; n?.parent; n = n.parent) path.push(n.key as PropertyKey);
  return path.reverse();
}

/**
 * Every string in the value (and every object key), with its path: the first few problems found.
 * Iterative and linear (a node points at its parent), so a deeply nested document costs neither
 * the stack nor quadratic time.
 */
export function findTextProblems(value: unknown, limit = 20): FieldErrors {
  const found: FieldErrors = {};
  let count = 0;
  const stack: Visit[] = [{ v: value }];
  while (stack.length > 0 && count < limit) {
    const node = stack.pop() as Visit;
    const { v } = node;
    if (typeof v === "string") {
      const problem = textProblem(v);
      if (problem) {
        found[formatPath(pathOf(node)) || "_"] = [problem];
        count++;
      }
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], key: i, parent: node });
    } else if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i] as [string, unknown];
        const keyProblem = textProblem(key);
        if (keyProblem) {
          found[formatPath([...pathOf(node), printable(key)]) || "_"] = [`field name ${keyProblem}`];
          count++;
        }
        stack.push({ v: item, key, parent: node });
      }
    }
  }
  return found;
}

/** Throws `invalid_text` (400) naming each bad field; returns the value unchanged otherwise. */
export function assertValidText<T>(value: T, what = "input"): T {
  const problems = findTextProblems(value);
  const paths = Object.keys(problems);
  if (paths.length === 0) return value;
  const first = paths[0] ?? "_";
  const where = first === "_" ? what : first;
  throw new AppError("invalid_text", `${where} ${problems[first]?.[0]}; nothing was changed.`, {
    fieldErrors: problems,
  });
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Bytes as UTF-8 text; invalid UTF-8 is `invalid_text` (400), never silently replaced. */
export function decodeUtf8(bytes: Uint8Array, what = "the request body"): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new AppError("invalid_text", `${what} is not valid UTF-8; nothing was changed.`);
  }
}
