import type { Tier } from "@/lib/reflect/domain";
import type { ProbeView } from "@/lib/timeline/fold";
import { Badge } from "./badge";
import { TierBadge } from "./tier-badge";

/** The memory page showing exactly this memory (by id, not by a search that may find others). */
function memoryHref(bankId: string | null, tier: Tier, id: string): string {
  const params = new URLSearchParams({ ...(bankId ? { bank: bankId } : {}), tier, id });
  return `/memory?${params}`;
}

function summary(probe: ProbeView): string {
  const unseen = probe.hits.length;
  if (probe.missed && (probe.unused?.length ?? 0) > 0 && !probe.strong) {
    return "The answer says nothing was found (or is not grounded), yet the run itself read memories that match the question strongly, and did not use them.";
  }
  if (probe.missed) {
    return "The answer says nothing was found (or is not grounded), yet the store ranks these memories near the top for the question or the model's own queries, and the run never retrieved them.";
  }
  if (unseen === 0) return "Nothing the run did not already retrieve: the searches below return only memories it saw.";
  if (probe.strong) {
    return "Top-ranked memories the run did not retrieve. Its answer is not negative, so the run is not flagged; check whether they would have changed it.";
  }
  return "Lower-ranked memories the run did not retrieve; none ranks in the top 3 of any search.";
}

/**
 * "What the run didn't see": the missed-evidence probe's hits (docs/engine.md#the-missed-evidence-probe), highlighted when the run
 * was flagged `missed_evidence`. The probe runs after the answer with no model call.
 */
export function ProbeSection({ probe, bankId }: { probe: ProbeView; bankId: string | null }) {
  const frame = probe.missed ? "border-rose-300 bg-rose-50" : "border-slate-200 bg-white";
  return (
    <section
      className={`mt-3 rounded border p-2 text-xs ${frame}`}
      aria-labelledby="probe-heading"
      data-testid="probe-section"
      data-missed={probe.missed}
    >
      <div className="mb-1 flex flex-wrap items-center gap-2">
        <h3 id="probe-heading" className="font-semibold text-slate-900">
          What the run didn't see
        </h3>
        {probe.missed && (
          <Badge tone="danger" title="A negative answer while a strong memory was left unseen">
            missed evidence
          </Badge>
        )}
        <span className="text-2xs text-slate-600">
          probe · {probe.queries.length} {probe.queries.length === 1 ? "query" : "queries"} · no model call ·{" "}
          <span title="How long the run waited for the probe after its answer; the question's searches start with the run, so the probe's own work can be longer">
            {Math.round(probe.durationMs)} ms after the answer
          </span>
        </span>
      </div>
      <p className="mb-2 text-slate-700">{summary(probe)}</p>
      {probe.errors.length > 0 && (
        <ul className="mb-2 list-disc pl-4 text-amber-900" data-testid="probe-errors">
          {probe.errors.map((e) => (
            <li key={e}>{e} — the probe is partial.</li>
          ))}
        </ul>
      )}
      {probe.unused && probe.unused.length > 0 && (
        <div className="mb-2" data-testid="probe-unused">
          <h4 className="mb-1 font-semibold text-rose-900">Read but not used</h4>
          <ul className="flex flex-col gap-1.5">
            {probe.unused.map((u) => (
              <li
                key={`${u.tier}:${u.id}`}
                className="rounded border border-rose-200 bg-white p-1.5"
                data-testid="probe-unused-hit"
                data-id={u.id}
              >
                <div className="flex flex-wrap items-center gap-1.5">
                  <TierBadge tier={u.tier} />
                  <span className="text-slate-800">
                    The run read <span className="font-mono text-2xs">{u.id}</span> at rank {u.rank} and did not use it.
                  </span>
                  <a href={memoryHref(bankId, u.tier, u.id)} className="ml-auto text-2xs text-indigo-700 underline">
                    open in Memory
                  </a>
                </div>
                <p className="mt-0.5 break-words text-slate-800">{u.preview}</p>
              </li>
            ))}
          </ul>
        </div>
      )}
      {probe.hits.length > 0 && (
        <ol className="flex flex-col gap-1.5">
          {probe.hits.map((h) => (
            <li
              key={`${h.tier}:${h.id}`}
              className="rounded border border-slate-200 bg-white p-1.5"
              data-testid="probe-hit"
              data-id={h.id}
              data-strong={h.strong}
            >
              <div className="flex flex-wrap items-center gap-1.5">
                <span className="font-mono text-2xs text-slate-500">#{h.rank}</span>
                <TierBadge tier={h.tier} />
                <span className="font-mono text-2xs text-slate-800">{h.id}</span>
                {h.strong && (
                  <Badge tone="warning" title="Ranked in the top 3 of at least one probe search">
                    strong
                  </Badge>
                )}
                <span className="text-2xs text-slate-600">
                  rank {h.bestRank} for <q className="italic">{h.query}</q>
                </span>
                <a
                  href={memoryHref(bankId, h.tier, h.id)}
                  className="ml-auto text-2xs text-indigo-700 underline"
                  data-testid="probe-hit-memory-link"
                >
                  open in Memory
                </a>
              </div>
              <p className="mt-0.5 break-words text-slate-800">{h.preview}</p>
            </li>
          ))}
        </ol>
      )}
      {probe.skippedQueries > 0 && (
        <p className="mt-1 text-2xs text-slate-600">
          {probe.skippedQueries} more of the model's queries were not searched (the probe's cap).
        </p>
      )}
    </section>
  );
}
