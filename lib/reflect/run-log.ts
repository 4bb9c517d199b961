/** Appends the run's events in order: seq from 0, `at` in ms since the run started. */
import { RunStop } from "./deadline";
import type { EventPayload, EventType, RunEvent } from "./events";
import type { ReflectDeps } from "./ports";

/**
 * How long the events that end a run (`run.finished`, the last flush) may take once the wall clock
 * has run out or the run was cancelled: a store that hangs past it is no longer awaited.
 */
export const STORE_GRACE_MS = 1_000;

export interface LogLimits {
  wallClockMs: number;
  signal?: AbortSignal;
}

export class RunLog {
  private seq = 0;
  private readonly start: number;
  /** Set once a write overran the wall clock, the cancel or the grace: later writes are not awaited. */
  private stuck = false;
  /** When the wall clock ran out or the run was cancelled (ms since start): the grace runs from here. */
  private stoppedAt: number | null = null;
  /**
   * Real time, not the injected clock: a write that hangs, hangs in real time, and reading the
   * injected clock here would change every event's `at`.
   */
  private readonly realStart = performance.now();

  constructor(
    private readonly deps: Pick<ReflectDeps, "sink" | "clock">,
    private readonly runId: string,
    private readonly limits?: LogLimits,
  ) {
    this.start = deps.clock.now();
  }

  elapsed(): number {
    return Math.max(0, this.deps.clock.now() - this.start);
  }

  async emit<T extends EventType>(type: T, payload: EventPayload<T>, iteration?: number): Promise<void> {
    const event = {
      runId: this.runId,
      seq: this.seq++,
      at: this.elapsed(),
      type,
      ...(iteration === undefined ? {} : { iteration }),
      payload,
    } as RunEvent;
    await this.guarded(() => this.deps.sink.append(event), `storing the run's events (${type})`);
  }

  /**
   * Makes every event emitted so far durable (the sink may buffer them). The engine's flush
   * points: before each live model call (model-turns.ts) and before the run returns (engine.ts).
   */
  async flush(): Promise<void> {
    const flush = this.deps.sink.flush;
    if (!flush) return;
    await this.guarded(() => flush.call(this.deps.sink), "storing the run's events (flush)");
  }

  private realElapsed(): number {
    return performance.now() - this.realStart;
  }

  /** The run is ending on its wall clock or a cancel: the writes that end it get STORE_GRACE_MS. */
  markStopped(): void {
    this.stoppedAt ??= this.realElapsed();
  }

  /**
   * A store write raced against the wall clock and the cancel (issue 27): a hanging write never
   * holds the run past either. Past them, the writes that end the run get STORE_GRACE_MS; a store
   * still hanging then is left to finish on its own, and the run returns all the same.
   */
  private async guarded(write: () => Promise<void>, phase: string): Promise<void> {
    if (this.stuck) {
      write().catch(() => {});
      return;
    }
    const limits = this.limits;
    if (!limits) return write();
    const now = this.realElapsed();
    const stopped = this.stoppedAt !== null || limits.signal?.aborted === true || now >= limits.wallClockMs;
    if (stopped) this.stoppedAt ??= now;
    const wait = stopped ? Math.max(0, STORE_GRACE_MS - (now - (this.stoppedAt ?? now))) : limits.wallClockMs - now;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const overrun = new Promise<never>((_, reject) => {
      const fail = (stop: RunStop) => {
        // Only a write that outlived the grace marks the store stuck: a cancel or the wall clock
        // landing during a healthy write still lets the writes that end the run be awaited.
        this.stuck = stopped;
        this.stoppedAt ??= this.realElapsed();
        reject(stop);
      };
      timer = setTimeout(
        () =>
          fail(
            stopped
              ? new RunStop("failed", `the event store did not answer within ${STORE_GRACE_MS} ms`, phase)
              : new RunStop("failed", `wall-clock limit of ${limits.wallClockMs} ms reached`, phase, true),
          ),
        wait,
      );
      if (!stopped && limits.signal) {
        onAbort = () => fail(new RunStop("interrupted", "run interrupted", phase));
        limits.signal.addEventListener("abort", onAbort, { once: true });
      }
    });
    const pending = write();
    try {
      await Promise.race([pending, overrun]);
    } catch (e) {
      if (e instanceof RunStop) {
        pending.catch(() => {});
        // Past the wall clock already, the run is ending: the write is left behind, not reported.
        if (stopped) return;
      }
      throw e;
    } finally {
      clearTimeout(timer);
      if (onAbort) limits.signal?.removeEventListener("abort", onAbort);
    }
  }
}
