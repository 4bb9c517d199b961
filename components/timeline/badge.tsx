import type { ReactNode } from "react";
import type { BadgeTone } from "@/lib/timeline/badges";
import { TONE_CLASS } from "./tones";

/** A run that tried an unsaved skill draft: never to be read as the saved version. */
export function DraftBadge() {
  return (
    <span className="ml-1" data-testid="draft-badge">
      <Badge tone="warning" title="This run used an unsaved skill draft, not a saved version">
        draft
      </Badge>
    </span>
  );
}

export function Badge({ tone, title, children }: { tone: BadgeTone; title?: string; children: ReactNode }) {
  return (
    <span
      className={`inline-flex items-center rounded border px-1.5 py-px text-[11px] font-medium leading-4 whitespace-nowrap ${TONE_CLASS[tone]}`}
      title={title}
    >
      {children}
    </span>
  );
}
