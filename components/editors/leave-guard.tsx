"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

const GUARD = "__unsavedGuard";
const LEAVE_TITLE = "Leave with unsaved changes?";
const LEAVE_TEXT = "Your edit is not saved. It stays as a draft in this browser, but leaving now closes the editor.";

const isGuardEntry = (state: unknown) => typeof state === "object" && state !== null && GUARD in state;

/**
 * The page whose guard entry is still in the history (the router may replace the entry's state,
 * so it is remembered here, across editors remounted on a new version); null when none is.
 */
let guardEntryOf: string | null = null;

/**
 * Asks before unsaved changes are left behind: a reload or closing the tab (the browser's own
 * prompt), a click on an in-app link, and Back (an extra history entry catches it). Returns the
 * dialog to render.
 */
export function useUnsavedGuard(dirty: boolean) {
  const router = useRouter();
  const [pending, setPending] = useState<null | { kind: "link"; href: string } | { kind: "back" }>(null);
  const disarmed = useRef(false);

  useEffect(() => {
    if (!dirty) return;
    disarmed.current = false;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (disarmed.current) return;
      e.preventDefault();
      e.returnValue = "";
    };
    const onClick = (e: MouseEvent) => {
      if (disarmed.current || e.defaultPrevented || e.button !== 0) return;
      if (e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = e.target instanceof Element ? e.target.closest("a[href]") : null;
      if (!(a instanceof HTMLAnchorElement) || a.target === "_blank" || a.hasAttribute("download")) return;
      const url = new URL(a.href, window.location.href);
      if (url.origin !== window.location.origin) return;
      if (url.pathname === window.location.pathname && url.search === window.location.search) return;
      e.preventDefault();
      e.stopPropagation();
      setPending({ kind: "link", href: `${url.pathname}${url.search}${url.hash}` });
    };
    // Back: a duplicate entry of this page (marked, so it is added once); leaving it (popstate)
    // asks, and staying re-adds it.
    const arm = () => {
      const state: unknown = window.history.state;
      if (isGuardEntry(state)) return;
      window.history.pushState({ ...(state as object | null), [GUARD]: true }, "", window.location.href);
      guardEntryOf = window.location.href;
    };
    arm();
    const onPopState = () => {
      if (disarmed.current) return;
      setPending({ kind: "back" });
      arm();
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    document.addEventListener("click", onClick, true);
    window.addEventListener("popstate", onPopState);
    return () => {
      window.removeEventListener("beforeunload", onBeforeUnload);
      document.removeEventListener("click", onClick, true);
      window.removeEventListener("popstate", onPopState);
    };
  }, [dirty]);

  // Saved or reverted: the guard's duplicate entry of this page stays in the history. The Back
  // that leaves it lands on this page's own entry, so it goes on back: one Back leaves the page.
  useEffect(() => {
    const href = window.location.href;
    if (dirty || guardEntryOf !== href) return;
    const onPopState = () => {
      window.removeEventListener("popstate", onPopState);
      guardEntryOf = null;
      if (window.location.href === href) window.history.back();
    };
    window.addEventListener("popstate", onPopState);
    return () => window.removeEventListener("popstate", onPopState);
  }, [dirty]);

  const leave = () => {
    const target = pending;
    disarmed.current = true;
    setPending(null);
    if (target?.kind === "link") router.push(target.href);
    // Past the guard entry re-added on popstate and this page's own entry.
    else if (target?.kind === "back") {
      guardEntryOf = null;
      window.history.go(-2);
    }
  };
  /** Lets a deliberate navigation (a save that moves on, "Try") through without asking. */
  const allow = useCallback(() => {
    disarmed.current = true;
  }, []);

  const dialog = (
    <ConfirmDialog
      open={pending !== null}
      onOpenChange={(open) => {
        if (!open) setPending(null);
      }}
      title={LEAVE_TITLE}
      description={LEAVE_TEXT}
      confirmLabel="Leave"
      onConfirm={leave}
      testId="unsaved-dialog"
      confirmTestId="confirm-leave"
    />
  );
  return { dialog, allow };
}
