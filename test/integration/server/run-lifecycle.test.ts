/** A run's life in the store: persisted at start, every event durable as it happens, failures kept. */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "@/db/client";
import { createRun, getRun, getRunEvents, markInterruptedRuns } from "@/db/queries/runs";
import type { ModelPort } from "@/lib/reflect";
import { ensureDemoBank } from "@/lib/server/runtime/db";
import { startRun } from "@/lib/server/services/runs";
import { call, reply, ScriptedModel } from "@/test/fixtures/scripted-model";
import { openTempDb } from "../db/temp-db";

let db: Db;
let cleanup: () => void;
beforeAll(async () => {
  ({ db, cleanup } = await openTempDb("run-lifecycle"));
  await ensureDemoBank(db);
});
afterAll(() => cleanup());

/** A model that answers each forced turn only once `release` is called. */
function gatedModel(): { model: ModelPort; release: () => void } {
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const model: ModelPort = {
    info: { kind: "scripted", name: "gated" },
    async complete(req) {
      await gate;
      const forced = typeof req.toolChoice === "object" ? req.toolChoice.function.name : "done";
      return reply(call(forced, forced === "done" ? { answer: "x", memory_ids: [] } : { query: "launch" }));
    },
  };
  return { model, release };
}

describe("run lifecycle", () => {
  it("returns the run id before the engine finishes, with the run already persisted as running", async () => {
    const { model: slow, release } = gatedModel();
    const { runId, finished } = await startRun(
      db,
      { mode: "synthesize", bankId: "demo", question: "When is the launch?" },
      { model: slow },
    );
    expect((await getRun(db, runId))?.status).toBe("running");
    // The engine appends as it goes: the first request is durable while the model is still thinking.
    await vi.waitFor(async () => {
      expect((await getRunEvents(db, runId)).map((e) => e.type)).toEqual(["run.started", "llm.request"]);
    });
    release();
    await finished;
    expect((await getRun(db, runId))?.status).not.toBe("running");
  });

  it("a run another process marked interrupted reports the stored status to its caller, not its own", async () => {
    const { model: slow, release } = gatedModel();
    const { runId, finished } = await startRun(
      db,
      { mode: "synthesize", bankId: "demo", question: "When is the launch?" },
      { model: slow },
    );
    // Another process judged this one gone and ended the run (as the heartbeat sweep does).
    await db.$client.execute({
      sql: "UPDATE runs SET status = 'interrupted', finished_at = ? WHERE id = ?",
      args: [new Date().toISOString(), runId],
    });
    release();
    const result = await finished;
    expect(result.status).toBe("interrupted");
    expect(result.warnings.some((w) => w.startsWith("run_ended_elsewhere"))).toBe(true);
    expect((await getRun(db, runId))?.status).toBe("interrupted");
  });

  it("the owner of a run another process ended stops at its next event: no more model calls or events", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let modelCalls = 0;
    const slow: ModelPort = {
      info: { kind: "scripted", name: "gated" },
      async complete() {
        modelCalls++;
        await gate;
        return reply(call("search_mental_models", { query: "launch" }));
      },
    };
    const { runId, finished } = await startRun(
      db,
      { mode: "synthesize", bankId: "demo", question: "When is the launch?" },
      { model: slow },
    );
    await vi.waitFor(async () => expect(modelCalls).toBe(1));
    await db.$client.execute({
      sql: "UPDATE runs SET status = 'interrupted', finished_at = ? WHERE id = ?",
      args: [new Date().toISOString(), runId],
    });
    const before = (await getRunEvents(db, runId)).map((e) => e.type);
    release();
    const result = await finished;
    expect(result.status).toBe("interrupted");
    expect(modelCalls).toBe(1);
    expect((await getRunEvents(db, runId)).map((e) => e.type)).toEqual(before);
  });

  it("a run whose model dies midway keeps every event up to the failure and a receipt of the phase", async () => {
    let calls = 0;
    const model = new ScriptedModel(() => {
      calls++;
      if (calls === 2) throw new Error("connection reset by peer");
      return reply(call("search_mental_models", { query: "launch date" }));
    }, "flaky-model");
    const { runId, finished } = await startRun(
      db,
      { mode: "synthesize", bankId: "demo", question: "What did we decide about the launch date?" },
      { model },
    );
    const result = await finished;
    expect(result.status).toBe("failed");
    expect(result.error?.message).toContain("connection reset by peer");
    expect(result.error?.phase).toMatch(/iteration 1/);
    const types = (await getRunEvents(db, runId)).map((e) => e.type);
    expect(types.slice(0, 4)).toEqual(["run.started", "llm.request", "llm.response", "tool.call"]);
    expect(types.filter((t) => t === "llm.request")).toHaveLength(2);
    expect(types.at(-1)).toBe("run.finished");
    const row = await getRun(db, runId);
    expect(row?.status).toBe("failed");
    expect(row?.error?.message).toContain("connection reset");
  });

  it("a run left running by a crashed process is marked interrupted on the next start", async () => {
    await createRun(db, {
      id: "run_crashed",
      bankId: "demo",
      question: "Left behind",
      skill: null,
      budget: "low",
      mode: "synthesize",
      scope: "personal",
      model: { kind: "offline", name: "offline" },
    });
    expect(await markInterruptedRuns(db, { staleAfterMs: 30_000 })).toBeGreaterThanOrEqual(1);
    expect((await getRun(db, "run_crashed"))?.status).toBe("interrupted");
  });
});
