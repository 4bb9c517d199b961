import type { FieldChange } from "@/lib/text/version-changes";
import { TextDiff } from "./text-diff";

/** What changed in one version, field by field. */
export function FieldChanges({ changes }: { changes: readonly FieldChange[] }) {
  return (
    <dl className="space-y-1.5" data-testid="field-changes">
      {changes.map((c) => (
        <div key={c.field} data-field={c.field}>
          <dt className="text-[10px] text-slate-500 uppercase tracking-wide">{c.field}</dt>
          <dd>
            {c.kind === "text" ? (
              <TextDiff ops={c.ops} by={c.field === "content" ? "lines" : "words"} />
            ) : (
              <p className="text-xs">
                <del className="bg-red-50 text-red-900">
                  <span className="sr-only">was </span>
                  {c.before}
                </del>
                <span aria-hidden="true" className="px-1 text-slate-500">
                  →
                </span>
                <ins className="bg-emerald-50 text-emerald-900 no-underline">
                  <span className="sr-only">, now </span>
                  {c.after}
                </ins>
              </p>
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}
