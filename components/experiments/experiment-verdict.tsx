import Link from "next/link";
import { type ExperimentRow, experimentHref } from "@/lib/contracts/experiments";

/** On a run page: the experiment question this run answered, passed or not, and why not. */
export function ExperimentVerdict({
  experimentId,
  suite,
  row,
}: {
  experimentId: string;
  suite: string;
  row: ExperimentRow;
}) {
  return (
    <div
      className={`rounded border px-2 py-1 text-xs ${row.passed === false ? "border-red-200 bg-red-50" : "border-slate-200 bg-white"}`}
      data-testid="experiment-verdict"
      data-passed={String(row.passed)}
    >
      Question {row.index + 1} of experiment{" "}
      <Link className="font-mono text-indigo-800 underline" href={experimentHref(experimentId)}>
        {experimentId}
      </Link>{" "}
      (suite {suite}
      {row.tags.length ? `, ${row.tags.join(", ")}` : ""}):{" "}
      <strong className={row.passed === false ? "text-red-800" : "text-emerald-800"}>
        {row.passed === null ? "not finished" : row.passed ? "passed" : "failed"}
      </strong>
      {row.failures.length > 0 && (
        <ul className="mt-0.5 flex flex-col gap-0.5">
          {row.failures.map((f) => (
            <li key={f.expectation} data-testid="verdict-failure">
              ✗ {f.expectation}: {f.detail}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
