import { describe, expect, it } from "vitest";
import { countRows, filterTimeline, isFailure, NO_FILTER, type TimelineFilter } from "@/lib/timeline/filter";
import { flattenTimeline } from "@/lib/timeline/flatten";
import { foldRun } from "@/lib/timeline/fold";
import { memoryHitFromContent, memoryHref } from "@/lib/timeline/memory-text";
import { makeLargeRun } from "@/test/fixtures/timeline/large-run";
import { freshRun, haltedRun, staleRun } from "@/test/fixtures/timeline/scenarios";

const all = (events: Parameters<typeof foldRun>[0]) => flattenTimeline(foldRun(events), new Set());
const f = (over: Partial<TimelineFilter>): TimelineFilter => ({ ...NO_FILTER, ...over });

describe("filterTimeline", () => {
  it("keeps everything when nothing is asked", () => {
    const items = all(staleRun());
    expect(filterTimeline(items, NO_FILTER)).toEqual(items);
  });

  it("finds rows by words of their query or reason, with the iteration header above each match", () => {
    const items = all(staleRun());
    const found = filterTimeline(items, f({ text: "LAUNCH date" }));
    const rows = found.filter((i) => i.type === "row");
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(countRows(items));
    for (const r of rows) expect(r.type === "row" && r.row.kind).toBe("tier");
    // Every row is preceded (somewhere above) by its iteration's header.
    for (const [i, item] of found.entries()) {
      if (item.type !== "row" || item.row.iteration === null) continue;
      const header = found.slice(0, i).findLast((h) => h.type === "iteration");
      expect(header?.type === "iteration" && header.iteration.index).toBe(item.row.iteration);
    }
    expect(filterTimeline(items, f({ text: "launch nowhere-to-be-found" }))).toEqual([]);
  });

  it("filters by row kind and by tier", () => {
    const items = all(staleRun());
    const freshness = filterTimeline(items, f({ kind: "freshness" })).filter((i) => i.type === "row");
    expect(freshness.length).toBeGreaterThan(0);
    expect(freshness.every((i) => i.type === "row" && i.row.kind === "freshness")).toBe(true);
    const obs = filterTimeline(items, f({ tier: "observations" })).filter((i) => i.type === "row");
    expect(obs.length).toBeGreaterThan(0);
    expect(obs.every((i) => i.type === "row" && i.row.kind === "tier" && i.row.tier === "observations")).toBe(true);
  });

  it("only steering and only failures", () => {
    const items = all(haltedRun());
    const steering = filterTimeline(items, f({ steeringOnly: true })).filter((i) => i.type === "row");
    expect(steering.map((i) => i.type === "row" && i.row.kind)).toEqual(steering.map(() => "steering"));
    expect(steering.length).toBeGreaterThan(0);
    const failures = filterTimeline(items, f({ failuresOnly: true })).filter((i) => i.type === "row");
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.every((i) => i.type === "row" && isFailure(i.row))).toBe(true);
    // A clean run has no failure rows; dropped citations are one.
    expect(filterTimeline(all(freshRun()), f({ failuresOnly: true }))).toEqual([]);
    const dropped = filterTimeline(all(staleRun()), f({ failuresOnly: true })).filter((i) => i.type === "row");
    expect(dropped.map((i) => i.type === "row" && i.row.kind)).toEqual(["citations"]);
  });

  it("shows matches inside an iteration the user collapsed", () => {
    const view = foldRun(staleRun());
    const collapsed = flattenTimeline(view, new Set(view.iterations.map((i) => i.index)));
    expect(countRows(collapsed)).toBe(0);
    const found = filterTimeline(flattenTimeline(view, new Set()), f({ kind: "tier" }));
    expect(countRows(found)).toBeGreaterThan(0);
    expect(found.every((i) => i.type !== "iteration" || !i.collapsed)).toBe(true);
  });

  it("narrows a 5,000-event run", () => {
    const items = all(makeLargeRun(5000));
    const found = filterTimeline(items, f({ tier: "raw_facts" }));
    expect(countRows(found)).toBeGreaterThan(0);
    expect(countRows(found)).toBeLessThan(countRows(items));
  });
});

describe("memoryHitFromContent", () => {
  const content = JSON.stringify({
    query: "q",
    count: 2,
    memories: [
      { id: "f-1", text: "first", occurred_at: null, recorded_at: "2026-01-02T00:00:00Z" },
      { id: "f-2", text: "second", occurred_at: "2026-02-03", recorded_at: "2026-02-04T00:00:00Z" },
    ],
  });
  it("reads the text, date and rank of a returned memory", () => {
    expect(memoryHitFromContent(content, "raw_facts", "f-2")).toEqual({ text: "second", date: "2026-02-03", rank: 2 });
    expect(memoryHitFromContent(content, "raw_facts", "f-1")).toEqual({
      text: "first",
      date: "2026-01-02T00:00:00Z",
      rank: 1,
    });
    expect(memoryHitFromContent(content, "raw_facts", "f-9").rank).toBeUndefined();
  });
  it("still finds the text and rank in a result cut at the cap", () => {
    const cut = `${content.slice(0, content.indexOf('"occurred_at":"2026-02-03"'))}…[truncated]`;
    expect(memoryHitFromContent(cut, "raw_facts", "f-2")).toMatchObject({ text: "second", rank: 2 });
  });
  it("links a memory to its tier in /memory", () => {
    expect(memoryHref("demo", "raw_facts", "f 1")).toBe("/memory?bank=demo&tier=raw_facts&id=f+1");
  });
});
