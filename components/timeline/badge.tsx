import type { ReactNode } from "react";
import type { BadgeTone } from "@/lib/timeline/badges";
import { mentalModelDraftLabel } from "@/lib/timeline/format";
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

/**
 * A run that read unsaved mental-model text (an experiment's draft): the badge and which models,
 * on which saved version. Nothing when the run read only saved models.
 */
export function MentalModelDraftNote({ drafts }: { drafts: readonly { name: string; baseVersion: number }[] }) {
  if (drafts.length === 0) return null;
  return (
    <span className="inline-flex flex-wrap items-center gap-1" data-testid="mental-model-draft">
      <Badge
        tone="warning"
        title="This run read unsaved mental-model text from an experiment's draft; the saved models are unchanged"
      >
        draft
      </Badge>
      <span className="text-amber-900">{mentalModelDraftLabel(drafts)}</span>
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
