import { Button } from "@/components/ui/button";
import { formatTime } from "./format-time";

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
