/**
 * The buffered run sink and the engine's flush points: events are written in batches, yet nothing
 * reaches a model or a caller before the events that led to it are stored, the log stays gap-free
 * under concurrent runs, and a run another process ended is refused.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "@/db/client";
import { createRun, createRunSink, getRunEvents, SINK_FLUSH_AFTER_MS } from "@/db/queries/runs";
import { runReflect } from "@/lib/reflect/engine";
import type { RunEvent } from "@/lib/reflect/events";
import type { RunSink } from "@/lib/reflect/ports";
import { ensureDemoBank } from "@/lib/server/runtime/db";
import { startRun } from "@/lib/server/services/runs";
import { call, done, forcedTool, reply, ScriptedModel } from "@/test/fixtures/scripted-model";
import { atlasMemory, request, SKILL, sequentialIds } from "@/test/unit/reflect/harness";
import { openTempDb } from "./temp-db";

let db: Db;
let cleanup: () => void;
beforeAll(async () => {
  ({ db, cleanup } = await openTempDb("run-sink"));
  await ensureDemoBank(db);
});
afterAll(() => cleanup());

let runs = 0;
async function newRun(): Promise<string> {
  const id = `sink-run-${++runs}`;
  await createRun(db, {
    id,
    bankId: "bank",
    question: "When is the Atlas launch?",
    skill: SKILL,
    budget: "mid",
    mode: "synthesize",
    scope: "personal",
    model: { kind: "scripted", name: "s" },
  });
  return id;
}

const nudge = (runId: string, seq: number): RunEvent => ({
  runId,
  seq,
  at: seq,
  iteration: 0,
  type: "steering.nudge",
  payload: { text: "try another tier", trigger: "repeated_empty", signature: null, count: 2, sinceIteration: 0 },
});

/** Passes every event to `inner` and keeps a copy: what the engine emitted, whether stored or not. */
function recorded(inner: RunSink & { flush(): Promise<void> }) {
  const emitted: RunEvent[] = [];
  const sink: RunSink = {
    async append(e) {
      emitted.push(e);
      await inner.append(e);
    },
    flush: () => inner.flush(),
  };
  return { sink, emitted };
}

/** Recalls again with a new query each turn until the forced final `done`. */
const busyScript = (req: Parameters<typeof forcedTool>[0], index: number) => {
  const forced = forcedTool(req);
  if (forced === "done") return reply(done("Atlas launches on March 14.", { memory_ids: ["f1"] }));
  if (forced) return reply(call(forced, { query: "Atlas launch" }));
  return reply(call("recall", { query: `Atlas launch ${index}` }));
};

describe("buffered run sink", () => {
  it("writes what it buffered, in seq order, on flush", async () => {
    const runId = await newRun();
    const sink = createRunSink(db, runId);
    for (const seq of [0, 1, 2, 3]) await sink.append(nudge(runId, seq));
    await sink.flush();
    expect((await getRunEvents(db, runId)).map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    await sink.append(nudge(runId, 4));
    await sink.flush();
    expect(await getRunEvents(db, runId)).toEqual([0, 1, 2, 3, 4].map((seq) => nudge(runId, seq)));
  });

  it("writes buffered events on its own shortly after, so a live view need not wait for a flush point", async () => {
    const runId = await newRun();
    const sink = createRunSink(db, runId);
    await sink.append(nudge(runId, 0));
    await sink.append(nudge(runId, 1));
    await vi.waitFor(async () => expect((await getRunEvents(db, runId)).map((e) => e.seq)).toEqual([0, 1]), {
      timeout: SINK_FLUSH_AFTER_MS * 40,
    });
  });

  it("refuses an event that would leave a gap or go back in seq", async () => {
    const runId = await newRun();
    const sink = createRunSink(db, runId);
    await sink.append(nudge(runId, 0));
    await expect(sink.append(nudge(runId, 2))).rejects.toThrow(/gap/);
    await expect(sink.append(nudge(runId, 0))).rejects.toThrow(/gap/);
    await sink.flush();
    expect((await getRunEvents(db, runId)).map((e) => e.seq)).toEqual([0]);
  });

  it("once another process ended the run, the flush is refused, nothing is written and every later call fails", async () => {
    const runId = await newRun();
    const sink = createRunSink(db, runId);
    await sink.append(nudge(runId, 0));
    await sink.flush();
    await sink.append(nudge(runId, 1));
    await db.$client.execute({ sql: "UPDATE runs SET status = 'interrupted' WHERE id = ?", args: [runId] });
    await expect(sink.flush()).rejects.toThrow(/ended by another process/);
    await expect(sink.append(nudge(runId, 2))).rejects.toThrow(/ended by another process/);
    await expect(sink.flush()).rejects.toThrow(/ended by another process/);
    expect((await getRunEvents(db, runId)).map((e) => e.seq)).toEqual([0]);
  });
});

describe("engine flush points", () => {
  it("every event emitted before a model call is stored when the model is called, and all of them when the run returns", async () => {
    const runId = await newRun();
    const { sink, emitted } = recorded(createRunSink(db, runId));
    const checked: number[] = [];
    const model = new ScriptedModel(async (req, index) => {
      // A crash right now would lose only events the model has not been sent anything about.
      const stored = await getRunEvents(db, runId);
      expect(stored).toEqual(emitted);
      expect(stored.at(-1)?.type).toBe("llm.request");
      checked.push(stored.length);
      return busyScript(req, index);
    });
    const result = await runReflect(
      { memory: atlasMemory(), model, sink, clock: { now: () => Date.now() }, ids: sequentialIds() },
      request({ runId, bankId: "bank", budget: "mid" }),
    );
    expect(result.status).toBe("done");
    expect(checked.length).toBe(model.calls);
    expect(checked.length).toBeGreaterThan(3);
    const stored = await getRunEvents(db, runId);
    expect(stored).toEqual(emitted);
    expect(stored.at(-1)?.type).toBe("run.finished");
  });

  it("concurrent runs on one file keep each log complete, ordered and gap-free", async () => {
    const started = await Promise.all(
      Array.from({ length: 8 }, (_, k) =>
        startRun(
          db,
          { mode: "synthesize", bankId: "demo", question: `When is the launch? (${k})`, budget: "mid" },
          { model: new ScriptedModel(busyScript) },
        ),
      ),
    );
    const results = await Promise.all(started.map((s) => s.finished));
    for (const [k, { runId }] of started.entries()) {
      expect(results[k]?.status).toBe("done");
      const events = await getRunEvents(db, runId);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
      expect(events[0]?.type).toBe("run.started");
      expect(events.at(-1)?.type).toBe("run.finished");
      expect(events.filter((e) => e.type === "llm.request")).toHaveLength(results[k]?.llmCalls ?? -1);
      expect(events.every((e) => e.runId === runId)).toBe(true);
    }
  });
});
