/**
 * What changed in the runs table, for the live runs list. One poller per process and database,
 * running only while someone listens: every RUN_FEED_POLL_MS it reads the rows inserted since its
 * last look and the status of the runs it saw running, and hands the changed ids to every listener.
 * Listeners (one per open list stream) re-read those runs under their own filters.
 */
import type { Db } from "@/db/client";
import { runChangeBaseline, runChangesAfter, runIdsChangedSince } from "@/db/queries/runs";
import { processWide } from "../runtime/process-wide";

export const RUN_FEED_POLL_MS = 250;

/** A reconnecting list's catch-up: ids of runs changed since `sinceIso`, at most `limit`. */
export function runsChangedSince(db: Db, sinceIso: string, limit: number) {
  return runIdsChangedSince(db, sinceIso, limit);
}

export interface RunChangeBatch {
  /** Runs created, or no longer running, since the previous batch (may be empty). */
  ids: string[];
  /** When the poll that found them began: every change committed before it is in this batch or an earlier one. */
  at: number;
}

type Listener = (batch: RunChangeBatch) => void;

class RunChangePoller {
  private readonly listeners = new Set<Listener>();
  private ready: Promise<void> | null = null;
  private maxRowid = 0;
  private running = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private failing = false;
  /** Bumped on every (re)start, so a poll still in flight from a stopped round does not reschedule. */
  private round = 0;

  constructor(private readonly db: Db) {}

  /**
   * Resolves once the poller has its baseline: from then on every change reaches `listener`.
   * The returned function unsubscribes; the last one out stops the poller.
   */
  async subscribe(listener: Listener): Promise<() => void> {
    this.listeners.add(listener);
    this.ready ??= this.start();
    try {
      await this.ready;
    } catch (err) {
      this.unsubscribe(listener);
      throw err;
    }
    return () => this.unsubscribe(listener);
  }

  private unsubscribe(listener: Listener) {
    this.listeners.delete(listener);
    if (this.listeners.size > 0) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.ready = null;
    this.round++;
  }

  private async start() {
    const round = ++this.round;
    const baseline = await runChangeBaseline(this.db);
    this.maxRowid = baseline.maxRowid;
    this.running = new Set(baseline.running);
    this.schedule(round);
  }

  private schedule(round: number) {
    if (round !== this.round || this.listeners.size === 0) return;
    this.timer = setTimeout(() => void this.poll(round), RUN_FEED_POLL_MS);
  }

  private async poll(round: number) {
    const at = Date.now();
    const watched = [...this.running];
    try {
      const rows = await runChangesAfter(this.db, this.maxRowid, watched);
      if (round !== this.round) return;
      const changed = new Set<string>();
      const seen = new Set<string>();
      for (const row of rows) {
        seen.add(row.id);
        if (row.rowid > this.maxRowid) {
          changed.add(row.id);
          if (row.status === "running") this.running.add(row.id);
        }
        if (this.running.has(row.id) && row.status !== "running") {
          changed.add(row.id);
          this.running.delete(row.id);
        }
      }
      this.maxRowid = Math.max(this.maxRowid, ...rows.map((r) => r.rowid));
      // A watched run that is gone (its bank was deleted) changed too.
      for (const id of watched) {
        if (!seen.has(id)) {
          changed.add(id);
          this.running.delete(id);
        }
      }
      this.failing = false;
      const batch = { ids: [...changed], at };
      for (const listener of this.listeners) listener(batch);
    } catch (err) {
      if (!this.failing) console.error("runs list feed: polling the runs table failed; retrying", err);
      this.failing = true;
    }
    this.schedule(round);
  }
}

const pollers = processWide("run-change-pollers", () => new WeakMap<Db, RunChangePoller>());

/** The process's poller for `db`. */
export function runChangePoller(db: Db): RunChangePoller {
  let poller = pollers.get(db);
  if (!poller) {
    poller = new RunChangePoller(db);
    pollers.set(db, poller);
  }
  return poller;
}
