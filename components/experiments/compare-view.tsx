import Link from "next/link";
import { RunStatusBadge } from "@/components/runs/run-status-badge";
import { type ExperimentComparison, type ExperimentRow, experimentHref } from "@/lib/contracts/experiments";
import { comparisonCounts, configDiff, notCompared } from "@/lib/experiments/compare";

function Side({ row }: { row: ExperimentRow | null }) {
  if (!row) return <span className="text-slate-600">not in this experiment</span>;
  return (
    <div className="flex flex-col gap-0.5">
      <span className="flex items-center gap-1">
        {row.status === "pending" || row.status === "skipped" ? (
          <span className="text-slate-600">{row.status}</span>
        ) : (
          <RunStatusBadge status={row.status} />
        )}
        <span className={row.passed === false ? "font-medium text-red-800" : "text-slate-700"}>
          {row.passed === null ? "" : row.passed ? "passed" : "failed"}
        </span>
        <span className="text-slate-700">· {row.llmCalls} calls</span>
      </span>
      <span className="font-mono text-2xs text-slate-700">{row.citations.join(", ") || "no citations"}</span>
      {row.runId && (
        <Link className="text-2xs text-indigo-800 underline" href={`/runs/${row.runId}`}>
          {row.runId}
        </Link>
      )}
    </div>
  );
}

const SIDES = ["base", "head"] as const;

/** "base <id> (3/5 passed)": one side of the comparison, linking to its experiment. */
function SideSummary({ side, experiment }: { side: string; experiment: ExperimentComparison["base"] }) {
  return (
    <>
      {side}{" "}
      <Link className="text-indigo-800 underline" href={experimentHref(experiment.id)}>
        {experiment.id}
      </Link>{" "}
      ({experiment.totals.passed}/{experiment.totals.questions} passed)
    </>
  );
}

/** A comparison table's header row: one cell a column, padded like the table's cells. */
function HeaderRow({ columns, cell }: { columns: readonly string[]; cell: string }) {
  return (
    <thead>
      <tr className="border-b border-slate-300 text-left text-slate-700">
        {columns.map((c) => (
          <th key={c} className={cell}>
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** Two experiments, questions aligned; regressions and improvements highlighted, each linking to the run compare. */
export function CompareView({ cmp }: { cmp: ExperimentComparison }) {
  const counts = comparisonCounts(cmp.questions);
  const config = configDiff(cmp.base, cmp.head);
  return (
    <div className="flex flex-col gap-3" data-testid="experiment-compare">
      <div className="flex flex-wrap items-baseline gap-3">
        <h1 className="font-semibold text-lg">Compare experiments</h1>
        <span className="text-xs text-slate-700">
          <SideSummary side="base" experiment={cmp.base} /> → <SideSummary side="head" experiment={cmp.head} />
        </span>
      </div>
      <section aria-labelledby="config-diff-heading" data-testid="config-diff">
        <h2 id="config-diff-heading" className="font-semibold text-[13px]">
          Configuration
        </h2>
        {config.length === 0 ? (
          <p className="text-xs text-slate-700">
            Same configuration (model {cmp.head.config.model.name}, {cmp.head.skillVersions.join(", ") || "no skill"}):
            a difference comes from the memory or the model&apos;s variance.
          </p>
        ) : (
          <table className="border-collapse text-xs">
            <HeaderRow columns={["Differs", "Base", "Head"]} cell="py-0.5 pr-3" />
            <tbody>
              {config.map((c) => (
                <tr key={c.what} className="border-b border-slate-100" data-testid="config-change">
                  <td className="py-0.5 pr-3 text-slate-700">{c.what}</td>
                  {SIDES.map((side) => (
                    <td key={side} className="py-0.5 pr-3 font-mono text-2xs">
                      {c[side]}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {(cmp.base.config.draft || cmp.head.config.draft) && (
        // A draft side did not run the current state: a difference may be the draft, not the memory.
        <p className="text-xs text-amber-900" data-testid="compare-draft">
          <span className="mr-1 rounded border border-amber-300 bg-amber-50 px-1 text-2xs">draft</span>
          {cmp.base.config.draft && cmp.head.config.draft
            ? "Both experiments ran under a draft"
            : `The ${cmp.head.config.draft ? "head" : "base"} ran under a draft`}{" "}
          (a skill version other than the current one, or edits applied only inside the experiment): a difference may
          come from the draft, not from the memory.
        </p>
      )}
      <p className="text-[13px] text-slate-900" data-testid="compare-totals">
        <strong className="text-red-800">{cmp.totals.regressions} regressed</strong> ·{" "}
        <strong className="text-emerald-800">{cmp.totals.improvements} improved</strong> · {counts.unchanged} unchanged
        {counts.notCompared ? ` · ${counts.notCompared} not compared (a side never ran)` : ""}
        {counts.added ? ` · ${counts.added} only in head` : ""}
        {counts.removed ? ` · ${counts.removed} only in base` : ""}
      </p>
      <div className="overflow-x-auto">
        <table className="w-full min-w-[860px] border-collapse text-xs">
          <HeaderRow columns={["Question", "Base", "Head", "What changed"]} cell="py-1 pr-2" />
          <tbody>
            {cmp.questions.map((q, i) => (
              <tr
                key={i}
                className={`border-b border-slate-100 align-top ${q.regression ? "bg-red-50" : q.improvement ? "bg-emerald-50" : ""}`}
                data-testid="compare-row"
                data-regression={String(q.regression)}
                data-improvement={String(q.improvement)}
              >
                <td className="max-w-[24rem] py-1 pr-2">
                  {q.question}
                  {q.skill && <span className="ml-1 text-2xs text-slate-600">· {q.skill}</span>}
                </td>
                {SIDES.map((side) => (
                  <td key={side} className="py-1 pr-2">
                    <Side row={q[side]} />
                  </td>
                ))}
                <td className="py-1 pr-2">
                  <ul className="flex flex-col gap-0.5">
                    {q.reason && (
                      <li className={q.regression ? "text-red-800" : "text-emerald-800"} data-testid="compare-reason">
                        {q.regression ? "↓" : "↑"} {q.reason}
                      </li>
                    )}
                    {!q.base || !q.head ? (
                      <li className="text-slate-700">{q.base ? "removed from the suite" : "added to the suite"}</li>
                    ) : notCompared(q) ? (
                      <li className="text-slate-700" data-testid="not-compared">
                        not compared: {notCompared(q)}
                      </li>
                    ) : (
                      !q.regression && !q.improvement && <li className="text-slate-600">no change</li>
                    )}
                  </ul>
                  {q.base?.runId && q.head?.runId && (q.regression || q.improvement) && (
                    <Link
                      className="text-2xs text-indigo-800 underline"
                      href={`/runs/compare?a=${encodeURIComponent(q.base.runId)}&b=${encodeURIComponent(q.head.runId)}`}
                      data-testid="open-run-compare"
                    >
                      Compare the two runs step by step
                    </Link>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
