"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { formatTime } from "./format-time";

const GUARD = "__unsavedGuard";
const LEAVE_TITLE = "Leave with unsaved changes?";
const LEAVE_TEXT = "Your edit is not saved. It stays as a draft in this browser, but leaving now closes the editor.";

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
      if (state && typeof state === "object" && GUARD in state) return;
      window.history.pushState({ ...(state as object | null), [GUARD]: true }, "", window.location.href);
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

  const leave = () => {
    const target = pending;
    disarmed.current = true;
    setPending(null);
    if (target?.kind === "link") router.push(target.href);
    // Past the guard entry re-added on popstate and this page's own entry.
    else if (target?.kind === "back") window.history.go(-2);
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

interface StoredDraft<T> {
  value: T;
  savedAt: string;
  /** The run a "Try" started with this draft (the editor restores it at once on return). */
  triedIn?: string;
}

const storageKey = (entity: string, baseVersion: number) => `reflect-inspector:draft:${entity}:v${baseVersion}`;

function readDraft<T>(key: string): StoredDraft<T> | null {
  try {
    const raw = window.localStorage.getItem(key);
    const parsed = raw ? (JSON.parse(raw) as StoredDraft<T>) : null;
    return parsed && typeof parsed.savedAt === "string" && "value" in parsed ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * Keeps an unsaved edit in localStorage, keyed by the entity and the version it was based on, so
 * it survives a reload: the editor offers it back ("restore draft" / "discard draft"). A draft a
 * "Try" ran is restored at once when the editor opens again (Back from the run).
 */
export function useDraft<T>({
  entity,
  baseVersion,
  value,
  dirty,
  apply,
}: {
  entity: string;
  baseVersion: number;
  value: T;
  dirty: boolean;
  apply: (value: T) => void;
}) {
  const key = storageKey(entity, baseVersion);
  const serialized = JSON.stringify(value);
  const initial = useRef(serialized);
  const touched = useRef(false);
  const triedIn = useRef<string | undefined>(undefined);
  const [offer, setOffer] = useState<StoredDraft<T> | null>(null);
  const [restoredFrom, setRestoredFrom] = useState<string | null>(null);
  const applyRef = useRef(apply);
  applyRef.current = apply;

  useEffect(() => {
    const stored = readDraft<T>(key);
    if (!stored) return;
    if (stored.triedIn) {
      applyRef.current(stored.value);
      triedIn.current = stored.triedIn;
      setRestoredFrom(stored.triedIn);
    } else setOffer(stored);
  }, [key]);

  useEffect(() => {
    if (!touched.current && serialized === initial.current) return;
    touched.current = true;
    setOffer(null);
    try {
      if (dirty) {
        const stored: StoredDraft<unknown> = {
          value: JSON.parse(serialized),
          savedAt: new Date().toISOString(),
          triedIn: triedIn.current,
        };
        window.localStorage.setItem(key, JSON.stringify(stored));
      } else window.localStorage.removeItem(key);
    } catch {
      // storage full or disabled: the edit stays in the form only
    }
  }, [key, serialized, dirty]);

  const discardStored = () => {
    try {
      window.localStorage.removeItem(key);
    } catch {
      // nothing stored
    }
  };

  return {
    offer,
    restoredFrom,
    restore: () => {
      if (offer) applyRef.current(offer.value);
      setOffer(null);
    },
    discard: () => {
      discardStored();
      setOffer(null);
    },
    /** After a save: the draft is in the new version now. */
    clear: discardStored,
    /** Before "Try" navigates to the run: the draft comes back at once on return. */
    markTried: (runId: string) => {
      triedIn.current = runId;
      try {
        window.localStorage.setItem(
          key,
          JSON.stringify({ value: JSON.parse(serialized), savedAt: new Date().toISOString(), triedIn: runId }),
        );
      } catch {
        // storage disabled
      }
    },
  };
}

/** The offer of a draft found in this browser, or the note that a tried draft was restored. */
export function DraftNotice({
  draft,
}: {
  draft: { offer: { savedAt: string } | null; restoredFrom: string | null; restore: () => void; discard: () => void };
}) {
  if (draft.offer) {
    return (
      <div
        className="flex flex-wrap items-center gap-2 rounded border border-indigo-200 bg-indigo-50 px-3 py-2 text-[12px] text-indigo-900"
        role="status"
        data-testid="draft-offer"
      >
        <span>An unsaved draft of this version from {formatTime(draft.offer.savedAt)} is in this browser.</span>
        <button
          type="button"
          onClick={draft.restore}
          className="rounded border border-indigo-400 bg-white px-2 py-0.5 font-medium hover:bg-indigo-100"
          data-testid="restore-draft"
        >
          Restore draft
        </button>
        <button
          type="button"
          onClick={draft.discard}
          className="rounded border border-slate-300 bg-white px-2 py-0.5 text-slate-800 hover:bg-slate-50"
          data-testid="discard-draft"
        >
          Discard draft
        </button>
      </div>
    );
  }
  if (draft.restoredFrom) {
    return (
      <p
        className="rounded border border-indigo-200 bg-indigo-50 px-3 py-2 text-[12px] text-indigo-900"
        role="status"
        data-testid="draft-restored"
      >
        Your unsaved draft is back (you tried it in run{" "}
        <a className="font-mono underline" href={`/runs/${draft.restoredFrom}`}>
          {draft.restoredFrom}
        </a>
        ). It is not saved yet.
      </p>
    );
  }
  return null;
}
