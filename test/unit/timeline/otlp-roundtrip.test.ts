/**
 * Round trip (issue 33 item 2): this project's own OTLP export of every golden event log, ingested
 * again, gives an imported run whose timeline rows, model calls, tier queries and citations match
 * the original — through OTLP/JSON text and through the protobuf bytes the push sends.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { emptyCitations } from "@/lib/reflect/domain";
import { RunEvent } from "@/lib/reflect/events";
import { decodeTraceRequest } from "@/lib/server/http/otlp-decode";
import { compareRuns } from "@/lib/timeline/compare";
import { allRows, foldRun, type RunView, type TimelineRow } from "@/lib/timeline/fold";
import { runToOtlp } from "@/lib/timeline/otlp";
import { groupByTrace, spansFromOtlpJson, traceToRun } from "@/lib/timeline/otlp-import";
import { encodeTraceProtobuf } from "@/lib/timeline/otlp-protobuf";
import { staleRun } from "@/test/fixtures/timeline/scenarios";

const dir = fileURLToPath(new URL("../../fixtures/golden/", import.meta.url));
const GOLDEN = readdirSync(dir)
  .filter((f) => f.endsWith(".jsonl"))
  .map((f) => f.replace(/\.jsonl$/, ""));

function golden(name: string): RunEvent[] {
  return readFileSync(`${dir}${name}.jsonl`, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => RunEvent.parse(JSON.parse(l)));
}

const EPOCH = Date.UTC(2026, 0, 2, 3, 4, 5);

/** What a reader compares on a timeline row (ids and times are the importer's own). */
function rowShape(r: TimelineRow) {
  switch (r.kind) {
    case "tier":
      return {
        kind: r.kind,
        iteration: r.iteration,
        tool: r.tool,
        tier: r.tier,
        query: r.query,
        outcome: r.result?.outcome ?? null,
        ids: r.result?.ids ?? null,
        count: r.result?.count ?? null,
        cited: [...r.citedIds].sort(),
      };
    case "freshness":
      return {
        kind: r.kind,
        iteration: r.iteration,
        verdict: r.verdict,
        models: r.models.map((m) => [m.id, m.isStale]),
      };
    case "steering":
      return { kind: r.kind, iteration: r.iteration, action: r.action, text: r.text, trigger: r.trigger };
    case "guard":
      return { kind: r.kind, iteration: r.iteration, action: r.action };
    case "citations":
      return { kind: r.kind, kept: r.kept, dropped: r.dropped, ungrounded: r.ungrounded, declined: r.declined };
    case "reasoning":
      return { kind: r.kind, iteration: r.iteration, text: r.text };
  }
}

function modelCalls(view: RunView) {
  return view.iterations.map((it) => ({
    index: it.index,
    mode: it.mode,
    forcedTool: it.forcedTool,
    llmCalls: it.llmCalls,
    tokensIn: it.tokensIn,
    tokensOut: it.tokensOut,
    toolCalls: it.toolCalls,
    text: it.text,
  }));
}

function citations(view: RunView) {
  return view.citations.map((c) => ({
    id: c.id,
    tier: c.tier,
    status: c.status,
    reason: c.reason,
    retrievedTier: c.retrievedTier,
    text: c.text,
  }));
}

function expectSameRun(original: RunEvent[], imported: RunEvent[]) {
  const a = foldRun(original);
  const b = foldRun(imported);
  expect(allRows(b).map(rowShape)).toEqual(allRows(a).map(rowShape));
  expect(modelCalls(b)).toEqual(modelCalls(a));
  expect(citations(b)).toEqual(citations(a));
  expect(b.answer).toBe(a.answer);
  expect(b.header.status).toBe(a.header.status);
  expect(b.header.question).toBe(a.header.question);
  expect(b.flags).toEqual([...a.flags, "imported"]);
  const cmp = compareRuns(original, imported);
  expect(cmp.firstDivergence).toBeNull();
  expect(cmp.answerChanged).toBe(false);
  expect(cmp.citations.every((c) => c.added.length === 0 && c.removed.length === 0)).toBe(true);
}

