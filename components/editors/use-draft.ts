"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { isTabOpen, readDrafts, removeDraft, tabId, useTabHeartbeat, writeDraft } from "./draft-storage";
import { pickDraft, type StoredDraft } from "./drafts";
import { useReportUnsaved } from "./unsaved-edit";

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
  useReportUnsaved(dirty);
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
      writeDraft(entity, stored);
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
      else removeDraft(entity, tab);
    } catch {
      // storage full or disabled: the edit stays in the form only
    }
  }, [entity, tab, serialized, dirty, write]);

  const remove = (owner: string | null) => removeDraft(entity, owner);

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
