"use client";

import { useRouter } from "next/navigation";
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { pickDraft, type StoredDraft, TAB_BEAT_MS, tabStillOpen } from "./drafts";
import { formatTime } from "./format-time";

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

const DRAFT_PREFIX = "reflect-inspector:draft:";
const TAB_KEY = "reflect-inspector:tab-id";
const draftKey = (entity: string, tabId: string) => `${DRAFT_PREFIX}${entity}:tab:${tabId}`;
const TAB_BEAT_PREFIX = "reflect-inspector:tab-open:";

/** Whether another editor tab with this id is open now (its heartbeat is recent). */
function isTabOpen(id: string): boolean {
  try {
    const beat = window.localStorage.getItem(`${TAB_BEAT_PREFIX}${id}`);
    return tabStillOpen(beat === null ? null : Number(beat), Date.now());
  } catch {
    return false;
  }
}

/** While an editor is open, its tab beats in localStorage, so no other tab offers (or discards) its draft. */
function useTabHeartbeat(tab: string | null) {
  useEffect(() => {
    if (!tab) return;
    const key = `${TAB_BEAT_PREFIX}${tab}`;
    const beat = () => {
      try {
        window.localStorage.setItem(key, String(Date.now()));
      } catch {
        // storage disabled: no draft is kept either
      }
    };
    const gone = () => {
      try {
        window.localStorage.removeItem(key);
      } catch {
        // nothing stored
      }
    };
    beat();
    const timer = window.setInterval(beat, TAB_BEAT_MS);
    window.addEventListener("pagehide", gone);
    return () => {
      window.clearInterval(timer);
      window.removeEventListener("pagehide", gone);
      gone();
    };
  }, [tab]);
}

/** This tab's id: kept in sessionStorage, so it survives a reload of the tab but not a new tab. */
function tabId(): string {
  try {
    const known = window.sessionStorage.getItem(TAB_KEY);
    if (known) return known;
    const made = crypto.randomUUID();
    window.sessionStorage.setItem(TAB_KEY, made);
    return made;
  } catch {
    return "no-session-storage";
  }
}

function isDraft(v: unknown): v is StoredDraft<unknown> {
  if (!v || typeof v !== "object") return false;
  const d = v as Record<string, unknown>;
  return (
    typeof d.savedAt === "string" && typeof d.tabId === "string" && typeof d.baseVersion === "number" && "fields" in d
  );
}

/** Every stored draft of one entity, from any tab. */
function readDrafts<T>(entity: string): StoredDraft<T>[] {
  const found: StoredDraft<T>[] = [];
  try {
    const prefix = `${DRAFT_PREFIX}${entity}:tab:`;
    for (let i = 0; i < window.localStorage.length; i++) {
      const key = window.localStorage.key(i);
      if (!key?.startsWith(prefix)) continue;
      try {
        const parsed: unknown = JSON.parse(window.localStorage.getItem(key) ?? "null");
        if (isDraft(parsed)) found.push(parsed as StoredDraft<T>);
      } catch {
        // a broken entry is not a draft
      }
    }
  } catch {
    // storage disabled: no drafts
  }
  return found;
}

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

