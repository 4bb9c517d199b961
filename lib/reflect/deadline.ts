/**
 * The wall clock and the caller's abort signal (docs/engine.md#iterations-and-budget, §3.5b): they cover the whole run, from
 * setup (tier and scope counts) and facts mode to every model and tool call.
 */

/** Ends the run early with a receipt (model failure, wall clock, interruption). */
export class RunStop extends Error {
  constructor(
    readonly status: "failed" | "interrupted",
    message: string,
    readonly phase: string,
    /** The wall clock ran out (docs/engine.md#iterations-and-budget): the run ends `failed` whatever step it was in. */
    readonly wallClock = false,
  ) {
    super(message);
  }
}

export interface DeadlineScope {
  wallClockMs: number;
  /** Milliseconds since the run started. */
  elapsed(): number;
  signal?: AbortSignal;
  /** Where the run is, for the receipt. */
  phase(): string;
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function wallClockStop(scope: DeadlineScope): RunStop {
  return new RunStop("failed", `wall-clock limit of ${scope.wallClockMs} ms reached`, scope.phase(), true);
}

/**
 * Runs `work` against the wall-clock deadline and the caller's signal; `work` gets an AbortSignal
 * that fires when either ends the run. Any failure of `work` becomes a RunStop naming the phase.
 */
export async function withinDeadline<T>(scope: DeadlineScope, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const remaining = scope.wallClockMs - scope.elapsed();
  if (remaining <= 0) throw wallClockStop(scope);
  const outer = scope.signal;
  if (outer?.aborted) throw new RunStop("interrupted", "run interrupted", scope.phase());
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(wallClockStop(scope));
    }, remaining);
    onAbort = () => {
      controller.abort();
      reject(new RunStop("interrupted", "run interrupted", scope.phase()));
    };
    outer?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work(controller.signal), stop]);
  } catch (e) {
    if (e instanceof RunStop) throw e;
    throw new RunStop("failed", errorMessage(e), scope.phase());
  } finally {
    clearTimeout(timer);
    if (onAbort) outer?.removeEventListener("abort", onAbort);
  }
}
