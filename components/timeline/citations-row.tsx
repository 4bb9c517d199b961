import { citationCount, TIER_REGISTRY } from "@/lib/reflect/domain";
import type { CitationsRow as CitationsRowData } from "@/lib/timeline/fold";
import { Badge } from "./badge";
import { TierBadge } from "./tier-badge";
import { tierLabel } from "./tones";

export function CitationsRow({ row }: { row: CitationsRowData }) {
  const keptCount = citationCount(row.kept);
  return (
    <div className="flex flex-col gap-0.5">
      <div className="flex items-center gap-2">
        <span className="text-xs font-semibold text-slate-900">Citations validated</span>
        <Badge tone={keptCount > 0 ? "success" : "neutral"}>{keptCount} kept</Badge>
        {row.dropped.length > 0 && <Badge tone="warning">{row.dropped.length} dropped</Badge>}
        {row.ungrounded && <Badge tone="danger">ungrounded</Badge>}
        {row.declined && (
          <span title="The answer says nothing was found and cites nothing, though the run retrieved memories: an abstention, not an ungrounded answer.">
            <Badge tone="neutral">declined</Badge>
          </span>
        )}
      </div>
      {TIER_REGISTRY.map(({ id: tier, citationKey }) =>
        row.kept[citationKey].length > 0 ? (
          <div key={citationKey} className="flex flex-wrap items-center gap-1 pl-1">
            <TierBadge tier={tier} />
            {row.kept[citationKey].map((id) => (
              <span key={id} className="rounded bg-slate-100 px-1 font-mono text-2xs text-slate-800">
                {id}
              </span>
            ))}
          </div>
        ) : null,
      )}
      {row.dropped.map((d) => (
        <div key={`${d.claimedTier}:${d.id}`} className="flex items-center gap-1 pl-1 text-xs">
          <span className="rounded bg-rose-50 px-1 font-mono text-2xs text-rose-900 line-through">{d.id}</span>
          <span className="text-slate-600">
            dropped: {d.reason === "never_retrieved" ? "never retrieved" : "retrieved from a different tier"} (cited as{" "}
            {tierLabel(d.claimedTier)})
          </span>
        </div>
      ))}
    </div>
  );
}
