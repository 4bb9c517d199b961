import Link from "next/link";
import type { ReactNode } from "react";
import type { RefreshOutcome } from "@/lib/contracts/mental-models";
import type { RunRef } from "@/lib/contracts/runs";
import { formatTime } from "./format-time";

/** A short list of runs linking to their timelines. */
export function RunRefList({
  title,
  runs,
  empty,
  testId,
  action,
}: {
  title: string;
  /** A refresh run says what became of its proposal instead of its bare status. */
  runs: (RunRef & { outcome?: RefreshOutcome; outcomeLabel?: string })[];
  empty: string;
  testId: string;
  /** Beside a run's outcome, e.g. Accept / Discard on an open refresh proposal. */
  action?: (run: RunRef & { outcome?: RefreshOutcome }) => ReactNode;
}) {
  return (
    <section data-testid={testId}>
      <h2 className="mb-1.5 font-semibold text-xs text-slate-700">{title}</h2>
      {runs.length === 0 ? (
        <p className="text-2xs text-slate-500">{empty}</p>
      ) : (
        <ul className="divide-y divide-slate-100 rounded border border-slate-200 bg-white">
          {runs.map((r) => (
            <li
              key={r.id}
              className="flex flex-wrap items-baseline gap-x-2 gap-y-1 px-2.5 py-1"
              data-testid="run-ref"
              data-run-id={r.id}
            >
              <Link href={`/runs/${r.id}`} className="truncate text-slate-800 hover:text-indigo-700 hover:underline">
                {r.question}
              </Link>
              <span
                className="ml-auto shrink-0 text-2xs text-slate-600"
                data-testid="run-ref-outcome"
                data-outcome={r.outcome}
              >
                {r.outcomeLabel ?? r.status.replace("_", " ")}
              </span>
              <span className="shrink-0 text-2xs text-slate-600">{formatTime(r.createdAt)}</span>
              {action?.(r)}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
