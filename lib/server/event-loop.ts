/**
 * How long the server's event loop has been kept waiting: the delay histogram of the last
 * completed window, reported by `/api/health` so an operator (and the bench) can see whether a
 * long synchronous task stalled every other request.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";

const WINDOW_MS = 5_000;

export interface EventLoopDelay {
  /** Length of the window the figures cover. */
  windowMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

let last: EventLoopDelay | null = null;
let started = false;

const ms = (ns: number) => Math.round(ns / 1e4) / 100;

/** The last completed window's figures; null until the first window (started by the first call) completes. */
export function eventLoopDelay(): EventLoopDelay | null {
  if (!started) {
    started = true;
    const histogram = monitorEventLoopDelay({ resolution: 10 });
    histogram.enable();
    setInterval(() => {
      last = {
        windowMs: WINDOW_MS,
        p50Ms: ms(histogram.percentile(50)),
        p99Ms: ms(histogram.percentile(99)),
        maxMs: ms(histogram.max),
      };
      histogram.reset();
    }, WINDOW_MS).unref();
  }
  return last;
}
