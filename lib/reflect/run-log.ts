/** Appends the run's events in order: seq from 0, `at` in ms since the run started. */
import type { EventPayload, EventType, RunEvent } from "./events";
import type { ReflectDeps } from "./ports";

export class RunLog {
  private seq = 0;
  private readonly start: number;

  constructor(
    private readonly deps: Pick<ReflectDeps, "sink" | "clock">,
    private readonly runId: string,
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
    await this.deps.sink.append(event);
  }

  /**
   * Makes every event emitted so far durable (the sink may buffer them). The engine's flush
   * points: before each live model call (model-turns.ts) and before the run returns (engine.ts).
   */
  async flush(): Promise<void> {
    await this.deps.sink.flush?.();
  }
}
