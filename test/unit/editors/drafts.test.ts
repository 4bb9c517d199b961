import { describe, expect, it } from "vitest";
import { isDraft, pickDraft, type StoredDraft, TAB_BEAT_MS, tabStillOpen } from "@/components/editors/drafts";

const draft = (tabId: string, savedAt: string, baseVersion = 1): StoredDraft<{ content: string }> => ({
  baseVersion,
  fields: { content: `${tabId} at ${savedAt}` },
  tabId,
  savedAt,
});

describe("pickDraft", () => {
  it("offers nothing when no draft is stored", () => {
    expect(pickDraft([], "tab-a")).toBeNull();
  });

  it("offers this tab's own draft first, even when another tab's is newer", () => {
    const own = draft("tab-a", "2026-11-23T10:00:00.000Z", 2);
    const newer = draft("tab-b", "2026-11-23T11:00:00.000Z", 3);
    expect(pickDraft([newer, own], "tab-a")).toBe(own);
  });

  it("else offers the newest draft of any tab, at any base version", () => {
    const older = draft("tab-b", "2026-11-23T10:00:00.000Z", 3);
    const newest = draft("tab-c", "2026-11-23T12:00:00.000Z", 1);
    const middle = draft("tab-d", "2026-11-23T11:00:00.000Z", 2);
    expect(pickDraft([older, newest, middle], "tab-a")).toBe(newest);
  });
});

describe("pickDraft with tabs still open", () => {
  it("never offers the draft of a tab that is still open, only of one that was closed", () => {
    const open = draft("tab-b", "2026-11-23T12:00:00.000Z");
    const closed = draft("tab-c", "2026-11-23T10:00:00.000Z");
    const isOpen = (t: string) => t === "tab-b";
    expect(pickDraft([open, closed], "tab-a", isOpen)).toBe(closed);
    expect(pickDraft([open], "tab-a", isOpen)).toBeNull();
    // A tab's own draft is its own, open or not.
    expect(pickDraft([open], "tab-b", isOpen)).toBe(open);
  });

  it("a tab is open while its heartbeat is recent", () => {
    const now = Date.parse("2026-11-23T12:00:00.000Z");
    expect(tabStillOpen(now - TAB_BEAT_MS, now)).toBe(true);
    expect(tabStillOpen(now - 10 * TAB_BEAT_MS, now)).toBe(false);
    expect(tabStillOpen(null, now)).toBe(false);
  });
});

describe("isDraft", () => {
  it("takes a stored draft and nothing else found under a draft's key", () => {
    expect(isDraft(draft("tab-a", "2026-11-23T10:00:00.000Z"))).toBe(true);
    expect(isDraft({ baseVersion: 1, tabId: "t", savedAt: "x", fields: null })).toBe(true);
    expect(isDraft(null)).toBe(false);
    expect(isDraft("draft")).toBe(false);
    expect(isDraft({ baseVersion: "1", tabId: "t", savedAt: "x", fields: {} })).toBe(false);
    expect(isDraft({ baseVersion: 1, tabId: 7, savedAt: "x", fields: {} })).toBe(false);
    expect(isDraft({ baseVersion: 1, tabId: "t", savedAt: "x" })).toBe(false);
  });
});
