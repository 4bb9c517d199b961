import { driftedSteps, type ReplayDivergence } from "@/lib/timeline/compare";
import { plural } from "@/lib/timeline/format";

/**
 * A fork re-executes tools against today's memory: says where a replayed step did not replay as the
 * parent ran it (its results, freshness verdict, offered tools or tool choice).
 */
export function ReplayNotice({ divergences }: { divergences: ReplayDivergence[] }) {
  return (
    <div
      className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-xs text-amber-950"
      role="note"
      data-testid="replay-divergence"
    >
      <p className="font-semibold">
        {plural(driftedSteps(divergences), "replayed step")} did not replay as the parent ran (memory changed since):
      </p>
      <ul className="mt-1 list-disc pl-5">
        {divergences.map((d, i) => (
          <li key={i} data-iteration={d.iteration}>
            iteration {d.iteration}, {d.where}: parent {d.parent} → fork {d.fork}
          </li>
        ))}
      </ul>
    </div>
  );
}
