import { describe, expect, it } from "vitest";
import { RunEvent } from "@/lib/reflect/events";
import { badgesFromFlags } from "@/lib/timeline/badges";
import { findEvent } from "@/lib/timeline/event-lookup";
import { flattenTimeline } from "@/lib/timeline/flatten";
import {
  allRows,
  createRunFolder,
  foldRun,
  type SteeringRow,
  type TierRow,
  type TimelineRow,
} from "@/lib/timeline/fold";
import { makeLargeRun } from "@/test/fixtures/timeline/large-run";
import {
  degradedRun,
  factsRun,
  freshRun,
  HALT_REASON,
  haltedRun,
  LAUNCH_MODEL,
  NO_EVIDENCE_ANSWER,
  NUDGE_TEXT,
  noEvidenceRun,
  staleRun,
} from "@/test/fixtures/timeline/scenarios";

const kinds = (rows: TimelineRow[]) => rows.map((r) => r.kind);
const tierRows = (rows: TimelineRow[]) => rows.filter((r): r is TierRow => r.kind === "tier");

describe("timeline fold: fresh mental model (short-circuit)", () => {
  const view = foldRun(freshRun());

  it("shows a forced mental-model iteration followed by an auto iteration", () => {
    expect(view.iterations.map((i) => [i.index, i.mode, i.forcedTool])).toEqual([
      [0, "forced", "search_mental_models"],
      [1, "auto", null],
    ]);
  });

  it("puts the mental-model query and the release verdict under iteration 0", () => {
    const [first] = view.iterations;
    expect(kinds(first!.rows)).toEqual(["tier", "freshness"]);
    const [tier, freshness] = first!.rows;
    expect(tier).toMatchObject({
      kind: "tier",
      tier: "mental_models",
      query: "launch date",
      reason: "a curated summary may answer it",
      result: { outcome: "success", count: 1, ids: { mental_models: [LAUNCH_MODEL.id] } },
    });
    expect(freshness).toMatchObject({
      kind: "freshness",
      verdict: "release",
      models: [{ id: LAUNCH_MODEL.id, isStale: false, usable: true }],
    });
  });

  it("does not turn the done call into a tier row", () => {
    expect(kinds(view.iterations[1]!.rows)).toEqual(["citations"]);
    expect(view.iterations[1]!.toolCalls).toEqual(["done"]);
  });

  it("badges the run short-circuited and reports the finished header", () => {
    expect(view.badges.map((b) => b.flag)).toEqual(["short_circuited"]);
    expect(view.header).toMatchObject({
      status: "done",
      question: "What did we decide about the launch date?",
      skill: { name: "recap", version: 2 },
      budget: "mid",
      mode: "synthesize",
      scope: "personal",
      model: { kind: "offline" },
      llmCalls: 2,
      tokensIn: 800,
      tokensOut: 80,
    });
    expect(view.header.durationMs).toBe(freshRun().at(-1)!.at);
  });

  it("links the cited mental model to the row that retrieved it, with its text", () => {
    const mmRow = view.iterations[0]!.rows[0]!;
    expect(view.citations).toEqual([
      {
        id: LAUNCH_MODEL.id,
        tier: "mental_models",
        status: "kept",
        retrievedByRowId: mmRow.id,
        retrievedTier: "mental_models",
        text: `**${LAUNCH_MODEL.name}**\n\n${LAUNCH_MODEL.text}`,
      },
    ]);
    expect([...(mmRow as TierRow).citedIds]).toEqual([LAUNCH_MODEL.id]);
    expect(view.answer).toContain("March 3");
  });
});

