"use client";

import { diffLines, diffWords } from "@/lib/timeline/text-diff";
import { TextDiff } from "./text-diff";

export interface ConflictField {
  field: string;
  mine: string;
  theirs: string;
  by: "lines" | "words";
}

/**
 * A refused stale save: what the newer version holds compared with the unsaved edit, and a way to
 * load it. The edit stays in the form until the user chooses.
 */
export function ConflictNotice({
  message,
  newerVersion,
  fields,
  onLoadNewer,
  reapply,
}: {
  message: string;
  newerVersion: number | null;
  fields: readonly ConflictField[];
  onLoadNewer: () => void;
  /** Re-apply the edit on the newer version: offered when the changed fields do not overlap. */
  reapply?: { run: () => void; overlap: readonly string[]; pending?: boolean };
}) {
  const differing = fields.filter((f) => f.mine !== f.theirs);
  return (
    <div className="rounded border border-amber-300 bg-amber-50 p-3" role="alert" data-testid="conflict-notice">
      <p className="font-medium text-amber-900">Not saved: edit conflict</p>
      <p className="mt-0.5 text-[12px] text-amber-900" data-testid="conflict-message">
        {message}
      </p>
      {newerVersion !== null && differing.length > 0 ? (
        <div className="mt-2 space-y-1.5">
          <p className="text-[11px] text-slate-600">
            Your edit (<span className="text-red-800">−</span>) against version {newerVersion} (
            <span className="text-emerald-800">+</span>):
          </p>
          {differing.map((f) => (
            <div key={f.field} className="bg-white" data-field={f.field}>
              <p className="text-[10px] text-slate-500 uppercase tracking-wide">{f.field}</p>
              <TextDiff ops={f.by === "lines" ? diffLines(f.mine, f.theirs) : diffWords(f.mine, f.theirs)} by={f.by} />
            </div>
          ))}
        </div>
      ) : null}
      {newerVersion !== null && reapply ? (
        reapply.overlap.length === 0 ? (
          <button
            type="button"
            disabled={reapply.pending}
            className="mt-2 mr-2 rounded border border-indigo-600 bg-indigo-600 px-2.5 py-1 font-medium text-[12px] text-white hover:bg-indigo-700 disabled:opacity-50"
            onClick={reapply.run}
            data-testid="reapply-edit"
          >
            Re-apply my edit on version {newerVersion}
          </button>
        ) : (
          <p className="mt-2 text-[12px] text-amber-900" data-testid="reapply-blocked">
            Your edit and version {newerVersion} both changed {reapply.overlap.join(", ")}: it cannot be re-applied
            field by field.
          </p>
        )
      ) : null}
      {newerVersion !== null ? (
        <button
          type="button"
          className="mt-2 rounded border border-amber-400 bg-white px-2.5 py-1 font-medium text-[12px] text-amber-900 hover:bg-amber-100"
          onClick={onLoadNewer}
          data-testid="load-newer"
        >
          Load version {newerVersion} (discards your edit)
        </button>
      ) : null}
    </div>
  );
}