/**
 * Keeps an unsaved edit in localStorage, keyed by the entity and this browser tab (so two tabs on
 * one model never overwrite or delete each other's edit, and a tab still open is never offered
 * another's), so it survives a reload and a new
 * version: the editor offers it back ("restore draft" / "discard draft"), saying which version it
 * was based on when that is not the current one. A draft a "Try" ran is restored at once when the
 * editor opens again (Back from the run).
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
  const serialized = JSON.stringify(value);
  const initial = useRef(serialized);
  const touched = useRef(false);
  const triedIn = useRef<string | undefined>(undefined);
  const [tab, setTab] = useState<string | null>(null);
  const [offer, setOffer] = useState<StoredDraft<T> | null>(null);
  const [restoredFrom, setRestoredFrom] = useState<string | null>(null);
  const applyRef = useRef(apply);
  applyRef.current = apply;
  const setDirty = useContext(UnsavedEditContext)?.setDirty;

  useEffect(() => {
    if (!setDirty) return;
    setDirty(dirty);
    return () => setDirty(false);
  }, [dirty, setDirty]);

  useTabHeartbeat(tab);
  useEffect(() => {
    const me = tabId();
    setTab(me);
    const stored = pickDraft(readDrafts<T>(entity), me, isTabOpen);
    if (!stored) return;
    if (stored.triedIn && stored.tabId === me && stored.baseVersion === baseVersion) {
      applyRef.current(stored.fields);
      triedIn.current = stored.triedIn;
      setRestoredFrom(stored.triedIn);
    } else setOffer(stored);
  }, [entity, baseVersion]);

  const write = useCallback(
    (fields: string, tried: string | undefined) => {
      if (!tab) return;
      const stored: StoredDraft<unknown> = {
        baseVersion,
        fields: JSON.parse(fields),
        tabId: tab,
        savedAt: new Date().toISOString(),
        triedIn: tried,
      };
      window.localStorage.setItem(draftKey(entity, tab), JSON.stringify(stored));
    },
    [entity, baseVersion, tab],
  );

  useEffect(() => {
    if (!tab) return;
    if (!touched.current && serialized === initial.current) return;
    touched.current = true;
    setOffer(null);
    try {
      if (dirty) write(serialized, triedIn.current);
      else window.localStorage.removeItem(draftKey(entity, tab));
    } catch {
      // storage full or disabled: the edit stays in the form only
    }
  }, [entity, tab, serialized, dirty, write]);

  const remove = (owner: string | null) => {
    try {
      if (owner) window.localStorage.removeItem(draftKey(entity, owner));
    } catch {
      // nothing stored
    }
  };

  return {
    offer,
    currentVersion: baseVersion,
    restoredFrom,
    restore: () => {
      if (offer) applyRef.current(offer.fields);
      setOffer(null);
    },
    /**
     * The offered draft was declined: it is forgotten, whichever tab wrote it (else a draft of a
     * closed tab would be offered on every visit), and so is this tab's. A tab still editing it
     * keeps its edit in the form and stores it again on its next change.
     */
    discard: () => {
      remove(tab);
      remove(offer?.tabId ?? null);
      setOffer(null);
    },
    /** After a save: the draft is in the new version now. Only this tab's draft: another tab's edit stays. */
    clear: () => remove(tab),
    /** Before "Try" navigates to the run: the draft comes back at once on return. */
    markTried: (runId: string) => {
      triedIn.current = runId;
      try {
        write(serialized, runId);
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
  draft: {
    offer: { savedAt: string; baseVersion: number } | null;
    currentVersion: number;
    restoredFrom: string | null;
    restore: () => void;
    discard: () => void;
  };
}) {
  if (draft.offer) {
    return (
      <div
        className="flex flex-wrap items-center gap-2 rounded border border-indigo-200 bg-indigo-50 px-3 py-2 text-xs text-indigo-900"
        role="status"
        data-testid="draft-offer"
      >
        <span>
          {draft.offer.baseVersion === draft.currentVersion
            ? "An unsaved draft of this version"
            : `An unsaved draft based on v${draft.offer.baseVersion}`}{" "}
          from {formatTime(draft.offer.savedAt)} is in this browser.
        </span>
        <Button
          variant="bare"
          type="button"
          onClick={draft.restore}
          className="rounded border border-indigo-400 bg-white px-2 py-0.5 font-medium hover:bg-indigo-100"
          data-testid="restore-draft"
        >
          Restore draft
        </Button>
        <Button size="md" onClick={draft.discard} className="px-2 py-0.5" data-testid="discard-draft">
          Discard draft
        </Button>
      </div>
    );
  }
  if (draft.restoredFrom) {
    return (
      <p
        className="rounded border border-indigo-200 bg-indigo-50 px-3 py-2 text-xs text-indigo-900"
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