describe("timeline fold: stale mental model", () => {
  const view = foldRun(staleRun());

  it("forces the three tiers in order, then lets the model finish under auto", () => {
    expect(view.iterations.map((i) => i.forcedTool ?? i.mode)).toEqual([
      "search_mental_models",
      "search_observations",
      "recall",
      "auto",
    ]);
    expect(tierRows(allRows(view)).map((r) => r.tier)).toEqual(["mental_models", "observations", "raw_facts"]);
  });

  it("records a keep-forcing verdict naming the stale model and why", () => {
    const freshness = view.iterations[0]!.rows.find((r) => r.kind === "freshness");
    expect(freshness).toMatchObject({
      verdict: "keep_forcing",
      why: expect.stringContaining("stale"),
      models: [{ id: LAUNCH_MODEL.id, isStale: true, reason: "3 newer memories in scope" }],
    });
    expect(view.badges.map((b) => b.flag)).not.toContain("short_circuited");
  });

  it("links each kept citation to its retrieving row and marks that row's cited results", () => {
    const [, obsRow, factRow] = tierRows(allRows(view));
    const byId = new Map(view.citations.map((c) => [c.id, c]));
    expect(byId.get("f-1")).toMatchObject({
      status: "kept",
      retrievedByRowId: factRow!.id,
      text: expect.stringContaining("March 10"),
    });
    expect(byId.get("obs-1")).toMatchObject({
      status: "kept",
      retrievedByRowId: obsRow!.id,
      text: "Launch slipped twice.",
    });
    expect([...factRow!.citedIds]).toEqual(["f-1"]);
    expect(factRow!.result!.ids.raw_facts).toEqual(["f-1", "f-2"]);
  });

  it("shows a never-retrieved citation as dropped with no retrieving row", () => {
    const dropped = view.citations.find((c) => c.id === "f-999");
    expect(dropped).toEqual({ id: "f-999", tier: "raw_facts", status: "dropped", reason: "never_retrieved" });
  });

  it("points a wrong-tier citation at the row that really returned it", () => {
    const factRow = tierRows(allRows(view))[2]!;
    expect(view.citations.find((c) => c.id === "f-2")).toMatchObject({
      status: "dropped",
      reason: "wrong_tier",
      tier: "observations",
      retrievedTier: "raw_facts",
      retrievedByRowId: factRow.id,
    });
    expect(factRow.citedIds.has("f-2")).toBe(false);
  });
});

describe("timeline fold: halted by the no-progress ladder", () => {
  const view = foldRun(haltedRun());
  const steering = allRows(view).filter((r): r is SteeringRow => r.kind === "steering");

  it("shows the nudge, the anchor and the halt with the exact text and trigger", () => {
    expect(steering.map((s) => [s.iteration, s.action])).toEqual([
      [3, "nudge"],
      [4, "anchor"],
      [4, "halt"],
    ]);
    expect(steering[0]!.text).toBe(NUDGE_TEXT);
    expect(steering[0]!.triggerLabel).toContain("no progress since iteration 2");
    expect(steering[2]!.text).toBe(HALT_REASON);
  });

  it("marks which request carried the request-scoped injections", () => {
    expect(view.iterations[4]!.injections).toEqual(["nudge", "anchor"]);
    expect(view.iterations[3]!.injections).toEqual([]);
  });

  it("classifies the repeated failing recalls as errors", () => {
    const outcomes = tierRows(allRows(view)).map((r) => r.result?.outcome);
    expect(outcomes).toEqual(["empty", "success", "error", "error", "error"]);
  });

  it("ends halted with the nudged and halted badges", () => {
    expect(view.header.status).toBe("halted");
    expect(view.badges.map((b) => b.flag)).toEqual(["nudged", "halted", "anchored"]);
    expect(view.iterations.at(-1)).toMatchObject({ mode: "forced", forcedTool: "done" });
  });
});

describe("timeline fold: no evidence", () => {
  const view = foldRun(noEvidenceRun());

  it("has no iterations, no rows and no citations, and shows the fixed answer", () => {
    expect(view.iterations).toEqual([]);
    expect(allRows(view)).toEqual([]);
    expect(view.citations).toEqual([]);
    expect(view.header).toMatchObject({ status: "no_evidence", llmCalls: 0, scope: "team:ops" });
    expect(view.answer).toBe(NO_EVIDENCE_ANSWER);
  });
});

describe("timeline fold: degraded output", () => {
  const view = foldRun(degradedRun());
  const guards = allRows(view).filter((r) => r.kind === "guard");

  it("shows dropped calls, the retry and the degradation as guard rows in order", () => {
    expect(guards.map((g) => (g.action === "output" ? `output:${g.outcome}` : g.action))).toEqual([
      "calls_dropped",
      "output:retry",
      "output:degraded",
    ]);
    expect(guards[0]).toMatchObject({ calls: [{ name: "recall" }] });
  });

  it("marks the corrective retry request as a request-scoped injection", () => {
    expect(view.iterations[2]!.injections).toEqual(["guard_retry"]);
  });

  it("badges the run degraded", () => {
    expect(view.header.status).toBe("degraded");
    expect(view.badges.map((b) => b.label)).toEqual(["degraded"]);
  });
});

