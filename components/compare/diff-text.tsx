import type { DiffOp } from "@/lib/timeline/text-diff";

const OP_CLASS: Record<DiffOp["op"], string> = {
  same: "",
  add: "bg-emerald-100 text-emerald-950 underline decoration-emerald-500",
  remove: "bg-rose-100 text-rose-950 line-through decoration-rose-500",
};

/** A word or line diff rendered inline: additions underlined green, removals struck red. */
export function DiffText({ ops, testId }: { ops: DiffOp[]; testId?: string }) {
  return (
    <p className="whitespace-pre-wrap break-words text-[12px] leading-5 text-slate-800" data-testid={testId}>
      {ops.map((o, i) =>
        o.op === "same" ? (
          <span key={i}>{o.text}</span>
        ) : o.op === "add" ? (
          <ins key={i} className={`no-underline ${OP_CLASS.add}`} data-op="add">
            {o.text}
          </ins>
        ) : (
          <del key={i} className={OP_CLASS.remove} data-op="remove">
            {o.text}
          </del>
        ),
      )}
    </p>
  );
}