describe.each(GOLDEN)("golden %s exported as OTLP and imported again", (name) => {
  const original = golden(name);
  const trace = runToOtlp(original, { epochMs: EPOCH, sdkVersion: "9.9.9" });

  it("through OTLP/JSON: the same rows, model calls, tier queries and citations", () => {
    const batch = spansFromOtlpJson(JSON.parse(JSON.stringify(trace)));
    expect(batch.rejected).toBe(0);
    const traces = groupByTrace(batch.spans);
    expect(traces.size).toBe(1);
    const run = traceToRun([...traces.values()][0]!);
    expect(run.source).toMatchObject({
      serviceName: "reflect-inspector",
      sdkName: "reflect-inspector",
      sdkVersion: "9.9.9",
    });
    expectSameRun(original, run.events);
  });

  it("through the protobuf bytes the push sends: the same run", () => {
    const batch = spansFromOtlpJson(decodeTraceRequest(encodeTraceProtobuf(trace)));
    expect(batch.rejected).toBe(0);
    const run = traceToRun(batch.spans);
    expectSameRun(original, run.events);
  });

  it("exports again as the same trace shape (an imported run is exportable)", () => {
    const run = traceToRun(spansFromOtlpJson(JSON.parse(JSON.stringify(trace))).spans);
    const again = runToOtlp(run.events, { epochMs: run.epochMs });
    const back = traceToRun(spansFromOtlpJson(JSON.parse(JSON.stringify(again))).spans);
    expectSameRun(original, back.events);
  });
});

it("covers every golden log", () => {
  expect(GOLDEN.length).toBeGreaterThanOrEqual(5);
});

describe("a decline exported and imported again", () => {
  const base = golden("fresh");
  const withVerdict = (payload: Record<string, unknown>) =>
    base.map((e) =>
      e.type === "citations.validated" ? RunEvent.parse({ ...e, payload: { ...e.payload, ...payload } }) : e,
    );
  const imported = (events: RunEvent[]) =>
    foldRun(
      traceToRun(spansFromOtlpJson(JSON.parse(JSON.stringify(runToOtlp(events, { epochMs: EPOCH })))).spans).events,
    );
  const verdict = (view: RunView) => allRows(view).find((r) => r.kind === "citations");

  it("keeps `declined`", () => {
    const events = withVerdict({ kept: emptyCitations(), ungrounded: false, declined: true });
    expect(verdict(foldRun(events))).toMatchObject({ declined: true });
    expectSameRun(
      events,
      traceToRun(spansFromOtlpJson(JSON.parse(JSON.stringify(runToOtlp(events, { epochMs: EPOCH })))).spans).events,
    );
  });

  it("a span that says both ungrounded and declined, or declined with citations kept, is not read as a decline", () => {
    expect(verdict(imported(withVerdict({ kept: emptyCitations(), ungrounded: true, declined: true })))).toMatchObject({
      ungrounded: true,
      declined: false,
    });
    expect(verdict(imported(withVerdict({ ungrounded: false, declined: true })))).toMatchObject({ declined: false });
  });
});

describe("dropped citations exported and imported again", () => {
  const roundTrip = (events: RunEvent[]) =>
    traceToRun(spansFromOtlpJson(JSON.parse(JSON.stringify(runToOtlp(events, { epochMs: EPOCH })))).spans).events;

  it("keep their claimed tier when one id was claimed under two tiers", () => {
    const dropped = [
      { id: "x9", claimedTier: "raw_facts", reason: "never_retrieved" },
      { id: "x9", claimedTier: "observations", reason: "wrong_tier" },
    ];
    const events = golden("fresh").map((e) => {
      if (e.type === "tool.call" && e.payload.tool === "done") {
        return RunEvent.parse({
          ...e,
          payload: {
            ...e.payload,
            args: { ...(e.payload.args as Record<string, unknown>), memory_ids: ["x9"], observation_ids: ["x9"] },
          },
        });
      }
      if (e.type === "citations.validated") return RunEvent.parse({ ...e, payload: { ...e.payload, dropped } });
      if (e.type === "run.finished") return RunEvent.parse({ ...e, payload: { ...e.payload, dropped } });
      return e;
    });
    expectSameRun(events, roundTrip(events));
  });

  it("keep their claimed tier when the trace carries no done span", () => {
    const events = staleRun();
    expect(events.some((e) => e.type === "tool.call" && e.payload.tool === "done")).toBe(false);
    expectSameRun(events, roundTrip(events));
  });
});
