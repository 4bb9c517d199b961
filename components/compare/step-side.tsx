import { tierClass, tierLabel } from "@/components/timeline/tones";
import { TIERS } from "@/lib/reflect/domain";
import type { StepSide as StepSideData } from "@/lib/timeline/compare";
import { words } from "@/lib/timeline/format";

/** What one run did in one iteration: tool choice, each call with its query and returned ids, freshness, steering. */
export function StepSide({ step }: { step: StepSideData | null }) {
  if (!step) return <p className="text-xs text-slate-500 italic">did not run</p>;
  return (
    <div
      className={`flex flex-col gap-1 text-xs ${step.replayed ? "border-l-2 border-dashed border-slate-300 pl-1.5" : ""}`}
    >
      <div className="flex flex-wrap items-center gap-1.5 text-slate-600">
        <span className="min-w-0 font-mono [overflow-wrap:anywhere]">
          {step.toolChoice === "auto" ? "auto" : step.toolChoice.replace(":", " · ")}
        </span>
        {step.replayed && <span className="rounded border border-slate-300 px-1 text-2xs">replayed</span>}
        <span className="ml-auto tabular-nums">
          {step.llmCalls === 0 ? "no model call" : `${step.tokensIn} in / ${step.tokensOut} out`}
        </span>
      </div>
      {step.calls.map((c, i) => (
        <div key={i} className="rounded border border-slate-200 bg-slate-50 px-1.5 py-1">
          <div className="flex flex-wrap items-center gap-1.5">
            {c.tier && <span className={`rounded border px-1 text-2xs ${tierClass(c.tier)}`}>{tierLabel(c.tier)}</span>}
            {/* A narrow column (390 px) breaks a long tool name or query rather than overflow the page. */}
            <span className="min-w-0 font-mono font-medium text-slate-900 [overflow-wrap:anywhere]">{c.tool}</span>
            {c.query && <span className="min-w-0 text-slate-700 [overflow-wrap:anywhere]">“{c.query}”</span>}
            {c.outcome && c.outcome !== "success" && <span className="text-amber-800">{words(c.outcome)}</span>}
          </div>
          {TIERS.some((t) => c.ids[t].length > 0) && (
            <p className="mt-0.5 font-mono text-2xs text-slate-600 [overflow-wrap:anywhere]">
              {TIERS.flatMap((t) => c.ids[t]).join(" ")}
            </p>
          )}
        </div>
      ))}
      {step.freshness && (
        <p
          className={step.freshness.verdict === "release" ? "text-emerald-800" : "text-amber-900"}
          data-testid="step-freshness"
          data-verdict={step.freshness.verdict}
        >
          freshness check: <span className="font-semibold">{words(step.freshness.verdict)}</span> — {step.freshness.why}
        </p>
      )}
      {step.steering.map((s, i) => (
        <p key={i} className="text-orange-800">
          {s}
        </p>
      ))}
    </div>
  );
}
