/**
 * Line and word diffs for version history and run comparison. A longest-common-subsequence
 * table is plenty for mental models, missions and answers (a few thousand tokens at most);
 * beyond MAX_CELLS the diff degrades to "all removed, all added" rather than stall the page.
 */
export type DiffOp = { op: "same" | "add" | "remove"; text: string };

const MAX_CELLS = 4_000_000;

export function diffTokens(a: readonly string[], b: readonly string[]): DiffOp[] {
  // Trim the common prefix and suffix first: edits are usually local.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head = a.slice(0, start).map((text): DiffOp => ({ op: "same", text }));
  const tail = a.slice(endA).map((text): DiffOp => ({ op: "same", text }));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  return [...head, ...diffMiddle(midA, midB), ...tail];
}

function diffMiddle(a: readonly string[], b: readonly string[]): DiffOp[] {
  const n = a.length;
  const m = b.length;
  if (n === 0) return b.map((text) => ({ op: "add", text }));
  if (m === 0) return a.map((text) => ({ op: "remove", text }));
  if (n * m > MAX_CELLS) {
    return [...a.map((text): DiffOp => ({ op: "remove", text })), ...b.map((text): DiffOp => ({ op: "add", text }))];
  }
  // lcs[i][j] = LCS length of a[i..] and b[j..], in one flat array.
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lcs[(i + 1) * width + j] ?? 0, lcs[i * width + j + 1] ?? 0);
    }
  }
  const out: DiffOp[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: "same", text: a[i] as string });
      i++;
      j++;
    } else if ((lcs[(i + 1) * width + j] ?? 0) >= (lcs[i * width + j + 1] ?? 0)) {
      out.push({ op: "remove", text: a[i++] as string });
    } else {
      out.push({ op: "add", text: b[j++] as string });
    }
  }
  while (i < n) out.push({ op: "remove", text: a[i++] as string });
  while (j < m) out.push({ op: "add", text: b[j++] as string });
  return out;
}

export function diffLines(a: string, b: string): DiffOp[] {
  return diffTokens(a.split("\n"), b.split("\n"));
}

/** Words with their trailing whitespace, so joining the `text`s rebuilds either side exactly. */
export function diffWords(a: string, b: string): DiffOp[] {
  const words = (s: string) => s.match(/\S+\s*|\s+/g) ?? [];
  return mergeRuns(diffTokens(words(a), words(b)));
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
