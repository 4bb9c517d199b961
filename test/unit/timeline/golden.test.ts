/** The timeline fold over the engine's golden event logs (test/fixtures/golden, written by the engine tests). */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { RunEvent } from "@/lib/reflect/events";
import { allRows, foldRun, type SteeringRow, type TierRow } from "@/lib/timeline/fold";
import { modelCalls } from "@/lib/timeline/messages";

function golden(name: string): RunEvent[] {
  const path = fileURLToPath(new URL(`../../fixtures/golden/${name}.jsonl`, import.meta.url));
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => RunEvent.parse(JSON.parse(l)));
}

const tierRows = (events: RunEvent[]) => allRows(foldRun(events)).filter((r): r is TierRow => r.kind === "tier");

describe("golden: fresh", () => {
  const view = foldRun(golden("fresh"));

  it("short-circuits after one forced mental-model iteration", () => {
    expect(view.iterations.map((i) => [i.mode, i.forcedTool])).toEqual([
      ["forced", "search_mental_models"],
      ["auto", null],
    ]);
    expect(view.iterations[0]!.rows.map((r) => r.kind)).toEqual(["tier", "freshness"]);
    expect(view.iterations[0]!.rows[1]).toMatchObject({ verdict: "release" });
    expect(view.badges.map((b) => b.flag)).toEqual(["short_circuited"]);
  });

  it("links the cited mental model to the retrieving row with its content", () => {
    const mmRow = view.iterations[0]!.rows[0]!;
    const [citation] = view.citations;
    expect(citation).toMatchObject({ tier: "mental_models", status: "kept", retrievedByRowId: mmRow.id });
    expect(citation!.text).toContain("March 14");
    expect((mmRow as TierRow).citedIds.has(citation!.id)).toBe(true);
  });

  it("does not show the done call as a retrieval", () => {
    expect(view.iterations[1]!.rows.map((r) => r.kind)).toEqual(["citations"]);
  });
});

describe("golden: stale", () => {
  const events = golden("stale");
  const view = foldRun(events);

  it("forces mental models, observations and recall in order, then finishes under auto", () => {
    expect(view.iterations.map((i) => i.forcedTool ?? i.mode)).toEqual([
      "search_mental_models",
      "search_observations",
      "recall",
      "auto",
    ]);
    expect(tierRows(events).map((r) => r.tier)).toEqual(["mental_models", "observations", "raw_facts"]);
    expect(view.iterations[0]!.rows[1]).toMatchObject({ kind: "freshness", verdict: "keep_forcing" });
    expect(view.badges.map((b) => b.flag)).not.toContain("short_circuited");
  });

  it("traces every kept citation to the tier row that returned it", () => {
    const rows = new Map(allRows(view).map((r) => [r.id, r]));
    expect(view.citations.length).toBeGreaterThan(0);
    for (const c of view.citations.filter((x) => x.status === "kept")) {
      const row = rows.get(c.retrievedByRowId ?? "");
      expect(row?.kind === "tier" && row.tier).toBe(c.tier);
      expect(row?.kind === "tier" && row.citedIds.has(c.id)).toBe(true);
      expect(c.text).toBeTruthy();
    }
  });
});

describe("golden: halted", () => {
  const view = foldRun(golden("halted"));
  const steering = allRows(view).filter((r): r is SteeringRow => r.kind === "steering");

  it("shows the nudge then the halt with their text, and the nudge injected into the next request", () => {
    expect(steering.map((s) => s.action)).toEqual(["nudge", "halt"]);
    expect(steering[0]!.text).toMatch(/No progress/);
    expect(steering[1]!.text).toMatch(/3 times/);
    const nudgeIteration = steering[0]!.iteration!;
    expect(view.iterations.find((i) => i.index === nudgeIteration + 1)?.injections).toEqual(["nudge"]);
  });

  it("ends halted with a forced done, both steering badges and the probe's missed evidence", () => {
    expect(view.header.status).toBe("halted");
    expect(view.iterations.at(-1)).toMatchObject({ mode: "forced", forcedTool: "done" });
    // Recall kept failing, so the raw facts the probe finds for the question were never seen.
    expect(view.badges.map((b) => b.flag)).toEqual(["nudged", "halted", "missed_evidence"]);
    expect(view.probe).toMatchObject({ missed: true, strong: true });
    expect(view.probe?.hits.map((h) => h.id)).toEqual(["f1", "f2"]);
  });
});

describe("golden: no evidence", () => {
  const events = golden("no-evidence");
  const view = foldRun(events);

  it("shows every tier query as empty and ends with no citations", () => {
    expect(tierRows(events).every((r) => r.result?.outcome === "empty")).toBe(true);
    expect(view.header.status).toBe("no_evidence");
    expect(view.citations).toEqual([]);
    expect(allRows(view).some((r) => r.kind === "citations")).toBe(false);
  });
});

describe("golden: degraded", () => {
  const events = golden("degraded");
  const view = foldRun(events);

  it("shows the guard retry then degradation, with the corrective retry marked request-scoped", () => {
    const guards = allRows(view).filter((r) => r.kind === "guard");
    expect(guards.map((g) => g.kind === "guard" && g.action === "output" && g.outcome)).toEqual(["retry", "degraded"]);
    const retryCall = modelCalls(events).find((c) => c.messages.some((m) => m.injection === "guard_retry"));
    expect(retryCall?.iteration).toBe(guards[1]!.iteration);
    expect(view.header.status).toBe("degraded");
    expect(view.badges.map((b) => b.flag)).toContain("degraded");
  });
});
