import { type AlignedStep, ASPECT_LABEL, divergenceSummary, type RunComparison } from "@/lib/timeline/compare";
import { StepSide } from "./step-side";

function StepRow({ step, first }: { step: AlignedStep; first: boolean }) {
  const differs = step.differences.length > 0;
  return (
    <li
      className={`grid grid-cols-[72px_minmax(0,1fr)_minmax(0,1fr)] gap-3 border-b border-slate-200 px-2 py-2 ${
        first ? "bg-amber-50 ring-2 ring-amber-400 ring-inset" : differs ? "bg-white" : "bg-slate-50/60"
      }`}
      data-testid="compare-step"
      data-iteration={step.iteration}
      data-differs={differs}
      {...(first ? { "data-first-divergence": "true" } : {})}
    >
      <div className="text-xs">
        <div className="font-semibold text-slate-900">Iteration {step.iteration}</div>
        {first && (
          <div
            className="mt-1 rounded bg-amber-400 px-1 text-2xs font-semibold text-amber-950"
            data-testid="first-divergence"
          >
            first divergence
          </div>
        )}
        {!differs && <div className="mt-1 text-2xs text-slate-500">same</div>}
      </div>
      <StepSide step={step.a} />
      <StepSide step={step.b} />
      {differs && (
        <ul className="col-span-2 col-start-2 flex flex-col gap-0.5 text-xs" aria-label="Differences">
          {step.differences.map((d, i) => (
            <li key={i} data-testid="step-difference" data-aspect={d.aspect} className="text-slate-700">
              <span className="font-semibold text-slate-900">{ASPECT_LABEL[d.aspect]}</span>
              {d.where && <span className="text-slate-500"> · {d.where}</span>}:{" "}
              <del className="bg-rose-50 text-rose-900">{d.a}</del> →{" "}
              <ins className="bg-emerald-50 text-emerald-900 no-underline">{d.b}</ins>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

/** The two runs side by side, one row per iteration; the first divergence is highlighted. */
export function AlignedSteps({ comparison, replayDrift = 0 }: { comparison: RunComparison; replayDrift?: number }) {
  const first = comparison.firstDivergence;
  return (
    <section className="rounded border border-slate-200 bg-white" aria-label="Aligned steps">
      <div className="grid grid-cols-[72px_minmax(0,1fr)_minmax(0,1fr)] gap-3 border-b border-slate-300 bg-slate-100 px-2 py-1 text-2xs font-semibold uppercase tracking-wide text-slate-600">
        <span>Step</span>
        <span>A</span>
        <span>B</span>
      </div>
      <p className="border-b border-slate-200 px-2 py-1.5 text-xs text-slate-800" data-testid="divergence-summary">
        {divergenceSummary(comparison, replayDrift)}
      </p>
      <ol>
        {comparison.steps.map((s) => (
          <StepRow key={s.iteration} step={s} first={first?.iteration === s.iteration} />
        ))}
      </ol>
    </section>
  );
}
