"use client";

import type { FormEvent, ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { type ConflictField, ConflictNotice } from "./conflict-notice";
import { DraftNotice } from "./draft-notice";
import { useUnsavedGuard } from "./leave-guard";
import { useDraft } from "./use-draft";

/**
 * The shell the versioned editors (mental model, skill) share: a save makes a new version; a save
 * after someone else's is refused as a conflict and shown field by field against the newer
 * version; an unsaved edit is kept as a draft in this browser and guarded against leaving. Each
 * editor brings its fields (`F`, the form's values) and a spec of how each one reads in the
 * conflict list; the shell does the rest.
 */

/** One field in a conflict list: its label, how it reads as text, and whether it diffs by lines or words. */
export interface VersionedField<F> {
  label: string;
  text: (fields: F) => string;
  by: "lines" | "words";
}

/** The conflict list: each field of `mine` (the edit) against `theirs` (the newer version). */
export function conflictFields<F>(spec: readonly VersionedField<F>[], mine: F, theirs: F): ConflictField[] {
  return spec.map((f) => ({ field: f.label, mine: f.text(mine), theirs: f.text(theirs), by: f.by }));
}

/** The leave guard and the browser draft of one versioned entity's edit. */
export function useVersionedEditor<F>({
  entity,
  baseVersion,
  fields,
  dirty,
  apply,
}: {
  /** The draft's key: kind, bank and id (or "new"). */
  entity: string;
  baseVersion: number;
  fields: F;
  dirty: boolean;
  apply: (fields: F) => void;
}) {
  const guard = useUnsavedGuard(dirty);
  const draft = useDraft({ entity, baseVersion, value: fields, dirty, apply });
  return {
    guard,
    draft,
    /** After a save: the draft is in the new version, and the page may move on without asking. */
    settled: () => {
      draft.clear();
      guard.allow();
    },
  };
}

/** A refused save: the message, and — once the newer version is known — its fields against the edit. */
export interface VersionConflict<F> {
  message: string;
  /** The newer version's fields and number; null until the conflict names it. */
  newer: { version: number; fields: F } | null;
  onLoadNewer: () => void;
  reapply?: Parameters<typeof ConflictNotice>[0]["reapply"];
}

export function VersionedEditorForm<F>({
  testId,
  editor,
  spec,
  mine,
  conflict,
  onSubmit,
  children,
}: {
  testId: string;
  editor: ReturnType<typeof useVersionedEditor<F>>;
  spec: readonly VersionedField<F>[];
  /** The form's values now. */
  mine: F;
  conflict: VersionConflict<F> | null;
  onSubmit: () => void;
  children: ReactNode;
}) {
  return (
    <form
      className="space-y-3"
      data-testid={testId}
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {editor.guard.dialog}
      <DraftNotice draft={editor.draft} />
      {conflict ? (
        <ConflictNotice
          message={conflict.message}
          newerVersion={conflict.newer?.version ?? null}
          fields={conflict.newer ? conflictFields(spec, mine, conflict.newer.fields) : []}
          onLoadNewer={conflict.onLoadNewer}
          reapply={conflict.reapply}
        />
      ) : null}
      {children}
    </form>
  );
}

/** "Save as version N+1" (or "Create"): waits for a change, and says why when blocked. */
export function SaveVersionButton({
  pending,
  dirty,
  blocked,
  blockedId,
  version,
  title,
  testId,
}: {
  pending: boolean;
  dirty: boolean;
  /** Why it cannot save now (over a limit, superseded), described by `blockedId`; null when it can. */
  blocked: string | null;
  blockedId: string;
  /** The version being edited; null for a new entity. */
  version: number | null;
  title?: string;
  testId: string;
}) {
  return (
    <Button
      variant="primary"
      size="md"
      type="submit"
      disabled={pending || !dirty || blocked !== null}
      aria-describedby={blocked ? blockedId : undefined}
      title={title}
      className="px-4"
      data-testid={testId}
    >
      {pending ? "Saving…" : version === null ? "Create" : `Save as version ${version + 1}`}
    </Button>
  );
}
