import type { DiffOp } from "@/lib/text/text-diff";

/** Unchanged lines kept around each change; longer unchanged stretches fold into one line. */
const CONTEXT = 2;

type Line = { kind: "op"; op: DiffOp } | { kind: "fold"; count: number };

function foldLines(ops: readonly DiffOp[]): Line[] {
  const near = ops.map((_, i) => ops.slice(Math.max(0, i - CONTEXT), i + CONTEXT + 1).some((o) => o.op !== "same"));
  const out: Line[] = [];
  ops.forEach((op, i) => {
    if (op.op !== "same" || near[i]) {
      out.push({ kind: "op", op });
      return;
    }
    const last = out[out.length - 1];
    if (last?.kind === "fold") last.count++;
    else out.push({ kind: "fold", count: 1 });
  });
  return out;
}

const GUTTER = { add: "+", remove: "−", same: " " } as const;
const LINE_STYLE = {
  add: "bg-emerald-50 text-emerald-900",
  remove: "bg-red-50 text-red-900",
  same: "text-slate-600",
} as const;

/**
 * A diff as lines (with +/− gutters, long unchanged stretches folded) or inline words
 * (<ins>/<del>), so the change reads without colour too. Used by the editors' version history and
 * conflicts and by run comparison.
 */
export function TextDiff({ ops, by, testId }: { ops: readonly DiffOp[]; by: "lines" | "words"; testId?: string }) {
  if (by === "words") {
    return (
      <p
        className="whitespace-pre-wrap break-words text-xs text-slate-700 leading-relaxed"
        data-testid={testId ?? "word-diff"}
      >
        {ops.map((o, i) =>
          o.op === "add" ? (
            <ins key={i} className="bg-emerald-100 text-emerald-900 no-underline" data-op="add">
              <span className="sr-only">[added: </span>
              {o.text}
              <span className="sr-only">]</span>
            </ins>
          ) : o.op === "remove" ? (
            <del key={i} className="bg-red-100 text-red-900" data-op="remove">
              <span className="sr-only">[removed: </span>
              {o.text}
              <span className="sr-only">]</span>
            </del>
          ) : (
            <span key={i}>{o.text}</span>
          ),
        )}
      </p>
    );
  }
  return (
    <div
      className="overflow-x-auto rounded border border-slate-200 font-mono text-2xs"
      data-testid={testId ?? "line-diff"}
    >
      {foldLines(ops).map((line, i) =>
        line.kind === "fold" ? (
          <div key={i} className="bg-slate-50 px-2 text-slate-500 italic">
            … {line.count} unchanged {line.count === 1 ? "line" : "lines"}
          </div>
        ) : (
          <div key={i} className={`flex ${LINE_STYLE[line.op.op]}`} data-op={line.op.op}>
            <span className="w-4 shrink-0 select-none text-center" aria-hidden="true">
              {GUTTER[line.op.op]}
            </span>
            <span className="sr-only">
              {line.op.op === "same" ? "" : line.op.op === "add" ? "added: " : "removed: "}
            </span>
            <span className="whitespace-pre-wrap break-words pr-2">{line.op.text || " "}</span>
          </div>
        ),
      )}
    </div>
  );
}
