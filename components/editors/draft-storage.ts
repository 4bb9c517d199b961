"use client";

/**
 * Where an editor's unsaved drafts live in the browser: localStorage, one entry per entity and tab
 * (so two tabs never overwrite each other's edit), a heartbeat per open editor tab (so no other tab
 * offers, or discards, a draft still being edited), and this tab's id in sessionStorage. Storage
 * that is full or disabled keeps nothing, and says nothing: the edit stays in the form.
 */
import { useEffect } from "react";
import { isDraft, type StoredDraft, TAB_BEAT_MS, tabStillOpen } from "./drafts";

const DRAFT_PREFIX = "reflect-inspector:draft:";
const TAB_KEY = "reflect-inspector:tab-id";
export const draftKey = (entity: string, tabId: string) => `${DRAFT_PREFIX}${entity}:tab:${tabId}`;
const TAB_BEAT_PREFIX = "reflect-inspector:tab-open:";

/** Whether another editor tab with this id is open now (its heartbeat is recent). */
export function isTabOpen(id: string): boolean {
  try {
    const beat = window.localStorage.getItem(`${TAB_BEAT_PREFIX}${id}`);
    return tabStillOpen(beat === null ? null : Number(beat), Date.now());
  } catch {
    return false;
  }
}

/** While an editor is open, its tab beats in localStorage, so no other tab offers (or discards) its draft. */
export function useTabHeartbeat(tab: string | null) {
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
export function tabId(): string {
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

/** Every stored draft of one entity, from any tab. */
export function readDrafts<T>(entity: string): StoredDraft<T>[] {
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

/** Stores this tab's draft of an entity (throws when storage is full or disabled). */
export function writeDraft(entity: string, draft: StoredDraft<unknown>): void {
  window.localStorage.setItem(draftKey(entity, draft.tabId), JSON.stringify(draft));
}

/** Forgets a tab's draft of an entity (nothing when storage is disabled). */
export function removeDraft(entity: string, owner: string | null): void {
  try {
    if (owner) window.localStorage.removeItem(draftKey(entity, owner));
  } catch {
    // nothing stored
  }
}
