import { TIERS } from "@/lib/reflect/domain";
import type { OutcomeClass } from "@/lib/reflect/events";
import type { BadgeTone } from "@/lib/timeline/badges";
import type { TierRow as TierRowData } from "@/lib/timeline/fold";
import { formatCount, formatMs } from "@/lib/timeline/format";
import { Badge } from "./badge";
import { TierBadge } from "./tier-badge";

const OUTCOME_TONE: Record<OutcomeClass, BadgeTone> = {
  success: "success",
  empty: "neutral",
  error: "danger",
  policy_reject: "danger",
  unknown_tool: "warning",
};

/** Enough ids to recognise a result; the detail panel has the rest. */
const MAX_IDS_SHOWN = 12;

export function TierRow({ row, selected }: { row: TierRowData; selected: boolean }) {
  const r = row.result;
  const ids = r ? TIERS.flatMap((t) => r.ids[t]) : [];
  const shown = ids.slice(0, MAX_IDS_SHOWN);
  return (
    <div className="flex flex-col gap-0.5">
      <div className="flex items-center gap-2">
        <TierBadge tier={row.tier} tool={row.tool} />
        <span className="min-w-0 flex-1 truncate font-mono text-[12px] text-slate-900" title={row.query ?? undefined}>
          {row.query === null ? <span className="text-slate-500">(no query)</span> : `“${row.query}”`}
        </span>
        {r ? (
          <>
            <Badge tone={OUTCOME_TONE[r.outcome]} title="Outcome class used by the no-progress ladder">
              {r.outcome.replace("_", " ")}
            </Badge>
            <span className="whitespace-nowrap tabular-nums text-[11px] text-slate-600">
              {r.count} result{r.count === 1 ? "" : "s"} ·{" "}
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
        <p className="truncate pl-1 text-[12px] text-slate-600" title={row.reason}>
          <span className="text-slate-500">why: </span>
          {row.reason}
        </p>
      )}
      {r?.error && <p className="pl-1 font-mono text-[11px] text-rose-800">{r.error}</p>}
      {r?.observationFreshness && (
        <p className="pl-1 text-[11px] text-slate-600">
          observations {r.observationFreshness.freshness.replace("_", " ")} · {r.observationFreshness.pending} pending
          facts
        </p>
      )}
      {shown.length > 0 && (
        <ul className="flex flex-wrap gap-1 pl-1" aria-label="Ids returned">
          {shown.map((id) => {
            const cited = row.citedIds.has(id);
            return (
              <li
                key={id}
                data-cited={cited || undefined}
                className={`rounded px-1 font-mono text-[11px] ${
                  cited && selected
                    ? "bg-indigo-600 text-white"
                    : cited
                      ? "bg-indigo-50 text-indigo-900 ring-1 ring-indigo-300"
                      : "bg-slate-100 text-slate-700"
                }`}
                title={cited ? "Cited in the answer" : "Returned, not cited"}
              >
                {id}
                {cited ? " ✓" : ""}
              </li>
            );
          })}
          {ids.length > shown.length && (
            <li className="text-[11px] text-slate-500">+{ids.length - shown.length} more</li>
          )}
        </ul>
      )}
    </div>
  );
}
