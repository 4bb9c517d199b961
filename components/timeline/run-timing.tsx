import { formatMs } from "@/lib/timeline/format";
import type { RunTiming as RunTimingData } from "@/lib/timeline/timing";
import { timeShareLine } from "@/lib/timeline/timing";

/**
 * Where the run's time went, under the run header: one stacked bar and the words
 * "model 82 % · tools 15 % · other 3 %". Its own component so the header's other lines stay apart.
 */
export function RunTiming({ timing }: { timing: RunTimingData }) {
  const line = timeShareLine(timing);
  if (!line) return null;
  const { shares } = timing;
  return (
    <div className="flex flex-wrap items-center gap-x-2 gap-y-0.5 text-xs text-slate-700" data-testid="run-timing">
      <span className="text-2xs uppercase tracking-wide text-slate-500">Where the time went</span>
      <span className="flex h-2 w-40 overflow-hidden rounded bg-slate-200" aria-hidden="true">
        <span className="bg-indigo-500" style={{ width: `${shares.model}%` }} />
        <span className="bg-amber-500" style={{ width: `${shares.tools}%` }} />
      </span>
      <span data-testid="run-timing-shares">{line}</span>
      <span className="text-slate-500">
        ({formatMs(timing.modelMs)} model · {formatMs(timing.toolMs)} tools of {formatMs(timing.totalMs)})
      </span>
    </div>
  );
}

/** One iteration on the run's span: where it starts, then its model latency and tool time. */
export function IterationWaterfall({
  offsetPct,
  modelPct,
  toolPct,
  label,
}: {
  offsetPct: number;
  modelPct: number;
  toolPct: number;
  label: string;
}) {
  return (
    <span
      className="relative inline-block h-2 w-24 shrink-0 rounded bg-slate-200"
      role="img"
      aria-label={label}
      title={label}
      data-testid="iteration-waterfall"
    >
      <span
        className="absolute inset-y-0 flex"
        style={{ left: `${Math.min(offsetPct, 99)}%`, width: `${Math.max(1, modelPct + toolPct)}%` }}
      >
        <span className="h-full bg-indigo-500" style={{ flexGrow: modelPct }} />
        <span className="h-full bg-amber-500" style={{ flexGrow: toolPct }} />
      </span>
    </span>
  );
}
