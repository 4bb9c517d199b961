"use client";

import { useState } from "react";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Check } from "@/components/ui/input";
import type { RerunContext } from "@/lib/contracts/rerun";
import type { Draft, ModelEdit as Edit } from "@/lib/rerun/draft";

/**
 * "Save these changes": lists exactly what would be saved, each as its new version. A staleness
 * override is permanent (the model counts as fresh, or stale, whatever memories arrive, until
 * someone clears it), so it is saved only when its box is ticked; nothing is ticked for you.
 */
export function SaveChangesDialog({
  open,
  onOpenChange,
  data,
  draft,
  edits,
  skillChanged,
  pending,
  error,
  onSave,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  data: RerunContext;
  draft: Draft;
  edits: Edit[];
  skillChanged: boolean;
  pending: boolean;
  error?: string;
  onSave: (keepOverride: ReadonlySet<string>) => void;
}) {
  const [keep, setKeep] = useState<ReadonlySet<string>>(new Set());
  const byId = new Map(data.mentalModels.map((m) => [m.id, m]));
  const contentEdits = edits.filter((e) => e.content !== undefined);
  const overrideEdits = edits.filter((e) => e.staleOverride !== undefined);
  const count = (skillChanged ? 1 : 0) + contentEdits.length + overrideEdits.filter((e) => keep.has(e.id)).length;
  const toggle = (id: string) =>
    setKeep((now) => {
      const next = new Set(now);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  return (
    <ConfirmDialog
      open={open}
      onOpenChange={(next) => {
        if (!next) setKeep(new Set());
        onOpenChange(next);
      }}
      title="Save these changes?"
      description="Each change below becomes a new version that every later run reads. The re-run itself saved nothing."
      confirmLabel={
        pending ? "Saving…" : count === 0 ? "Nothing to save" : `Save ${count} change${count > 1 ? "s" : ""}`
      }
      pending={pending || count === 0}
      onConfirm={() => onSave(keep)}
      testId="save-changes-dialog"
      confirmTestId="confirm-save-changes"
      tone="primary"
      error={
        error ? (
          <p className="mt-2 text-xs text-red-700" role="alert">
            {error}
          </p>
        ) : null
      }
    >
      <ul className="mt-2 flex flex-col gap-1.5 text-xs text-slate-800" data-testid="save-changes-list">
        {skillChanged && data.skill ? (
          <li data-testid="save-change" data-kind="skill">
            Skill <strong>{data.skill.name}</strong>: mission and disposition as in the drawer → v
            {(data.skill.currentVersion ?? data.skill.version) + 1}
          </li>
        ) : null}
        {contentEdits.map((e) => (
          <li key={`content-${e.id}`} data-testid="save-change" data-kind="content" data-model-id={e.id}>
            Mental model <strong>{byId.get(e.id)?.name ?? e.id}</strong>: content → v{e.expectedVersion + 1}
          </li>
        ))}
        {overrideEdits.map((e) => {
          const name = byId.get(e.id)?.name ?? e.id;
          const choice = draft.models[e.id]?.override ?? "none";
          return (
            <li key={`override-${e.id}`} data-testid="save-change" data-kind="override" data-model-id={e.id}>
              <label className="flex items-start gap-1.5">
                <Check
                  type="checkbox"
                  className="mt-0.5"
                  checked={keep.has(e.id)}
                  onChange={() => toggle(e.id)}
                  data-testid="keep-override"
                />
                <span>
                  {choice === "none" ? (
                    <>
                      Also clear the staleness override on <strong>{name}</strong> (its staleness is computed again).
                    </>
                  ) : (
                    <>
                      Also keep the override <strong>{choice}</strong> on <strong>{name}</strong>. It is permanent:{" "}
                      {name} counts as {choice} whatever new memories arrive, until someone clears it.
                    </>
                  )}
                </span>
              </label>
            </li>
          );
        })}
      </ul>
    </ConfirmDialog>
  );
}
