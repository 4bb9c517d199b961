import Link from "next/link";
import type { ObservationItem } from "@/lib/contracts/memory";
import { ScopeLabel } from "./scope-label";
import { TagList } from "./tag-list";

/** The raw facts an observation was derived from, on the memory page. */
function sourcesHref(bankId: string, ids: readonly string[]): string {
  return `/memory?${new URLSearchParams({ bank: bankId, tier: "raw_facts", id: ids.join(",") })}`;
}

export function ObservationList({
  items,
  permittedTeams,
  bankId,
}: {
  items: ObservationItem[];
  permittedTeams: string[];
  bankId: string;
}) {
  return (
    <ul className="divide-y divide-slate-100 rounded border border-slate-200 bg-white">
      {items.map((o) => (
        <li key={o.id} className="px-3 py-2" data-testid="observation" data-memory-id={o.id}>
          <p className="text-slate-800 [overflow-wrap:anywhere]">{o.text}</p>
          <div className="mt-1 flex flex-wrap items-center gap-2 text-2xs text-slate-500">
            <span className="font-mono text-[10px] text-slate-500">{o.id}</span>
            <ScopeLabel scope={o.scope} permittedTeams={permittedTeams} />
            <TagList tags={o.tags} />
            {o.sourceFactIds.length > 0 ? (
              <Link
                href={sourcesHref(bankId, o.sourceFactIds)}
                className="text-indigo-800 underline"
                data-testid="observation-sources"
              >
                from {o.sourceFactIds.length} raw {o.sourceFactIds.length === 1 ? "fact" : "facts"}
              </Link>
            ) : (
              <span>from no raw fact</span>
            )}
            <span>updated {o.updatedAt.slice(0, 10)}</span>
          </div>
        </li>
      ))}
    </ul>
  );
}
