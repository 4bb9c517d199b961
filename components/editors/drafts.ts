/** Stored drafts of an editor: what one holds and which one the editor offers. */

/** An unsaved edit as stored: per entity and per browser tab, with the version it was based on. */
export interface StoredDraft<T> {
  baseVersion: number;
  fields: T;
  tabId: string;
  savedAt: string;
  /** The run a "Try" started with this draft (the editor restores it at once on return). */
  triedIn?: string;
}

/** The draft to offer: this tab's own, else the newest from any tab (at any base version). */
export function pickDraft<T>(drafts: StoredDraft<T>[], tab: string): StoredDraft<T> | null {
  const own = drafts.find((d) => d.tabId === tab);
  if (own) return own;
  return drafts.reduce<StoredDraft<T> | null>((best, d) => (!best || d.savedAt > best.savedAt ? d : best), null);
}
