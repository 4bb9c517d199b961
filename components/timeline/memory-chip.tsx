"use client";

import * as Popover from "@radix-ui/react-popover";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { SafeMarkdown } from "@/components/ui/safe-markdown";
import { ScrollRegion } from "@/components/ui/scroll-region";
import type { Tier } from "@/lib/reflect/domain";
import { findEvent } from "@/lib/timeline/event-lookup";
import { memoryHitFromContent, memoryHref } from "@/lib/timeline/memory-text";
import { useRunEvents } from "./run-events-context";
import { tierLabel } from "./tones";

const OPEN_DELAY_MS = 250;
const CLOSE_DELAY_MS = 200;

/**
 * A memory id a tool returned. Hover or focus-and-Enter opens a card with the memory as the model
 * saw it — text, tier, date, rank in the result, cited or not — and a link that opens it in /memory.
 */
export function MemoryChip({
  id,
  tier,
  cited,
  selected,
  resultSeqs,
  tabIndex,
  onFocus,
}: {
  id: string;
  tier: Tier;
  cited: boolean;
  /** The row is selected: cited ids stand out. */
  selected: boolean;
  /** The tool.result event that returned it. */
  resultSeqs: readonly number[];
  /** The row's chips are one Tab stop (roving tabindex): -1 for all but the active chip. */
  tabIndex?: number;
  onFocus?: () => void;
}) {
  const [open, setOpen] = useState(false);
  const byHover = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const later = (next: boolean, ms: number) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      byHover.current = next;
      setOpen(next);
    }, ms);
  };
  const cancel = () => clearTimeout(timer.current);
  return (
    <Popover.Root
      open={open}
      onOpenChange={(next) => {
        cancel();
        byHover.current = false;
        setOpen(next);
      }}
    >
      <Popover.Trigger
        type="button"
        data-testid="memory-chip"
        data-memory-id={id}
        tabIndex={tabIndex}
        onFocus={onFocus}
        data-cited={cited || undefined}
        onPointerEnter={(e) => e.pointerType === "mouse" && later(true, OPEN_DELAY_MS)}
        onPointerLeave={(e) => e.pointerType === "mouse" && byHover.current !== false && later(false, CLOSE_DELAY_MS)}
        className={`rounded px-1 font-mono text-2xs ${
          cited && selected
            ? "bg-indigo-600 text-white"
            : cited
              ? "bg-indigo-50 text-indigo-900 ring-1 ring-indigo-300"
              : "bg-slate-100 text-slate-700"
        } hover:underline`}
        aria-label={`${id}, ${cited ? "cited in the answer" : "returned, not cited"}: show the memory`}
      >
        {id}
        {cited ? " ✓" : ""}
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content
          side="bottom"
          align="start"
          sideOffset={4}
          collisionPadding={8}
          onOpenAutoFocus={(e) => {
            if (byHover.current) e.preventDefault();
          }}
          onPointerEnter={cancel}
          onPointerLeave={() => byHover.current && later(false, CLOSE_DELAY_MS)}
          className="z-50 w-[min(420px,90vw)] rounded border border-slate-300 bg-white p-2.5 text-xs text-slate-800 shadow-lg"
          aria-label={`Memory ${id}`}
          data-testid="memory-card"
          data-memory-id={id}
        >
          <MemoryCard id={id} tier={tier} cited={cited} seqs={resultSeqs} />
          <Popover.Arrow className="fill-white" />
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}

/** Looked up only while the card is open. */
function MemoryCard({ id, tier, cited, seqs }: { id: string; tier: Tier; cited: boolean; seqs: readonly number[] }) {
  const { events, bankId } = useRunEvents();
  const result = seqs.map((seq) => findEvent(events, seq)).find((e) => e?.type === "tool.result");
  const started = events[0]?.type === "run.started" ? events[0] : undefined;
  const draft =
    tier === "mental_models" ? started?.payload.skill.mentalModelDrafts?.find((d) => d.id === id) : undefined;
  const hit =
    result?.type === "tool.result"
      ? memoryHitFromContent(result.payload.content, tier, id)
      : { text: undefined, date: undefined, rank: undefined };
  return (
    <div className="flex flex-col gap-1.5">
      <p className="flex flex-wrap items-center gap-x-2 gap-y-0.5 text-2xs text-slate-600">
        <span className="font-mono font-semibold text-slate-900">{id}</span>
        <span>{tierLabel(tier)}</span>
        {hit.rank !== undefined && <span>#{hit.rank} in the result</span>}
        {hit.date && <span>{hit.date.slice(0, 10)}</span>}
        {hit.said && <span data-testid="memory-card-said">{hit.said}</span>}
        <span className={cited ? "font-semibold text-indigo-800" : undefined} data-testid="memory-card-cited">
          {cited ? "cited in the answer" : "not cited"}
        </span>
      </p>
      {draft && (
        <p
          className="rounded border border-amber-300 bg-amber-50 px-1.5 py-1 text-amber-900"
          data-testid="memory-card-draft"
        >
          An unsaved draft based on v{draft.baseVersion}: the text below is what this run read, not a saved version.
        </p>
      )}
      <ScrollRegion
        label={`Text of ${id}`}
        className="max-h-48 overflow-auto text-xs leading-snug [overflow-wrap:anywhere] [&_p]:my-1"
        data-testid="memory-card-text"
      >
        {hit.text ? (
          <SafeMarkdown>{hit.text}</SafeMarkdown>
        ) : (
          <p className="text-slate-600 italic">
            The stored result no longer holds this memory's text (cut at the cap).
          </p>
        )}
      </ScrollRegion>
      {bankId && (
        <Link
          href={memoryHref(bankId, tier, id)}
          className="self-start text-indigo-700 underline"
          data-testid="memory-card-link"
        >
          Open in Memory →
        </Link>
      )}
    </div>
  );
}
