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

const ms = (ns: number) => Math.round(ns / 1e4) / 100;

export interface EventLoopMonitorOptions {
  windowMs?: number;
  /** Calls `close` at the end of every window; a test passes its own to close windows itself. */
  every?: (close: () => void, windowMs: number) => void;
}

const everyWindow = (close: () => void, windowMs: number) => {
  setInterval(close, windowMs).unref();
};

/** A delay histogram read per window; `read()` starts it and returns the last completed window. */
export function createEventLoopMonitor({ windowMs = WINDOW_MS, every = everyWindow }: EventLoopMonitorOptions = {}) {
  let last: EventLoopDelay | null = null;
  let started = false;
  return {
    read(): EventLoopDelay | null {
      if (!started) {
        started = true;
        const histogram = monitorEventLoopDelay({ resolution: 10 });
        histogram.enable();
        every(() => {
          last = {
            windowMs,
            p50Ms: ms(histogram.percentile(50)),
            p99Ms: ms(histogram.percentile(99)),
            maxMs: ms(histogram.max),
          };
          histogram.reset();
        }, windowMs);
      }
      return last;
    },
  };
}

const server = createEventLoopMonitor();

/** The last completed window's figures; null until the first window (started by the first call) completes. */
export function eventLoopDelay(): EventLoopDelay | null {
  return server.read();
}
