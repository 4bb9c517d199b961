import Link from "next/link";
import type { ReactNode } from "react";
import type { BadgeTone } from "@/lib/timeline/badges";
import { mentalModelDraftLabel } from "@/lib/timeline/format";
import { glossaryHref } from "@/lib/timeline/glossary";
import { TONE_CLASS } from "./tones";

/** A run that tried an unsaved skill draft: never to be read as the saved version. */
export function DraftBadge() {
  return (
    <span className="ml-1" data-testid="draft-badge">
      <Badge tone="warning" title="This run used an unsaved skill draft, not a saved version" term="draft">
        draft
      </Badge>
    </span>
  );
}

/**
 * A run that read unsaved mental-model text (a re-run's or an experiment's draft): the badge and which models,
 * on which saved version. Nothing when the run read only saved models.
 */
export function MentalModelDraftNote({ drafts }: { drafts: readonly { name: string; baseVersion: number }[] }) {
  if (drafts.length === 0) return null;
  return (
    <span className="inline-flex flex-wrap items-center gap-1" data-testid="mental-model-draft">
      <Badge
        tone="warning"
        title="This run read unsaved mental-model text (a re-run's or an experiment's draft); the saved models are unchanged"
        term="draft"
      >
        draft
      </Badge>
      <span className="text-amber-900">{mentalModelDraftLabel(drafts)}</span>
    </span>
  );
}

/**
 * A small label. With `term` it links to that word's glossary entry (the title stays the short
 * tooltip); `inRow` keeps it out of the Tab order inside the keyboard-driven timeline, whose run
 * header carries a Glossary link of its own.
 */
export function Badge({
  tone,
  title,
  children,
  term,
  inRow = false,
}: {
  tone: BadgeTone;
  title?: string;
  children: ReactNode;
  term?: string;
  inRow?: boolean;
}) {
  const className = `inline-flex items-center rounded border px-1.5 py-px text-2xs font-medium leading-4 whitespace-nowrap ${TONE_CLASS[tone]}`;
  if (term) {
    return (
      <Link
        href={glossaryHref(term)}
        className={`${className} hover:underline`}
        title={title}
        tabIndex={inRow ? -1 : undefined}
        data-testid="glossary-badge"
        data-term={term}
      >
        {children}
      </Link>
    );
  }
  return (
    <span className={className} title={title}>
      {children}
    </span>
  );
}
