/**
 * The engine's flush points (run-log.ts): a buffering sink is flushed before every live model call
 * and before the run returns, whatever way the run ends, so nothing is sent to a model or returned
 * before the events that led to it are stored.
 */
import { describe, expect, it } from "vitest";
import { runReflect } from "@/lib/reflect/engine";
import { RunEvent } from "@/lib/reflect/events";
import type { ModelPort, ReflectDeps } from "@/lib/reflect/ports";
import { call, done, forcedTool, reply, ScriptedModel } from "@/test/fixtures/scripted-model";
import { atlasMemory, fixedClock, request, sequentialIds } from "./harness";

/** A sink that stores only on flush, and the number of events stored at each model call. */
function bufferingDeps(model: (stored: () => RunEvent[], emitted: () => RunEvent[]) => ModelPort) {
  const emitted: RunEvent[] = [];
  const stored: RunEvent[] = [];
  const deps: ReflectDeps = {
    memory: atlasMemory(),
    clock: fixedClock(),
    ids: sequentialIds(),
    model: model(
      () => [...stored],
      () => [...emitted],
    ),
    sink: {
      append: async (e) => void emitted.push(RunEvent.parse(e)),
      flush: async () => void stored.push(...emitted.slice(stored.length)),
    },
  };
  return { deps, emitted, stored };
}

describe("engine flush points", () => {
  it("flushes before every model call and before the result is returned", async () => {
    const seenAtCall: { stored: number; emitted: number; last?: string }[] = [];
    const { deps, emitted, stored } = bufferingDeps(
      (storedNow, emittedNow) =>
        new ScriptedModel((req) => {
          seenAtCall.push({
            stored: storedNow().length,
            emitted: emittedNow().length,
            last: storedNow().at(-1)?.type,
          });
          const forced = forcedTool(req);
          if (forced && forced !== "done") return reply(call(forced, { query: "Atlas launch" }));
          return reply(done("Atlas launches on March 14.", { memory_ids: ["f1"] }));
        }),
    );
    const result = await runReflect(deps, request());
    expect(result.status).toBe("done");
    expect(seenAtCall.length).toBeGreaterThan(1);
    for (const seen of seenAtCall)
      expect(seen).toEqual({ stored: seen.emitted, emitted: seen.emitted, last: "llm.request" });
    expect(stored).toEqual(emitted);
    expect(stored.at(-1)?.type).toBe("run.finished");
  });

  it("flushes a failed run's log, run.finished included, before it returns", async () => {
    const { deps, emitted, stored } = bufferingDeps(
      () =>
        new ScriptedModel(() => {
          throw new Error("connection reset by peer");
        }),
    );
    const result = await runReflect(deps, request());
    expect(result.status).toBe("failed");
    expect(stored).toEqual(emitted);
    expect(stored.at(-1)?.type).toBe("run.finished");
  });

  it("flushes a facts-mode run, which calls no model, before it returns", async () => {
    const { deps, emitted, stored } = bufferingDeps(() => new ScriptedModel([]));
    const result = await runReflect(deps, request({ mode: "facts" }));
    expect(result.status).not.toBe("failed");
    expect(stored.length).toBeGreaterThan(1);
    expect(stored).toEqual(emitted);
    expect(stored.at(-1)?.type).toBe("run.finished");
  });
});