describe("timeline fold: facts mode", () => {
  it("puts retrieval without a model call in run-level rows before the (absent) loop", () => {
    const view = foldRun(factsRun());
    expect(view.iterations).toEqual([]);
    expect(kinds(view.rowsBefore)).toEqual(["tier", "citations"]);
    expect(view.citations[0]).toMatchObject({ id: "f-1", retrievedByRowId: view.rowsBefore[0]!.id });
    const items = flattenTimeline(view, new Set());
    expect(items.map((i) => i.type)).toEqual(["section", "row", "row"]);
  });
});

describe("timeline fold: live runs", () => {
  it("is running until run.finished and derives badges from events meanwhile", () => {
    const events = haltedRun();
    const untilNudge = events.findIndex((e) => e.type === "steering.nudge") + 1;
    const view = foldRun(events.slice(0, untilNudge));
    expect(view.header.status).toBe("running");
    expect(view.answer).toBeNull();
    expect(view.badges.map((b) => b.flag)).toEqual(["nudged"]);
  });

  it("folds pushed batches to the same view as one fold, ignoring overlapping events", () => {
    const events = staleRun();
    const folder = createRunFolder();
    folder.push(events.slice(0, 7));
    folder.push(events.slice(4, 12));
    folder.push(events.slice(10));
    expect(folder.view()).toEqual(foldRun(events));
    expect(folder.lastSeq).toBe(events.length - 1);
  });

  it("hands out views that later events do not change", () => {
    const events = freshRun();
    const callIdx = events.findIndex((e) => e.type === "tool.call");
    const folder = createRunFolder();
    folder.push(events.slice(0, callIdx + 1));
    const early = folder.view();
    folder.push(events.slice(callIdx + 1));
    expect((early.iterations[0]!.rows[0] as TierRow).result).toBeNull();
    expect((folder.view().iterations[0]!.rows[0] as TierRow).result).not.toBeNull();
  });

  it("shows a tier row whose result has not arrived yet as pending", () => {
    const events = freshRun();
    const callIdx = events.findIndex((e) => e.type === "tool.call");
    const row = foldRun(events.slice(0, callIdx + 1)).iterations[0]!.rows[0] as TierRow;
    expect(row.result).toBeNull();
    expect(row.query).toBe("launch date");
  });
});

describe("timeline flatten", () => {
  it("hides a collapsed iteration's rows but keeps its header", () => {
    const view = foldRun(staleRun());
    const open = flattenTimeline(view, new Set());
    const closed = flattenTimeline(view, new Set([0]));
    expect(open.length - closed.length).toBe(view.iterations[0]!.rows.length);
    expect(closed[0]).toMatchObject({ type: "iteration", collapsed: true });
    expect(closed[1]).toMatchObject({ type: "iteration", iteration: { index: 1 } });
  });
});

describe("badges", () => {
  it("lists flags in a fixed order whatever order they arrive in", () => {
    expect(badgesFromFlags(["halted", "nudged"]).map((b) => b.label)).toEqual(["nudged", "halted"]);
  });
});

describe("large runs", () => {
  it("generates a valid log of exactly the requested size", () => {
    const events = makeLargeRun(600);
    expect(events).toHaveLength(600);
    for (const ev of events) RunEvent.parse(ev);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  });

  it("folds a 50k-event run and can look up any row's source event", () => {
    const events = makeLargeRun(50_000);
    const t0 = performance.now();
    foldRun(events);
    const t1 = performance.now();
    const view = foldRun(events);
    const t2 = performance.now();
    console.log(
      `foldRun(50k events): cold ${(t1 - t0).toFixed(1)} ms, warm ${(t2 - t1).toFixed(1)} ms, ${allRows(view).length} rows`,
    );
    expect(view.header.status).toBe("done");
    expect(view.citations.length).toBeGreaterThan(0);
    expect(view.citations.every((c) => c.retrievedByRowId && c.text)).toBe(true);
    const last = allRows(view).at(-1)!;
    expect(findEvent(events, last.seqs[0]!)?.seq).toBe(last.seqs[0]);
    // Its speed is the bench's to measure (timeline section); on a loaded machine this takes seconds.
  }, 60_000);
});
