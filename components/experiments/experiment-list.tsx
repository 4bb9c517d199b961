import Link from "next/link";
import { type ExperimentSummary, experimentHref } from "@/lib/contracts/experiments";

/** Experiments, newest first: id, suite version, status, passed, draft or not. */
export function ExperimentList({ experiments, showSuite }: { experiments: ExperimentSummary[]; showSuite?: boolean }) {
  return (
    <ul className="flex flex-col gap-0.5 text-xs" data-testid="experiment-list">
      {experiments.map((e) => (
        <li key={e.id}>
          <Link className="font-mono text-indigo-800 underline" href={experimentHref(e.id)}>
            {e.id}
          </Link>{" "}
          <span className="text-slate-700">
            · {showSuite ? `${e.suite} ` : ""}v{e.suiteVersion} · {e.status} · {e.totals.passed}/{e.totals.questions}{" "}
            passed{e.totals.passRate !== null ? ` (${Math.round(e.totals.passRate * 100)}%)` : ""}
            {e.config.draft ? " · draft" : ""} · {e.createdAt.replace("T", " ").slice(0, 16)}
          </span>
        </li>
      ))}
      {experiments.length === 0 && <li className="text-slate-700">None yet.</li>}
    </ul>
  );
}
