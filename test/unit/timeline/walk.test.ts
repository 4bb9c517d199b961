/** The one walk of a run's event log that the timeline, compare, OTLP and messages views read. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { RunEvent } from "@/lib/reflect/events";
import { compareRuns } from "@/lib/timeline/compare";
import { foldRun } from "@/lib/timeline/fold";
import { createRunWalker, type ModelStep, modelUsage, type ToolStep, walkRun, walkSteps } from "@/lib/timeline/walk";
import { LogBuilder } from "@/test/fixtures/timeline/builder";
import { freshRun, haltedRun, staleRun } from "@/test/fixtures/timeline/scenarios";

function golden(name: string): RunEvent[] {
  const path = fileURLToPath(new URL(`../../fixtures/golden/${name}.jsonl`, import.meta.url));
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => RunEvent.parse(JSON.parse(l)));
}

/** The events a step stands for. */
function eventsOf(step: ReturnType<typeof walkSteps>[number]): number[] {
  if (step.kind === "model") return [step.request?.seq, step.response?.seq].filter((s) => s !== undefined);
  if (step.kind === "tool") return [step.call?.seq, step.result?.seq].filter((s) => s !== undefined);
  return [step.event.seq];
}

/** A fork: iteration 0's response replayed from the parent, iteration 1 live. */
function forkLog() {
  const b = new LogBuilder("run-fork").started({ parentRunId: "run-parent", forkedAtIteration: 1 });
  b.turn(0, { forced: "search_mental_models", calls: [{ name: "search_mental_models", args: { query: "q" } }] });
  const replayed = b.events.at(-1)!;
  if (replayed.type !== "llm.response") throw new Error("expected a response");
  replayed.payload.replayed = true;
  b.turn(1, { calls: [{ name: "recall", args: { query: "q" } }] });
  return b;
}

describe("run walk", () => {
  it.each(["fresh", "stale", "halted", "degraded", "no-evidence"])(
    "golden %s: every event lands in exactly one step, or is the run's start or finish",
    (name) => {
      const events = golden(name);
      const walk = walkRun(events);
      const seen = walkSteps(walk).flatMap(eventsOf);
      seen.push(walk.started!.seq, walk.finished!.seq);
      expect(seen.sort((a, b) => a - b)).toEqual(events.map((e) => e.seq));
    },
  );

  it("pairs each request with its response and each tool call with its result", () => {
    const walk = walkRun(staleRun());
    for (const step of walkSteps(walk)) {
      if (step.kind === "model") expect(step.request?.iteration).toBe(step.response?.iteration);
      if (step.kind === "tool") expect(step.result?.payload.callId).toBe(step.call?.payload.callId);
    }
    expect(walk.iterations.map((it) => it.steps.filter((s) => s.kind === "model").length)).toEqual([1, 1, 1, 1]);
  });

  it("keeps a response or result logged without its request or call as a step of its own", () => {
    const b = new LogBuilder("run-orphans").started();
    b.emit(
      "llm.response",
      {
        text: null,
        toolCalls: [],
        finishReason: "stop",
        tokensIn: 1,
        tokensOut: 1,
        latencyMs: 1,
        replayed: false,
      },
      0,
    );
    b.search(0, "raw_facts", "q", "r", [{ id: "f1", text: "a fact" }]);
    const walk = walkRun(b.events.filter((e) => e.type !== "tool.call"));
    const steps = walkSteps(walk);
    expect(steps.map((s) => s.kind)).toEqual(["model", "tool"]);
    expect((steps[0] as ModelStep).request).toBeNull();
    expect((steps[1] as ToolStep).call).toBeNull();
    expect(walk.retrievedBy.raw_facts.get("f1")).toBe(steps[1]);
  });

  it("replaces a step when its result arrives instead of changing the one handed out", () => {
    const events = freshRun();
    const callIdx = events.findIndex((e) => e.type === "tool.call");
    const walker = createRunWalker();
    walker.push(events.slice(0, callIdx + 1));
    const open = walker.walk.iterations[0]!.steps.find((s) => s.kind === "tool") as ToolStep;
    const version = walker.walk.iterations[0]!.version;
    walker.push(events.slice(callIdx + 1));
    const closed = walker.walk.iterations[0]!.steps.find((s) => s.kind === "tool") as ToolStep;
    expect(open.result).toBeNull();
    expect(closed).not.toBe(open);
    expect(closed.result).not.toBeNull();
    expect(walker.walk.iterations[0]!.version).toBeGreaterThan(version);
  });

  it("walks pushed batches to the same run as one walk, ignoring overlapping events", () => {
    const events = haltedRun();
    const walker = createRunWalker();
    walker.push(events.slice(0, 9));
    walker.push(events.slice(5, 15));
    walker.push(events.slice(12));
    expect(walker.walk).toEqual(walkRun(events));
  });

  it("derives the run's flags from its events while it runs", () => {
    const events = haltedRun();
    const halt = events.findIndex((e) => e.type === "steering.halt");
    expect(walkRun(events.slice(0, halt)).flags).not.toContain("halted");
    const before = walkRun(events.slice(0, halt)).flags;
    expect(walkRun(events.slice(0, halt + 1)).flags).toEqual(expect.arrayContaining([...before, "halted"]));
  });

  it("does not count a replayed response as a model call, so a running fork's header does not jump", () => {
    const b = forkLog();
    const walk = walkRun(b.events);
    expect(walk.llmCalls).toBe(1);
    expect(walk.flags).toEqual(["replayed"]);
    expect(foldRun(b.events).header.llmCalls).toBe(1);
  });

  it("counts calls per iteration the way the run total does: the timeline and compare add up to the header", () => {
    const b = forkLog();
    const view = foldRun(b.events);
    expect(view.iterations.map((it) => [it.llmCalls, it.replayed])).toEqual([
      [0, true],
      [1, false],
    ]);
    const steps = compareRuns(b.events, b.events).steps;
    expect(steps.map((s) => s.a?.llmCalls)).toEqual([0, 1]);
    expect(steps.map((s) => s.a?.replayed)).toEqual([true, false]);
  });

  it("says when an iteration's request is still without a response", () => {
    const b = new LogBuilder("run-open").started();
    b.turn(0, { forced: "search_mental_models", calls: [{ name: "search_mental_models", args: { query: "q" } }] });
    const answered = walkRun(b.events).iterations[0]!;
    expect(modelUsage(answered.steps).awaitingResponse).toBe(false);
    // Iteration 1's request went out; the process stopped before the response came back.
    const request = b.events.find((e) => e.type === "llm.request")!;
    const open = { ...request, seq: b.events.length, iteration: 1 } as RunEvent;
    const view = foldRun([...b.events, open]);
    expect(view.iterations[1]).toMatchObject({ llmCalls: 0, awaitingResponse: true });
    expect(view.iterations[0]).toMatchObject({ llmCalls: 1, awaitingResponse: false });
  });
});
