import Link from "next/link";
import { RefreshDecision, type RefreshDecisionActions } from "@/components/editors/refresh-decision";
import { TextDiff } from "@/components/editors/text-diff";
import type { RunRefreshProposal } from "@/lib/contracts/mental-models";
import { diffLines } from "@/lib/text/text-diff";

/**
 * On a refresh run's page: says that the run is a mental model's Refresh now, what became of its
 * proposal, and — while it is open — shows the proposed content against the current one with
 * Accept / Discard, so a proposal left behind in the editor is never lost.
 */
export function RefreshRunNotice({
  runId,
  refresh,
  ...actions
}: { runId: string; refresh: RunRefreshProposal } & RefreshDecisionActions) {
  const modelHref = `/mental-models/${encodeURIComponent(refresh.modelId)}?bank=${encodeURIComponent(refresh.bankId)}`;
  const open = refresh.outcome === "open" && refresh.proposed !== null;
  return (
    <section
      aria-labelledby="refresh-run-heading"
      className="rounded border border-indigo-200 bg-indigo-50/60 px-3 py-2 text-xs text-slate-800"
      data-testid="refresh-run-notice"
      data-outcome={refresh.outcome}
    >
      <h2 id="refresh-run-heading" className="font-semibold text-[13px]">
        Refresh of mental model{" "}
        <Link href={modelHref} className="text-indigo-800 underline">
          {refresh.modelName}
        </Link>{" "}
        <span className="font-normal text-slate-700">
          (proposed on v{refresh.baseVersion}) · <span data-testid="refresh-run-outcome">{refresh.outcomeLabel}</span>
        </span>
      </h2>
      <p className="mt-0.5 text-slate-700">
        Refresh now ran this question (the model's source query) with mental models left out, at a low budget.
        {open
          ? " Its answer is a proposal: nothing is saved until you accept it."
          : " Its answer was not saved by this run itself."}
      </p>
      {open ? (
        <div className="mt-2 flex flex-col gap-2">
          <p className="text-slate-700">
            The current content (<span className="text-red-800">−</span>) against this run's answer (
            <span className="text-emerald-800">+</span>), based on {refresh.basedOnIds.length} cited{" "}
            {refresh.basedOnIds.length === 1 ? "memory" : "memories"}.
          </p>
          <TextDiff ops={diffLines(refresh.current, refresh.proposed ?? "")} by="lines" testId="refresh-run-diff" />
          <RefreshDecision
            bankId={refresh.bankId}
            modelId={refresh.modelId}
            runId={runId}
            baseVersion={refresh.baseVersion}
            {...actions}
          />
        </div>
      ) : null}
    </section>
  );
}
