import { describe, expect, it } from "vitest";
import { foldRun } from "@/lib/timeline/fold";
import { plural, repeatedCall, words } from "@/lib/timeline/format";
import { runTiming, timeShareLine } from "@/lib/timeline/timing";
import { LogBuilder } from "@/test/fixtures/timeline/builder";
import { staleRun } from "@/test/fixtures/timeline/scenarios";

describe("runTiming", () => {
  it("splits the run's time into model, tools and the rest, in whole percentages adding up to 100", () => {
    const b = new LogBuilder("run-t").started();
    const [c0] = b.turn(0, {
      forced: "search_mental_models",
      calls: [{ name: "search_mental_models", args: {} }],
      latencyMs: 600,
    });
    b.search(0, "mental_models", "q", "r", [], { callId: c0 });
    b.turn(1, { calls: [{ name: "done", args: {} }], latencyMs: 200 });
    const view = foldRun(b.events);
    const t = runTiming(view);
    expect(t.modelMs).toBe(800);
    expect(t.toolMs).toBe(view.iterations[0]?.toolMs);
    expect(t.toolMs).toBeGreaterThan(0);
    expect(t.totalMs).toBeGreaterThanOrEqual(t.modelMs + t.toolMs);
    expect(t.shares.model + t.shares.tools + t.shares.other).toBe(100);
    expect(t.shares.model).toBeGreaterThan(t.shares.tools);
    expect(timeShareLine(t)).toMatch(/^model \d+ % · tools \d+ % · other \d+ %$/);
  });

  it("places each iteration on the run's span, later iterations further right", () => {
    const view = foldRun(staleRun());
    const t = runTiming(view);
    const offsets = view.iterations.map((it) => t.iterations.get(it.index)?.offsetPct ?? -1);
    expect(offsets.every((o) => o >= 0 && o <= 100)).toBe(true);
    expect([...offsets].sort((a, b) => a - b)).toEqual(offsets);
    expect(offsets.at(-1)).toBeGreaterThan(offsets[0] ?? 0);
    for (const it of view.iterations) {
      const row = t.iterations.get(it.index);
      expect(row?.tokensIn).toBe(it.tokensIn);
      expect((row?.offsetPct ?? 0) + (row?.modelPct ?? 0)).toBeLessThanOrEqual(100.0001);
    }
  });

  it("charges no model time to a replayed response", () => {
    const b = new LogBuilder("run-r").started();
    b.turn(0, { calls: [{ name: "done", args: {} }], latencyMs: 900 });
    const events = b.events.map((e) =>
      e.type === "llm.response" ? { ...e, payload: { ...e.payload, replayed: true } } : e,
    );
    const t = runTiming(foldRun(events));
    expect(t.modelMs).toBe(0);
  });

  it("says nothing about shares when no time was recorded", () => {
    const t = runTiming(foldRun(new LogBuilder("run-0").started().events));
    expect(timeShareLine(t)).toBeNull();
  });
});

describe("wording", () => {
  it("pluralises counts in one place", () => {
    expect(plural(1, "iteration")).toBe("1 iteration");
    expect(plural(0, "row")).toBe("0 rows");
    expect(plural(2, "memory", "memories")).toBe("2 memories");
    expect(plural(5000, "event")).toBe("5000 events");
  });
  it("turns wire keys into words", () => {
    expect(words("up_to_date")).toBe("up to date");
    expect(words("policy_reject")).toBe("policy reject");
  });
});

describe("repeatedCall", () => {
  it("says what a ladder signature repeated, without its internal key", () => {
    expect(repeatedCall('recall:{"query":"launch"}:db down: timeout')).toBe(
      "the same recall call for “launch”, failing with “db down: timeout”",
    );
    expect(repeatedCall('search_observations:{"query":"x"}:')).toBe("the same search_observations call for “x”");
    expect(repeatedCall("done:4ac8acb0856c9691:no evidence")).toBe("the same done call");
  });
});
