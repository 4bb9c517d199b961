/** The missed-evidence probe in the views over the walk: its own step, the run view's section, the OTLP span. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { RunEvent } from "@/lib/reflect/events";
import { allRows, foldRun } from "@/lib/timeline/fold";
import { runToOtlp } from "@/lib/timeline/otlp";
import { walkRun, walkSteps } from "@/lib/timeline/walk";

function golden(name: string): RunEvent[] {
  const path = fileURLToPath(new URL(`../../fixtures/golden/${name}.jsonl`, import.meta.url));
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => RunEvent.parse(JSON.parse(l)));
}

describe("probe in the timeline", () => {
  it("is one run-level step after the loop, and the walk keeps its event", () => {
    const events = golden("halted");
    const walk = walkRun(events);
    const probeSteps = walkSteps(walk).filter((s) => s.kind === "probe");
    expect(probeSteps).toHaveLength(1);
    expect(walk.after.map((s) => s.kind)).toContain("probe");
    expect(walk.probe?.payload.hits.map((h) => h.id)).toEqual(["f1", "f2"]);
  });

  it("is the view's own section, not a timeline row, flagged when the run was", () => {
    const halted = foldRun(golden("halted"));
    expect(allRows(halted).some((r) => r.id === halted.probe?.id)).toBe(false);
    expect(halted.probe).toMatchObject({
      missed: true,
      strong: true,
      queries: ["When is the Atlas launch?", "Atlas launch"],
    });
    const fresh = foldRun(golden("fresh"));
    // Strong hits the run did not retrieve, but a positive answer: shown, not flagged.
    expect(fresh.probe).toMatchObject({ missed: false, strong: true });
    expect(fresh.flags).not.toContain("missed_evidence");
  });

  it("a run without a probe (recorded before it existed, or still running) has no section", () => {
    const events = golden("fresh").filter((e) => e.type !== "probe.finished");
    expect(foldRun(events).probe).toBeNull();
  });

  it("is a reflect.probe span in the OTLP trace, ending when its event was logged", () => {
    const events = golden("halted");
    const probeEvent = events.find((e) => e.type === "probe.finished")!;
    const spans = runToOtlp(events, { epochMs: 0 }).resourceSpans[0]!.scopeSpans[0]!.spans;
    const span = spans.find((s) => s.name === "reflect.probe");
    expect(span?.endTimeUnixNano).toBe(String(probeEvent.at * 1_000_000));
    const attr = (key: string) => span?.attributes.find((a) => a.key === key)?.value;
    expect(attr("reflect.probe.strong")).toEqual({ boolValue: true });
    expect(attr("reflect.probe.hit_ids")).toEqual({
      arrayValue: { values: [{ stringValue: "f1" }, { stringValue: "f2" }] },
    });
    expect(span?.status).toEqual({ code: 1 });
    // OpenInference: an EVALUATOR (Phoenix would show a span without a kind as UNKNOWN).
    expect(attr("openinference.span.kind")).toEqual({ stringValue: "EVALUATOR" });
    expect(JSON.parse((attr("output.value") as { stringValue: string }).stringValue)).toHaveLength(2);
  });
});
