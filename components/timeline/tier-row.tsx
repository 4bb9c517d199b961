"use client";

import { type KeyboardEvent, useState } from "react";
import { Button } from "@/components/ui/button";
import { TIERS } from "@/lib/reflect/domain";
import type { OutcomeClass } from "@/lib/reflect/events";
import type { BadgeTone } from "@/lib/timeline/badges";
import type { TierRow as TierRowData } from "@/lib/timeline/fold";
import { formatCount, formatMs, plural, words } from "@/lib/timeline/format";
import { Badge } from "./badge";
import { MemoryChip } from "./memory-chip";
import { TierBadge } from "./tier-badge";

const OUTCOME_TONE: Record<OutcomeClass, BadgeTone> = {
  success: "success",
  empty: "neutral",
  error: "danger",
  policy_reject: "danger",
  unknown_tool: "warning",
};

/** Enough ids to recognise a result; "+N more" shows the rest. */
const MAX_IDS_SHOWN = 12;

export function TierRow({ row, selected }: { row: TierRowData; selected: boolean }) {
  const r = row.result;
  const ids = r ? TIERS.flatMap((t) => r.ids[t]) : [];
  const [expanded, setExpanded] = useState(false);
  const shown = expanded ? ids : ids.slice(0, MAX_IDS_SHOWN);
  // One Tab stop for the chips (roving tabindex): arrows, Home and End move between them.
  const [active, setActive] = useState(0);
  const onChipKey = (e: KeyboardEvent<HTMLUListElement>) => {
    const chips = [...e.currentTarget.querySelectorAll<HTMLElement>('[data-testid="memory-chip"]')];
    const at = chips.indexOf(e.target as HTMLElement);
    if (at < 0) return;
    const next =
      e.key === "ArrowRight"
        ? Math.min(chips.length - 1, at + 1)
        : e.key === "ArrowLeft"
          ? Math.max(0, at - 1)
          : e.key === "Home"
            ? 0
            : e.key === "End"
              ? chips.length - 1
              : null;
    if (next === null) return;
    e.preventDefault();
    setActive(next);
    chips[next]?.focus();
  };
  return (
    <div className="flex flex-col gap-0.5">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-0.5">
        <TierBadge tier={row.tier} tool={row.tool} />
        <span className="min-w-0 flex-1 truncate font-mono text-xs text-slate-900" title={row.query ?? undefined}>
          {row.query === null ? <span className="text-slate-500">(no query)</span> : `“${row.query}”`}
        </span>
        {r ? (
          <>
            <Badge tone={OUTCOME_TONE[r.outcome]} title="Outcome class used by the no-progress ladder">
              {words(r.outcome)}
            </Badge>
            <span className="whitespace-nowrap tabular-nums text-2xs text-slate-600">
              {plural(r.count, "result")} ·{" "}
              <span className={r.truncated ? "font-semibold text-amber-800" : undefined} title="Payload size vs cap">
                {formatCount(r.chars)}/{formatCount(r.cap)} chars{r.truncated ? " (cut)" : ""}
              </span>{" "}
              · {formatMs(r.durationMs)}
            </span>
          </>
        ) : (
          <Badge tone="info">pending</Badge>
        )}
      </div>
      {row.reason && (
        <p className="truncate pl-1 text-xs text-slate-600" title={row.reason}>
          <span className="text-slate-500">why: </span>
          {row.reason}
        </p>
      )}
      {r?.error && <p className="pl-1 font-mono text-2xs text-rose-800">{r.error}</p>}
      {r?.observationFreshness && (
        <p className="pl-1 text-2xs text-slate-600">
          observations {words(r.observationFreshness.freshness)} ·{" "}
          {plural(r.observationFreshness.pending, "pending fact")}
        </p>
      )}
      {shown.length > 0 && (
        <ul
          className="flex flex-wrap gap-1 pl-1"
          aria-label="Ids returned (arrow keys move between them)"
          onKeyDown={onChipKey}
        >
          {shown.map((id, i) => (
            <li key={id} data-cited={row.citedIds.has(id) || undefined}>
              {row.tier ? (
                <MemoryChip
                  id={id}
                  tier={row.tier}
                  cited={row.citedIds.has(id)}
                  selected={selected}
                  resultSeqs={row.seqs}
                  tabIndex={i === Math.min(active, shown.length - 1) ? 0 : -1}
                  onFocus={() => setActive(i)}
                />
              ) : (
                <span className="rounded bg-slate-100 px-1 font-mono text-2xs text-slate-700">{id}</span>
              )}
            </li>
          ))}
          {ids.length > shown.length && (
            <li>
              <Button
                variant="link"
                onClick={() => setExpanded(true)}
                className="rounded px-1 text-2xs text-indigo-700"
                data-testid="ids-more"
              >
                +{ids.length - shown.length} more
              </Button>
            </li>
          )}
        </ul>
      )}
    </div>
  );
}
