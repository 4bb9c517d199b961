import Link from "next/link";
import { type ExperimentSummary, experimentHref } from "@/lib/contracts/experiments";

/**
 * A suite's experiments' pass rate over time, oldest to newest: one bar per experiment (its height
 * the pass rate of the questions that ran), each a link, with the rate written under it.
 */
export function PassRateHistory({ experiments }: { experiments: ExperimentSummary[] }) {
  const points = [...experiments].filter((e) => e.totals.passRate !== null).reverse();
  if (points.length === 0) return null;
  return (
    <section aria-labelledby="pass-rate-heading">
      <h2 id="pass-rate-heading" className="mb-1 font-semibold">
        Pass rate over time
      </h2>
      <ol className="flex items-end gap-1 overflow-x-auto pb-1" data-testid="pass-rate-history">
        {points.map((e) => {
          const rate = e.totals.passRate ?? 0;
          const label = `${Math.round(rate * 100)}%`;
          return (
            <li
              key={e.id}
              className="flex flex-col items-center gap-0.5"
              data-testid="pass-rate-point"
              data-rate={rate}
            >
              <Link
                href={experimentHref(e.id)}
                title={`${e.id} · ${e.createdAt.replace("T", " ").slice(0, 16)} · ${e.totals.passed}/${e.totals.finished} passed${e.config.draft ? " · draft" : ""}`}
                aria-label={`${e.id}: ${label} passed`}
                className="flex h-16 w-7 items-end rounded-sm bg-slate-100"
              >
                <span
                  className={`block w-full rounded-sm ${e.config.draft ? "bg-amber-500" : "bg-indigo-600"}`}
                  style={{ height: `${Math.max(2, rate * 100)}%` }}
                />
              </Link>
              <span className="text-[10px] text-slate-700 tabular-nums">{label}</span>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
