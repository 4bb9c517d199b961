/**
 * Line and word diffs for version history, conflicts and run comparison, computed by jsdiff
 * (Myers' O(ND) algorithm: cost grows with the size of the change, not the product of the sizes,
 * so two long documents with a few edits diff in milliseconds).
 */
import { type ChangeObject, diffArrays, diffWords as jsDiffWords } from "diff";

export type DiffOp = { op: "same" | "add" | "remove"; text: string };

/**
 * A diff that has not converged by then is shown as "all removed, all added", which for texts
 * that different is what a reader sees anyway; the page never stalls on it.
 */
const DIFF_TIMEOUT_MS = 1_000;

const op = (kind: DiffOp["op"], text: string): DiffOp => ({ op: kind, text });

function opOf(change: ChangeObject<unknown>): DiffOp["op"] {
  return change.added ? "add" : change.removed ? "remove" : "same";
}

/** One op per line (lines without their "\n"), so a line diff can be rendered line by line. */
export function diffLines(a: string, b: string): DiffOp[] {
  const linesA = a.split("\n");
  const linesB = b.split("\n");
  const changes = diffArrays(linesA, linesB, { timeout: DIFF_TIMEOUT_MS });
  if (!changes) return [...linesA.map((text) => op("remove", text)), ...linesB.map((text) => op("add", text))];
  return changes.flatMap((c) => c.value.map((text) => op(opOf(c), text)));
}

/** Word runs with their whitespace, so joining the `text`s rebuilds either side exactly. */
export function diffWords(a: string, b: string): DiffOp[] {
  const changes = jsDiffWords(a, b, { timeout: DIFF_TIMEOUT_MS });
  if (!changes) return [op("remove", a), op("add", b)].filter((o) => o.text !== "");
  return mergeRuns(changes.map((c) => op(opOf(c), c.value)));
}

/** Joins consecutive ops of the same kind, for compact rendering. */
export function mergeRuns(ops: readonly DiffOp[]): DiffOp[] {
  const out: DiffOp[] = [];
  for (const op of ops) {
    const last = out[out.length - 1];
    if (last && last.op === op.op) last.text += op.text;
    else out.push({ ...op });
  }
  return out;
}

export function hasChanges(ops: readonly DiffOp[]): boolean {
  return ops.some((o) => o.op !== "same");
}

/** Below this share of unchanged text an inline word diff is noise: show both texts instead. */
export const INLINE_MIN_SAME = 0.5;

/** The share of the diff's characters that both sides keep (1 for two empty texts). */
export function sameShare(ops: readonly DiffOp[]): number {
  let same = 0;
  let total = 0;
  for (const o of ops) {
    total += o.text.length;
    if (o.op === "same") same += o.text.length;
  }
  return total === 0 ? 1 : same / total;
}

/** Whether a word diff reads as an edit (inline) rather than a rewrite (show A and B whole). */
export function readsInline(ops: readonly DiffOp[]): boolean {
  return sameShare(ops) >= INLINE_MIN_SAME;
}

export type AnswerLayout =
  | { layout: "same" }
  | { layout: "inline"; ops: readonly DiffOp[] }
  | { layout: "lines"; ops: DiffOp[] }
  | { layout: "stacked" };

/**
 * How two answers are shown side by side: the word diff when it reads as an edit; else line by
 * line when whole lines are shared (a rewritten lead over identical bullets leaves the bullets
 * unmarked); else A and B whole, as a rewrite.
 */
export function answerLayout(a: string, b: string, wordOps: readonly DiffOp[]): AnswerLayout {
  if (!hasChanges(wordOps)) return { layout: "same" };
  if (readsInline(wordOps)) return { layout: "inline", ops: wordOps };
  const lines = diffLines(a, b);
  if (lines.some((o) => o.op === "same" && o.text.trim() !== "")) return { layout: "lines", ops: lines };
  return { layout: "stacked" };
}
