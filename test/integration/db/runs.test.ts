import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createRun,
  createRunSink,
  finishRun,
  getRun,
  getRunEvents,
  listRuns,
  markInterruptedRuns,
} from "@/db/queries/runs";
import type { RunEvent } from "@/lib/reflect/events";
import { openTempDb } from "./temp-db";

let t: Awaited<ReturnType<typeof openTempDb>>;
beforeAll(async () => {
  t = await openTempDb("runs");
});
afterAll(() => t.cleanup());

const model = { kind: "offline" as const, name: "offline-extractive" };
const newRun = (id: string, createdAt: string, question = "what changed in billing?") =>
  createRun(t.db, {
    id,
    bankId: "acme",
    question,
    skill: null,
    budget: "mid",
    mode: "synthesize",
    scope: "personal",
    model,
    createdAt,
  });

const nudge = (runId: string, seq: number): RunEvent => ({
  runId,
  seq,
  at: seq * 10,
  iteration: 1,
  type: "steering.nudge",
  payload: { text: "try another tier", trigger: "repeated_empty", signature: null, count: 2, sinceIteration: 0 },
});

const finished = {
  status: "done" as const,
  answer: "Billing moved to Postgres [f1].",
  citations: { memory_ids: ["f1"], observation_ids: [], mental_model_ids: [] },
  dropped: [],
  flags: ["nudged" as const],
  usage: { inputTokens: 120, outputTokens: 30 },
  llmCalls: 3,
  iterations: 2,
  warnings: [],
  error: null,
};

describe("run store", () => {
  it("appends events through the sink and reads them back after a seq", async () => {
    await newRun("run-1", "2025-05-01T00:00:00Z");
    const sink = createRunSink(t.db, "run-1");
    for (const seq of [0, 1, 2]) await sink.append(nudge("run-1", seq));
    await sink.flush();
    expect((await getRunEvents(t.db, "run-1")).map((e) => e.seq)).toEqual([0, 1, 2]);
    const after = await getRunEvents(t.db, "run-1", { afterSeq: 0 });
    expect(after.map((e) => e.seq)).toEqual([1, 2]);
    expect(after[0]).toEqual(nudge("run-1", 1));
  });

  it("rejects an invalid event or a duplicate seq", async () => {
    const sink = createRunSink(t.db, "run-1");
    await expect(sink.append({ ...nudge("run-1", 3), payload: { text: 1 } } as unknown as RunEvent)).rejects.toThrow();
    await sink.append(nudge("run-1", 2));
    // The duplicate is refused when it is written, and the sink refuses everything after it.
    await expect(sink.flush()).rejects.toThrow();
    await expect(sink.append(nudge("run-1", 3))).rejects.toThrow();
    expect(await getRunEvents(t.db, "run-1")).toHaveLength(3);
  });

  it("finishes a run with its answer, usage and duration", async () => {
    const run = await finishRun(t.db, "run-1", { ...finished, finishedAt: "2025-05-01T00:00:02.500Z" });
    expect(run).toMatchObject({ status: "done", inputTokens: 120, llmCalls: 3, durationMs: 2500, flags: ["nudged"] });
    expect((await getRun(t.db, "run-1"))?.citations?.memory_ids).toEqual(["f1"]);
  });

  it("lists newest first with filters and a cursor", async () => {
    await newRun("run-2", "2025-05-02T00:00:00Z", "who owns the roadmap?");
    await newRun("run-3", "2025-05-03T00:00:00Z", "100% sure?");
    const all = await listRuns(t.db, { limit: 2 });
    expect(all.runs.map((r) => r.id)).toEqual(["run-3", "run-2"]);
    const next = await listRuns(t.db, { limit: 2, cursor: all.nextCursor ?? undefined });
    expect(next).toMatchObject({ runs: [{ id: "run-1" }], nextCursor: null });
    expect((await listRuns(t.db, { flag: "nudged" })).runs.map((r) => r.id)).toEqual(["run-1"]);
    expect((await listRuns(t.db, { status: "running" })).runs.map((r) => r.id)).toEqual(["run-3", "run-2"]);
    expect((await listRuns(t.db, { q: "POSTGRES" })).runs.map((r) => r.id)).toEqual(["run-1"]);
    expect((await listRuns(t.db, { q: "100%" })).runs.map((r) => r.id)).toEqual(["run-3"]);
  });

  it("marks runs left running as interrupted", async () => {
    expect(await markInterruptedRuns(t.db, { staleAfterMs: 30_000 })).toBe(2);
    expect((await getRun(t.db, "run-2"))?.status).toBe("interrupted");
    expect((await getRun(t.db, "run-1"))?.status).toBe("done");
    expect(await markInterruptedRuns(t.db, { staleAfterMs: 30_000 })).toBe(0);
  });
});
