import { driftedSteps, type ReplayDivergence, type RunComparison } from "@/lib/timeline/compare";
import { AlignedSteps } from "./aligned-steps";
import { AnswerDiff } from "./answer-diff";
import { CitationDiff } from "./citation-diff";
import { InputDiff } from "./input-diff";
import { ReplayNotice } from "./replay-notice";
import { RunSummaryCard } from "./run-summary-card";

function Panel({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section className="rounded border border-slate-200 bg-white p-3" aria-label={title}>
      <h2 className="mb-2 text-2xs font-semibold uppercase tracking-wide text-slate-600">{title}</h2>
      {children}
    </section>
  );
}

/** The comparison page body: both runs' cost, the aligned steps, then the answer, citation and input diffs. */
export function CompareView({ comparison, replay }: { comparison: RunComparison; replay: ReplayDivergence[] }) {
  const { a, b } = comparison;
  return (
    <div className="flex flex-col gap-3" data-testid="compare-view">
      <div className="grid grid-cols-1 gap-3 md:grid-cols-2">
        <RunSummaryCard side="A" run={a} other={b} />
        <RunSummaryCard side="B" run={b} other={a} />
      </div>
      {replay.length > 0 && <ReplayNotice divergences={replay} />}
      <div className="grid grid-cols-1 gap-3 xl:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <AlignedSteps comparison={comparison} replayDrift={driftedSteps(replay)} />
        <div className="flex flex-col gap-3">
          <Panel title="Answer">
            <AnswerDiff ops={comparison.answerDiff} a={a.answer ?? ""} b={b.answer ?? ""} />
          </Panel>
          <Panel title="Citations">
            <CitationDiff tiers={comparison.citations} />
          </Panel>
          <Panel title="Inputs that changed">
            <InputDiff inputs={comparison.inputs} mentalModels={comparison.mentalModels} />
          </Panel>
        </div>
      </div>
    </div>
  );
}
