"use client";

import { createContext, type ReactNode, useContext, useEffect, useMemo, useState } from "react";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

/** Whether an editor on this page holds unsaved changes; actions that replace the version ask first. */
const UnsavedEditContext = createContext<{ dirty: boolean; setDirty: (dirty: boolean) => void } | null>(null);

/** Shares the editor's unsaved state with the page's other actions (Restore, Accept a refresh). */
export function UnsavedEditProvider({ children }: { children: ReactNode }) {
  const [dirty, setDirty] = useState(false);
  const value = useMemo(() => ({ dirty, setDirty }), [dirty]);
  return <UnsavedEditContext.Provider value={value}>{children}</UnsavedEditContext.Provider>;
}

/**
 * For an action that replaces the version being edited: runs it at once when the editor has no
 * unsaved changes, else asks first (the edit stays as a draft the new version's editor offers).
 */
export function useConfirmOverUnsaved(verb: string) {
  const dirty = useContext(UnsavedEditContext)?.dirty ?? false;
  const [pending, setPending] = useState<null | (() => void)>(null);
  const ask = (run: () => void) => {
    if (dirty) setPending(() => run);
    else run();
  };
  const dialog = (
    <ConfirmDialog
      open={pending !== null}
      onOpenChange={(open) => {
        if (!open) setPending(null);
      }}
      title="You have unsaved edits"
      description={`${verb} replaces them; your edit stays as a draft you can restore.`}
      confirmLabel={verb}
      onConfirm={() => {
        const run = pending;
        setPending(null);
        run?.();
      }}
      testId="replace-unsaved-dialog"
      confirmTestId="confirm-replace-unsaved"
    />
  );
  return { ask, dialog };
}

/** An editor says whether it holds unsaved changes, for the page's other actions (see useConfirmOverUnsaved). */
export function useReportUnsaved(dirty: boolean): void {
  const setDirty = useContext(UnsavedEditContext)?.setDirty;
  useEffect(() => {
    if (!setDirty) return;
    setDirty(dirty);
    return () => setDirty(false);
  }, [dirty, setDirty]);
}
