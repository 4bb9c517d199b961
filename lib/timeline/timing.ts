/**
 * Where a run's time went: model latency, tool time and the rest (the engine, the store, waiting),
 * for the run header, and per iteration as a waterfall bar placed on the run's span. Computed once
 * from the folded view; replayed responses (a fork's copied steps) cost no model time.
 */
import type { RunView, TimelineIteration } from "./fold";

export interface IterationTiming {
  index: number;
  /** Model latency of calls actually made in this iteration. */
  modelMs: number;
  toolMs: number;
  tokensIn: number;
  tokensOut: number;
  /** Placement on the run's span, in percent: where the iteration starts, and the model and tool shares. */
  offsetPct: number;
  modelPct: number;
  toolPct: number;
}

export interface RunTiming {
  totalMs: number;
  modelMs: number;
  toolMs: number;
  otherMs: number;
  /** Whole percentages that add up to 100 (all 0 when no time was recorded). */
  shares: { model: number; tools: number; other: number };
  iterations: Map<number, IterationTiming>;
}

function modelMsOf(it: TimelineIteration): number {
  // A replayed response carries the parent's latency; no model was asked in this run.
  return it.llmCalls === 0 ? 0 : it.latencyMs;
}

/** Rounds parts to whole percentages that sum to exactly 100 (largest remainder). */
function percentages(parts: readonly number[]): number[] {
  const total = parts.reduce((a, b) => a + b, 0);
  if (total <= 0) return parts.map(() => 0);
  const raw = parts.map((p) => (p / total) * 100);
  const floors = raw.map(Math.floor);
  let left = 100 - floors.reduce((a, b) => a + b, 0);
  const order = raw.map((r, i) => [r - Math.floor(r), i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of order) {
    if (left <= 0) break;
    floors[i] = (floors[i] ?? 0) + 1;
    left -= 1;
  }
  return floors;
}

const pct = (ms: number, total: number) => (total > 0 ? Math.min(100, (ms / total) * 100) : 0);

export function runTiming(view: RunView): RunTiming {
  let modelMs = 0;
  let toolMs = 0;
  for (const it of view.iterations) {
    modelMs += modelMsOf(it);
    toolMs += it.toolMs;
  }
  // Run-level tool steps (facts mode retrieval) count as tool time too.
  for (const row of [...view.rowsBefore, ...view.rowsAfter]) {
    if (row.kind === "tier" && row.result) toolMs += row.result.durationMs;
  }
  // The clock and the reported latencies are measured apart; never show more than 100 %.
  const totalMs = Math.max(view.header.durationMs, modelMs + toolMs);
  const otherMs = totalMs - modelMs - toolMs;
  const [model = 0, tools = 0, other = 0] = percentages([modelMs, toolMs, otherMs]);
  const iterations = new Map<number, IterationTiming>();
  for (const it of view.iterations) {
    const m = modelMsOf(it);
    iterations.set(it.index, {
      index: it.index,
      modelMs: m,
      toolMs: it.toolMs,
      tokensIn: it.tokensIn,
      tokensOut: it.tokensOut,
      offsetPct: pct(it.startAt, totalMs),
      modelPct: pct(m, totalMs),
      toolPct: pct(it.toolMs, totalMs),
    });
  }
  return { totalMs, modelMs, toolMs, otherMs, shares: { model, tools, other }, iterations };
}

/** "model 82 % · tools 15 % · other 3 %", or null when the run recorded no time. */
export function timeShareLine(t: RunTiming): string | null {
  if (t.totalMs <= 0) return null;
  return `model ${t.shares.model} % · tools ${t.shares.tools} % · other ${t.shares.other} %`;
}
