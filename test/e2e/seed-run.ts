/**
 * Writes a run into the app's database from the test, the way another process (the CLI, a second
 * server) would: the row first, then events at the test's own pace, then the final status.
 */
import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { openDb } from "@/db/client";
import { createRun, createRunSink, finishRun } from "@/db/queries/runs";
import { runs } from "@/db/schema";
import type { RunEvent } from "@/lib/reflect/events";
import type { RunningApp } from "./harness";

export interface SeededRun {
  append(events: readonly RunEvent[]): Promise<void>;
  /** Stores the result the log's run.finished event carries. */
  finish(events: readonly RunEvent[]): Promise<void>;
  /** Ends the run without run.finished, as the app does for runs whose process died. */
  interrupt(): Promise<void>;
  close(): void;
}

export async function seedRun(app: RunningApp, runId: string, question: string): Promise<SeededRun> {
  // The app marks runs it finds `running` at its first database use as interrupted: get that done first.
  await fetch(`${app.url}/api/v1/banks`);
  const db: Db = await openDb(app.dbUrl);
  await createRun(db, {
    id: runId,
    bankId: "demo",
    question,
    skill: null,
    budget: "high",
    mode: "synthesize",
    scope: "personal",
    model: { kind: "scripted", name: "generator" },
  });
  const sink = createRunSink(db, runId);
  return {
    async append(events) {
      for (const e of events) await sink.append(e);
      await sink.flush();
    },
    async finish(events) {
      const last = events.at(-1);
      if (last?.type !== "run.finished") throw new Error("the log does not end with run.finished");
      await finishRun(db, runId, last.payload);
    },
    async interrupt() {
      await db.update(runs).set({ status: "interrupted" }).where(eq(runs.id, runId));
    },
    close: () => db.$client.close(),
  };
}

/** A whole finished run written at once (a generated log), for pages that only read it. */
export async function seedFinishedRun(app: RunningApp, runId: string, question: string, events: readonly RunEvent[]) {
  const run = await seedRun(app, runId, question);
  try {
    await run.append(events);
    await run.finish(events);
  } finally {
    run.close();
  }
}
