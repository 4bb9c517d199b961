import { TextDiff } from "@/components/editors/text-diff";
import { answerLayout, type DiffOp } from "@/lib/text/text-diff";

/**
 * The answer diff: inline words when the answers are close, line by line when they share whole
 * lines (identical bullets stay unmarked), A and B stacked when they are rewrites.
 */
export function AnswerDiff({ ops, a, b }: { ops: DiffOp[]; a: string; b: string }) {
  const shown = answerLayout(a, b, ops);
  if (shown.layout === "same") {
    return (
      <p className="text-xs text-slate-600" data-testid="answer-diff" data-layout="same">
        Same answer.
      </p>
    );
  }
  if (shown.layout === "inline") return <TextDiff ops={ops} by="words" testId="answer-diff" />;
  if (shown.layout === "lines") {
    return (
      <div data-testid="answer-diff" data-layout="lines">
        <TextDiff ops={shown.ops} by="lines" />
      </div>
    );
  }
  return (
    <div className="flex flex-col gap-2 text-xs" data-testid="answer-diff" data-layout="stacked">
      <del className="block whitespace-pre-wrap rounded border border-rose-200 bg-rose-50 p-2 text-rose-950 no-underline">
        <span className="mb-1 block text-2xs font-semibold text-rose-800">A</span>
        {a}
      </del>
      <ins className="block whitespace-pre-wrap rounded border border-emerald-200 bg-emerald-50 p-2 text-emerald-950 no-underline">
        <span className="mb-1 block text-2xs font-semibold text-emerald-800">B</span>
        {b}
      </ins>
    </div>
  );
}
