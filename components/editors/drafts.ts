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

/**
 * The draft to offer: this tab's own, else the newest left by a tab that is no longer open (at any
 * base version). A draft of a tab still open is that tab's edit in progress: never offered
 * elsewhere, so it cannot be restored twice or discarded from under it.
 */
export function pickDraft<T>(
  drafts: StoredDraft<T>[],
  tab: string,
  isOpen: (tabId: string) => boolean = () => false,
): StoredDraft<T> | null {
  const own = drafts.find((d) => d.tabId === tab);
  if (own) return own;
  return drafts
    .filter((d) => !isOpen(d.tabId))
    .reduce<StoredDraft<T> | null>((best, d) => (!best || d.savedAt > best.savedAt ? d : best), null);
}

/** How often an open editor tab says it is still open, and when silence means it was closed. */
export const TAB_BEAT_MS = 2_000;
export const TAB_GONE_AFTER_MS = 3 * TAB_BEAT_MS;

/** Whether a tab's last heartbeat (ms since the epoch, or null) says it is still open at `now`. */
export function tabStillOpen(lastBeat: number | null, now: number): boolean {
  return lastBeat !== null && now - lastBeat < TAB_GONE_AFTER_MS;
}

/** Whether a stored value is a draft (anything else under a draft's key is ignored). */
export function isDraft(v: unknown): v is StoredDraft<unknown> {
  if (!v || typeof v !== "object") return false;
  const d = v as Record<string, unknown>;
  return (
    typeof d.savedAt === "string" && typeof d.tabId === "string" && typeof d.baseVersion === "number" && "fields" in d
  );
}
