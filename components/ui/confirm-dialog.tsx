"use client";

import * as AlertDialog from "@radix-ui/react-alert-dialog";
import type { ReactNode } from "react";
import { Button, buttonClass } from "./button";

/**
 * A confirmation before something that cannot be undone, on Radix's alert dialog: focus starts on
 * Cancel and stays inside, Escape cancels, and focus returns to the button that opened it.
 */
export function ConfirmDialog({
  trigger,
  title,
  description,
  error,
  confirmLabel,
  pending,
  onConfirm,
  open,
  onOpenChange,
  testId,
  confirmTestId,
  children,
  tone = "danger",
}: {
  /** The button that opens the dialog (rendered as is); none for a dialog opened from code. */
  trigger?: ReactNode;
  title: ReactNode;
  description: ReactNode;
  error?: ReactNode;
  confirmLabel: string;
  pending?: boolean;
  /** Runs the action; the dialog stays open until the caller closes it (so a failure can be shown). */
  onConfirm: () => void;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  testId?: string;
  confirmTestId?: string;
  /** More than a sentence (a list, choices), under the description. */
  children?: ReactNode;
  /** `danger` (red) for what cannot be undone, `primary` for a save. */
  tone?: "danger" | "primary";
}) {
  return (
    <AlertDialog.Root open={open} onOpenChange={onOpenChange}>
      {trigger ? <AlertDialog.Trigger asChild>{trigger}</AlertDialog.Trigger> : null}
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-40 bg-slate-900/30" />
        <AlertDialog.Content
          className="-translate-x-1/2 -translate-y-1/2 fixed top-1/2 left-1/2 z-40 w-[26rem] max-w-[calc(100vw-2rem)] rounded border border-slate-300 bg-white p-4 shadow-lg focus:outline-none"
          data-testid={testId}
        >
          <AlertDialog.Title className="font-semibold text-[14px]">{title}</AlertDialog.Title>
          <AlertDialog.Description className="mt-1 text-xs text-slate-600">{description}</AlertDialog.Description>
          {children}
          {error}
          <div className="mt-3 flex justify-end gap-2">
            <AlertDialog.Cancel className={buttonClass("secondary", "sm", "px-3 text-slate-900")}>
              Cancel
            </AlertDialog.Cancel>
            <Button
              variant={tone === "danger" ? "danger" : "primary"}
              busy={pending}
              onClick={onConfirm}
              className="px-3"
              data-testid={confirmTestId}
            >
              {confirmLabel}
            </Button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
