"use client";

import * as DialogPrimitive from "@radix-ui/react-dialog";
import type { ComponentProps, ReactNode } from "react";

/**
 * A panel that slides in from the right, on Radix's dialog: Escape closes it, focus moves in when
 * it opens and back to what opened it when it closes. Modal (the default) also traps focus and
 * hides the page behind it from assistive technology; a non-modal drawer leaves the page usable.
 */
export const Drawer = DialogPrimitive.Root;
export const DrawerTrigger = DialogPrimitive.Trigger;
export const DrawerClose = DialogPrimitive.Close;
export const DrawerTitle = DialogPrimitive.Title;

export function DrawerContent({
  children,
  modal = true,
  width = "max-w-xl",
  className = "",
  ...props
}: ComponentProps<typeof DialogPrimitive.Content> & {
  children: ReactNode;
  /** Must match the Drawer's `modal`; a modal drawer dims the page behind it. */
  modal?: boolean;
  width?: string;
}) {
  return (
    <DialogPrimitive.Portal>
      {modal && <DialogPrimitive.Overlay className="fixed inset-0 z-40 bg-slate-900/30" />}
      <DialogPrimitive.Content
        // The drawers say what they are in their title; a description would repeat it.
        aria-describedby={undefined}
        className={`fixed inset-y-0 right-0 z-40 flex h-full w-full ${width} flex-col overflow-hidden border-l border-slate-300 bg-white shadow-xl focus:outline-none ${className}`}
        {...props}
      >
        {children}
      </DialogPrimitive.Content>
    </DialogPrimitive.Portal>
  );
}
