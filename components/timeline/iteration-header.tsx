import { Button } from "@/components/ui/button";
import type { TimelineIteration } from "@/lib/timeline/fold";
import { formatCount, formatMs, plural, words } from "@/lib/timeline/format";
import type { IterationTiming } from "@/lib/timeline/timing";
import { Badge } from "./badge";
import { IterationWaterfall } from "./run-timing";

export function IterationHeader({
  iteration,
  collapsed,
  onToggle,
  replayNote,
  runEnded,
  timing,
}: {
  iteration: TimelineIteration;
  /** The run has stopped: a request still without its response will never get one. */
  runEnded: boolean;
  collapsed: boolean;
  onToggle: () => void;
  /** Set when this replayed iteration's tool results differ from the parent's. */
  replayNote?: string;
  /** Its model latency and tool time, placed on the run's span. */
  timing?: IterationTiming;
}) {
  const it = iteration;
  return (
    <div
      className={`flex flex-wrap items-center gap-x-2 gap-y-0.5 border-b border-slate-200 bg-slate-100 px-2 py-1 text-xs ${
        it.replayed ? "text-slate-500" : ""
      }`}
      data-testid="timeline-iteration"
      data-mode={it.mode}
      data-replayed={it.replayed || undefined}
      data-iteration={it.index}
    >
      <Button
        variant="bare"
        type="button"
        tabIndex={-1}
        onClick={(e) => {
          e.stopPropagation();
          onToggle();
        }}
        aria-label={collapsed ? `Expand iteration ${it.index}` : `Collapse iteration ${it.index}`}
        aria-expanded={!collapsed}
        className="w-4 text-slate-600"
      >
        {collapsed ? "▸" : "▾"}
      </Button>
      <span className="font-semibold text-slate-900">Iteration {it.index}</span>
      {it.mode === "forced" ? (
        <Badge tone="info" title="The request named the only tool the model could call" term="forced" inRow>
          forced ·&nbsp;<span className="font-mono">{it.forcedTool}</span>
        </Badge>
      ) : (
        <Badge tone="neutral" title="The model chose among the offered tools" term="auto" inRow>
          auto
        </Badge>
      )}
      {it.injections.map((kind, i) => (
        <Badge
          key={i}
          tone="warning"
          title="A system message sent with this request only"
          term={kind === "nudge" || kind === "anchor" ? kind : undefined}
          inRow
        >
          +{words(kind)}
        </Badge>
      ))}
      {it.replayed && (
        <Badge tone="neutral" title="Response replayed from the parent run" term="replayed" inRow>
          replayed
        </Badge>
      )}
      {replayNote && (
        <span data-testid="replay-differs">
          <Badge tone="warning" title={replayNote}>
            differs from the parent
          </Badge>
        </span>
      )}
      {it.toolCalls.length > 0 && (
        <span className="truncate font-mono text-2xs text-slate-600" title="Tools the model called">
          → {it.toolCalls.join(", ")}
        </span>
      )}
      <span className="ml-auto whitespace-nowrap tabular-nums text-slate-600">
        {callSummary(it, runEnded)}
        {collapsed ? ` · ${plural(it.rows.length, "row")}` : ""}
      </span>
      {timing && (
        <IterationWaterfall
          offsetPct={timing.offsetPct}
          modelPct={timing.modelPct}
          toolPct={timing.toolPct}
          label={`model ${formatMs(timing.modelMs)} · tools ${formatMs(timing.toolMs)}, on the run's span`}
        />
      )}
    </div>
  );
}

/** What the iteration's model calls came to, and a call still open said as what it is. */
function callSummary(it: TimelineIteration, runEnded: boolean): string {
  const open = it.awaitingResponse
    ? runEnded
      ? "the run stopped before the model answered"
      : "waiting for the model…"
    : null;
  if (it.llmCalls === 0) {
    if (open) return open;
    return it.replayed ? "replayed · no model call" : "no model call";
  }
  const calls = `${it.llmCalls > 1 ? `${it.llmCalls} calls · ` : ""}${formatMs(it.latencyMs)} · ${formatCount(it.tokensIn)} in / ${formatCount(it.tokensOut)} out`;
  return open ? `${calls} · ${open}` : calls;
}
