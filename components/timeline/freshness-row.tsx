import Link from "next/link";
import { mentalModelHref } from "@/lib/client/curation";
import type { FreshnessRow as FreshnessRowData } from "@/lib/timeline/fold";
import { Badge } from "./badge";
import { useRunEvents } from "./run-events-context";

/** Each model's verdict as of this run; its version links to that version, diffed against today's. */
export function FreshnessRow({ row, bankId }: { row: FreshnessRowData; bankId: string | null }) {
  const released = row.verdict === "release";
  const { events } = useRunEvents();
  const started = events[0]?.type === "run.started" ? events[0] : undefined;
  const drafts = new Set(started?.payload.skill.mentalModelDrafts?.map((d) => d.id));
  return (
    <div className="flex flex-col gap-0.5">
      <div className="flex items-center gap-2">
        <span className="text-xs font-semibold text-slate-900">Freshness check</span>
        <Badge tone={released ? "success" : "warning"}>{released ? "release to auto" : "keep forcing"}</Badge>
        <span className="text-2xs text-slate-500">budget {row.budget}</span>
      </div>
      <p className="pl-1 text-xs text-slate-700">{row.why}</p>
      {row.models.length > 0 && (
        <ul className="pl-1 text-xs">
          {row.models.map((m) => (
            <li key={m.id} className="flex items-center gap-2">
              <Badge tone={m.isStale ? "warning" : "success"}>{m.isStale ? "stale" : "fresh"}</Badge>
              {!m.usable && <Badge tone="danger">unusable</Badge>}
              <span className="truncate text-slate-900">
                {m.name} <span className="font-mono text-2xs text-slate-500">{m.id}</span>
                {m.version !== null && bankId ? (
                  <Link
                    href={`${mentalModelHref(bankId, m.id)}&seen=${m.version}`}
                    className="text-2xs text-indigo-700 hover:underline"
                    data-testid="model-version-link"
                    title={
                      drafts.has(m.id)
                        ? "This run read an unsaved draft based on this version; open the saved version"
                        : "Open the version this run read, with its diff to the current version"
                    }
                    onClick={(e) => e.stopPropagation()}
                  >
                    {" "}
                    {drafts.has(m.id) ? `draft on v${m.version}` : `v${m.version}`}
                  </Link>
                ) : m.version !== null ? (
                  <span className="text-2xs text-slate-500"> v{m.version}</span>
                ) : null}
              </span>
              <span className="truncate text-2xs text-slate-600">{m.reason}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
