import { RunStatusBadge } from "@/components/runs/run-status-badge";
import { DraftBadge, MentalModelDraftNote } from "@/components/timeline/badge";
import type { RunSummary } from "@/lib/timeline/compare";
import { formatCount, skillLabel } from "@/lib/timeline/format";

/** One side of a comparison: which run, and what it cost. */
export function RunSummaryCard({ side, run, other }: { side: "A" | "B"; run: RunSummary; other: RunSummary }) {
  const fewer = side === "B" && run.llmCalls < other.llmCalls;
  return (
    <section className="rounded border border-slate-200 bg-white p-3 text-xs" data-testid={`compare-run-${side}`}>
      <div className="mb-1 flex items-center gap-2">
        <span className="rounded bg-slate-800 px-1.5 font-mono text-2xs text-white">{side}</span>
        <a className="font-mono text-indigo-700 underline" href={`/runs/${run.runId}`}>
          {run.runId}
        </a>
        <RunStatusBadge status={run.status} />
        {run.imported && (
          <span
            className="rounded bg-slate-100 px-1.5 text-2xs text-slate-700"
            data-testid="compare-imported"
            title="Read from an OpenTelemetry trace, not run by this engine"
          >
            imported
          </span>
        )}
        {run.forkedAtIteration !== null && (
          <span className="text-slate-600">forked at iteration {run.forkedAtIteration}</span>
        )}
      </div>
      <p className="mb-2 font-medium text-slate-900">{run.question}</p>
      <dl className="grid grid-cols-4 gap-x-3 gap-y-1">
        <div>
          <dt className="text-2xs uppercase tracking-wide text-slate-500">LLM calls</dt>
          <dd
            className={`font-semibold ${fewer ? "text-emerald-800" : "text-slate-900"}`}
            data-testid="compare-llm-calls"
          >
            {run.llmCalls}
          </dd>
        </div>
        <div>
          <dt className="text-2xs uppercase tracking-wide text-slate-500">Tokens in / out</dt>
          <dd className="font-semibold text-slate-900">
            {formatCount(run.tokensIn)} / {formatCount(run.tokensOut)}
          </dd>
        </div>
        <div>
          <dt className="text-2xs uppercase tracking-wide text-slate-500">Iterations</dt>
          <dd className="font-semibold text-slate-900">{run.iterations}</dd>
        </div>
        <div>
          <dt className="text-2xs uppercase tracking-wide text-slate-500">Skill</dt>
          <dd className="font-semibold text-slate-900">
            {skillLabel(run.skill)}
            {run.skill?.draft ? <DraftBadge /> : null}
          </dd>
        </div>
      </dl>
      {run.skill?.mentalModelDrafts?.length ? (
        <p className="mt-1.5">
          <MentalModelDraftNote drafts={run.skill.mentalModelDrafts} />
        </p>
      ) : null}
    </section>
  );
}
