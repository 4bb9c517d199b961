"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { diffLines, diffWords } from "@/lib/text/text-diff";
import { TextDiff } from "./text-diff";

export interface ConflictField {
  field: string;
  mine: string;
  theirs: string;
  by: "lines" | "words";
}

const diffOf = (f: ConflictField) => (f.by === "lines" ? diffLines(f.theirs, f.mine) : diffWords(f.theirs, f.mine));

/**
 * A refused stale save: what the newer version holds compared with the unsaved edit, and a way to
 * load it. The edit stays in the form until the user chooses. Re-applying first shows the merged
 * result against the newer version and says that it saves; only the second button saves.
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
  reapply?: {
    run: () => void;
    overlap: readonly string[];
    pending?: boolean;
    /** The merged edit (`mine`) against the newer version (`theirs`), field by field. */
    preview: readonly ConflictField[];
  };
}) {
  const differing = fields.filter((f) => f.mine !== f.theirs);
  const [reviewing, setReviewing] = useState(false);
  return (
    <div className="rounded border border-amber-300 bg-amber-50 p-3" role="alert" data-testid="conflict-notice">
      <p className="font-medium text-amber-900">Not saved: edit conflict</p>
      <p className="mt-0.5 text-xs text-amber-900" data-testid="conflict-message">
        {message}
      </p>
      {newerVersion !== null && differing.length > 0 ? (
        <div className="mt-2 space-y-1.5">
          <p className="text-2xs text-slate-600">
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
          reviewing ? (
            <section className="mt-2 rounded border border-indigo-200 bg-white p-2" data-testid="reapply-preview">
              <p className="text-xs text-slate-800">
                Your edit merged onto version {newerVersion}, as it would be saved as version {newerVersion + 1} (
                <span className="text-red-800">−</span> version {newerVersion},{" "}
                <span className="text-emerald-800">+</span> merged):
              </p>
              {reapply.preview
                .filter((f) => f.mine !== f.theirs)
                .map((f) => (
                  <div key={f.field} className="mt-1" data-field={f.field}>
                    <p className="text-[10px] text-slate-500 uppercase tracking-wide">{f.field}</p>
                    <TextDiff ops={diffOf(f)} by={f.by} />
                  </div>
                ))}
              <div className="mt-2 flex flex-wrap gap-2">
                <Button
                  variant="primary"
                  className="border border-indigo-600"
                  disabled={reapply.pending}
                  onClick={reapply.run}
                  data-testid="reapply-save"
                >
                  {reapply.pending ? "Saving…" : `Save the merged edit as version ${newerVersion + 1}`}
                </Button>
                <Button onClick={() => setReviewing(false)}>Back</Button>
              </div>
            </section>
          ) : (
            <Button
              variant="bare"
              type="button"
              className="mt-2 mr-2 rounded border border-indigo-600 bg-white px-2.5 py-1 font-medium text-xs text-indigo-800 hover:bg-indigo-50"
              onClick={() => setReviewing(true)}
              data-testid="reapply-edit"
            >
              Re-apply my edit on version {newerVersion}…
            </Button>
          )
        ) : (
          <p className="mt-2 text-xs text-amber-900" data-testid="reapply-blocked">
            Your edit and version {newerVersion} both changed {reapply.overlap.join(", ")}: it cannot be re-applied
            field by field.
          </p>
        )
      ) : null}
      {newerVersion !== null ? (
        <Button
          variant="bare"
          type="button"
          className="mt-2 rounded border border-amber-400 bg-white px-2.5 py-1 font-medium text-xs text-amber-900 hover:bg-amber-100"
          onClick={onLoadNewer}
          data-testid="load-newer"
        >
          Load version {newerVersion} (discards your edit)
        </Button>
      ) : null}
    </div>
  );
}
