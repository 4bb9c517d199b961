/** Traces other systems send (GenAI, OpenInference, Hindsight) read as imported runs; bad spans rejected with the reason. */
import { describe, expect, it } from "vitest";
import { textProblem } from "@/lib/contracts/text";
import { allRows, foldRun, type TierRow } from "@/lib/timeline/fold";
import { runToOtlp } from "@/lib/timeline/otlp";
import { spansFromOtlpJson, tierFromName, traceToRun } from "@/lib/timeline/otlp-import";
import { genAiTrace, hindsightTrace, openInferenceTrace, trace } from "@/test/fixtures/otlp/traces";

function imported(body: unknown) {
  const batch = spansFromOtlpJson(JSON.parse(JSON.stringify(body)));
  expect(batch.rejected).toBe(0);
  const run = traceToRun(batch.spans);
  return { run, view: foldRun(run.events) };
}

const tierRows = (view: ReturnType<typeof foldRun>) => allRows(view).filter((r): r is TierRow => r.kind === "tier");

describe("GenAI conventions", () => {
  const { run, view } = imported(genAiTrace());

  it("reads the agent span as the run: question, answer, model, source", () => {
    expect(view.header.question).toBe("Where does Ana work?");
    expect(view.answer).toBe("Ana works at Globex.");
    expect(view.header.model).toEqual({ kind: "imported", name: "gpt-4o" });
    expect(view.header.skill?.name).toBe("memory-agent");
    expect(view.header.skill?.mission).toBe("Answers from the user's memories.");
    expect(run.source).toMatchObject({ serviceName: "memory-agent", sdkName: "opentelemetry", sdkLanguage: "python" });
    expect(view.flags).toEqual(["imported"]);
    expect(view.header.warnings.join(" ")).toMatch(/service "memory-agent".*budget, mode, scope, skill/);
  });

  it("maps chat spans to model calls with their messages, tool calls and usage, one iteration each", () => {
    expect(view.iterations).toHaveLength(2);
    expect(view.iterations.map((i) => [i.tokensIn, i.tokensOut, i.toolCalls])).toEqual([
      [100, 20, ["recall"]],
      [150, 10, []],
    ]);
    const request = run.events.find((e) => e.type === "llm.request");
    expect(request?.type === "llm.request" && request.payload.messages).toEqual([
      { role: "system", content: "Use the memory tools." },
      { role: "user", content: "Where does Ana work?" },
    ]);
    expect(view.header.tokensIn).toBe(250);
  });

  it("maps execute_tool and retrieval spans to tier queries with their hits; unknown spans to generic rows", () => {
    expect(tierRows(view).map((r) => [r.tool, r.tier, r.query, r.result?.outcome, r.result?.ids])).toEqual([
      ["recall", "raw_facts", "Ana employer", "success", { mental_models: [], observations: [], raw_facts: ["f1"] }],
      ["kb/observations", "observations", "Ana", "success", { mental_models: [], observations: ["o1"], raw_facts: [] }],
      ["POST", null, null, "success", { mental_models: [], observations: [], raw_facts: [] }],
    ]);
    expect(view.iterations[0]?.rows.map((r) => r.kind)).toEqual(["tier", "tier", "tier"]);
  });

  it("invents nothing the trace lacks: no freshness, steering, guard or citation rows", () => {
    expect(allRows(view).filter((r) => r.kind !== "tier")).toEqual([]);
    expect(view.citations).toEqual([]);
  });
});

describe("OpenInference", () => {
  const { view } = imported(openInferenceTrace());

  it("reads AGENT input/output, LLM messages and token counts", () => {
    expect(view.header.question).toBe("What did Ben buy?");
    expect(view.answer).toBe("A bike.");
    expect(view.header.model?.name).toBe("llama-3.1-8b");
    expect(view.iterations[0]).toMatchObject({ tokensIn: 50, tokensOut: 5, toolCalls: ["search_observations"] });
  });

  it("maps a RETRIEVER to a tier query with its documents (and their text), a TOOL to a generic row", () => {
    const rows = tierRows(view);
    expect(rows.map((r) => [r.tool, r.tier, r.query, r.result?.count])).toEqual([
      ["retrieve observations", "observations", "Ben purchase", 2],
      ["lookup_calendar", null, null, 0],
    ]);
    expect(rows[0]?.result?.ids.observations).toEqual(["obs-7", "obs-8"]);
    const call = view.iterations[0]?.rows[1];
    expect(call?.kind === "tier" && call.tool).toBe("lookup_calendar");
  });

  it("reads a tool's arguments from input.value, not tool.parameters (a schema in OpenInference)", () => {
    const { run } = imported(openInferenceTrace());
    const call = run.events.find((e) => e.type === "tool.call" && e.payload.tool === "lookup_calendar");
    expect(call?.type === "tool.call" && call.payload.args).toEqual({ date: "2024-05-01" });
  });
});

describe("Hindsight", () => {
  const { run, view } = imported(hindsightTrace());

  it("maps hindsight.reflect_tool_exec.<tool> to its tiers, with call id, arguments and duration", () => {
    const rows = tierRows(view);
    expect(rows.map((r) => [r.tool, r.tier, r.callId, r.query, r.result?.outcome, r.result?.durationMs])).toEqual([
      ["search_mental_models", "mental_models", "call_a", "Atlas launch", "success", 29],
      ["search_observations", "observations", "call_b", null, "error", 4],
      ["recall", "raw_facts", "call_c", "Atlas launch date", "success", 88],
      ["expand", null, "call_d", null, "success", 39],
      ["hindsight.reflect_tool_call", null, "span_c000000000000008", null, "success", 390],
    ]);
    expect(rows[1]?.result?.error).toBe("search_observations requires a query parameter");
  });

  it("takes the answer and citations from done, the bank from the trace, the question from the first prompt", () => {
    expect(view.answer).toBe("The Atlas launch is on 12 March.");
    expect(view.citations.map((c) => [c.id, c.tier])).toEqual([
      ["mm1", "mental_models"],
      ["m1", "raw_facts"],
    ]);
    expect(run.bankId).toBe("team-notes");
    expect(view.header.question).toBe("When is the Atlas launch?");
    expect(view.iterations.map((i) => i.tokensIn)).toEqual([300, 500]);
  });

  it("reads a model call's messages and tool calls from the events Hindsight puts them on", () => {
    const request = run.events.find((e) => e.type === "llm.request");
    expect(request?.type === "llm.request" && request.payload.messages).toEqual([
      { role: "system", content: "You are a reflect agent." },
      { role: "user", content: "When is the Atlas launch?" },
    ]);
    const response = run.events.find((e) => e.type === "llm.response");
    expect(response?.type === "llm.response" && response.payload).toMatchObject({
      finishReason: "tool_calls",
      toolCalls: [{ id: "call_a", name: "search_mental_models", arguments: '{"query":"Atlas launch"}' }],
    });
  });

  it("never drops a span: every span but the root is a model call or a row", () => {
    const spans = hindsightTrace().resourceSpans[0]!.scopeSpans[0]!.spans.length;
    const calls = run.events.filter((e) => e.type === "llm.request" || e.type === "tool.call").length;
    expect(calls).toBe(spans - 1);
  });
});

describe("bad spans", () => {
  it("are rejected one by one with the reason, the rest kept", () => {
    const body = genAiTrace();
    const spans = body.resourceSpans[0]!.scopeSpans[0]!.spans as Record<string, unknown>[];
    spans.push({ ...spans[1], spanId: "abc", name: "short id" });
    spans.push({
      ...spans[1],
      spanId: "ffffffffffffff01",
      startTimeUnixNano: "20",
      endTimeUnixNano: "10",
      name: "backwards",
    });
    spans.push({ ...spans[1], spanId: "ffffffffffffff02", traceId: "0".repeat(32), name: "zero trace" });
    spans.push({ ...spans[1], spanId: "ffffffffffffff03", name: "" });
    const batch = spansFromOtlpJson(body);
    expect(batch.spans).toHaveLength(6);
    expect(batch.rejected).toBe(4);
    expect(batch.reasons.join("\n")).toMatch(/"short id": spanId must be 16 hex digits/);
    expect(batch.reasons.join("\n")).toMatch(/"backwards": ends before it starts/);
    expect(batch.reasons.join("\n")).toMatch(/"zero trace": traceId is all zeroes/);
    expect(batch.reasons.join("\n")).toMatch(/has no name/);
  });

  it("refuse values nested too deep, and keep keys like __proto__ as data", () => {
    let deep: unknown = { stringValue: "x" };
    for (let i = 0; i < 20; i++) deep = { arrayValue: { values: [deep] } };
    const body = trace("3cf7651916cd43dd8448eb211c80319e", {}, [
      { id: "d000000000000001", name: "root", start: 0, end: 1, attributes: {} },
    ]);
    const span = body.resourceSpans[0]!.scopeSpans[0]!.spans[0]! as { attributes: unknown[] };
    span.attributes.push({ key: "deep", value: deep }, { key: "__proto__", value: { stringValue: "polluted" } });
    const batch = spansFromOtlpJson(body);
    expect(batch.rejected).toBe(1);
    expect(batch.reasons[0]).toMatch(/nested deeper/);
    span.attributes.splice(0, 1);
    const ok = spansFromOtlpJson(body);
    expect(Object.getOwnPropertyDescriptor(ok.spans[0]!.attributes, "__proto__")?.value).toBe("polluted");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("throw only for a body that is no request at all", () => {
    expect(() => spansFromOtlpJson([])).toThrow(/not an ExportTraceServiceRequest/);
    expect(() => spansFromOtlpJson({ resourceSpans: {} })).toThrow(/not a list/);
    expect(spansFromOtlpJson({})).toEqual({ spans: [], rejected: 0, reasons: [] });
  });
});

describe("tolerant reader of this project's export", () => {
  it("reads ids sent as base64 (a protobuf JSON mapping) like hex", () => {
    const body = openInferenceTrace();
    for (const s of body.resourceSpans[0]!.scopeSpans[0]!.spans) {
      s.traceId = Buffer.from(s.traceId, "hex").toString("base64");
    }
    const batch = spansFromOtlpJson(body);
    expect(batch.rejected).toBe(0);
    expect(batch.spans[0]!.traceId).toBe("1bf7651916cd43dd8448eb211c80319d");
  });

  it("accepts usage on chat spans only, retriever spans as CLIENT with output.value, and error.type", async () => {
    const { readFileSync } = await import("node:fs");
    const { RunEvent } = await import("@/lib/reflect/events");
    const events = readFileSync(new URL("../../fixtures/golden/fresh.jsonl", import.meta.url), "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => RunEvent.parse(JSON.parse(l)));
    const body = JSON.parse(JSON.stringify(runToOtlp(events)));
    const spans = body.resourceSpans[0].scopeSpans[0].spans as {
      name: string;
      kind: number;
      attributes: { key: string; value: unknown }[];
    }[];
    const root = spans[0]!;
    root.attributes = root.attributes.filter(
      (a) => !a.key.startsWith("gen_ai.usage.") && !a.key.startsWith("llm.token_count."),
    );
    for (const s of spans.filter((x) => x.name.startsWith("retrieval "))) {
      s.kind = 3;
      s.attributes.push({ key: "output.value", value: { stringValue: "[]" } });
    }
    for (const s of spans.filter((x) => x.name.startsWith("execute_tool "))) {
      s.attributes = s.attributes.map((a) =>
        a.key === "tool.parameters" ? { key: a.key, value: { stringValue: '{"type":"object"}' } } : a,
      );
    }
    const view = foldRun(traceToRun(spansFromOtlpJson(body).spans).events);
    const original = foldRun(events);
    expect(view.header.tokensIn).toBe(original.header.tokensIn);
    expect(tierRows(view).map((r) => [r.tool, r.query, r.result?.ids])).toEqual(
      tierRows(original).map((r) => [r.tool, r.query, r.result?.ids]),
    );
  });
});

it("names tiers from tool, retriever and data-source names, and nothing else", () => {
  expect(tierFromName("search_mental_models")).toBe("mental_models");
  expect(tierFromName("bank/observations")).toBe("observations");
  expect(tierFromName("recall")).toBe("raw_facts");
  expect(tierFromName("vector_store_lookup")).toBeNull();
  expect(tierFromName("expand")).toBeNull();
});

describe("hostile traces", () => {
  it("numbers a foreign trace's iterations by its model calls (its own reflect.iteration ignored) and clamps counts", () => {
    const body = genAiTrace();
    const spans = body.resourceSpans[0]!.scopeSpans[0]!.spans as { attributes: { key: string; value: unknown }[] }[];
    spans[1]!.attributes.push({ key: "reflect.iteration", value: { intValue: "1000000000" } });
    spans[1]!.attributes.push({ key: "gen_ai.usage.input_tokens", value: { doubleValue: 1e300 } });
    const { view } = imported(body);
    expect(view.iterations.map((i) => [i.index, i.toolCalls])).toEqual([
      [0, ["recall"]],
      [1, []],
    ]);
    expect(view.iterations[0]?.tokensIn).toBe(1e12);
  });

  it("caps a service name that would flood the header", () => {
    const body = genAiTrace();
    body.resourceSpans[0]!.resource.attributes = [
      { key: "service.name", value: { stringValue: "x".repeat(100_000) } },
    ] as never;
    const { run } = imported(body);
    expect(run.source.serviceName).toHaveLength(200);
    expect(run.bankId.length).toBeLessThanOrEqual(200);
  });
});

describe("text a trace carries", () => {
  it("is stored as valid text: a NUL or a lone surrogate anywhere becomes U+FFFD (HTML would drop or replace it, breaking the page's hydration)", () => {
    const bad = "a\u0000b\ud800c\udfffd";
    const body = genAiTrace();
    body.resourceSpans[0]!.resource.attributes.push({ key: "service.name", value: { stringValue: bad } } as never);
    const spans = body.resourceSpans[0]!.scopeSpans[0]!.spans as unknown as Record<string, unknown>[];
    const s = spans[1]!;
    s.name = `chat ${bad}`;
    s.status = { code: 2, message: bad };
    (s.attributes as unknown[]).push(
      { key: `k${bad}`, value: { stringValue: bad } },
      {
        key: "nested",
        value: {
          arrayValue: {
            values: [{ stringValue: bad }, { kvlistValue: { values: [{ key: "x", value: { stringValue: bad } }] } }],
          },
        },
      },
    );
    s.events = [
      {
        name: `e${bad}`,
        timeUnixNano: String(s.startTimeUnixNano),
        attributes: [{ key: "m", value: { stringValue: bad } }],
      },
    ];
    (spans[0]!.attributes as unknown[]).push({ key: "input.value", value: { stringValue: `Where ${bad}?` } });
    const batch = spansFromOtlpJson(body);
    const text = JSON.stringify(batch.spans);
    expect(text).toContain("a\ufffdb\ufffdc\ufffdd");
    const run = traceToRun(batch.spans);
    const strings: string[] = [];
    JSON.stringify({ spans: batch.spans, run }, (_k, v) => {
      if (typeof v === "string") strings.push(v);
      return v;
    });
    for (const str of strings) expect(textProblem(str), JSON.stringify(str.slice(0, 80))).toBeNull();
    expect(run.question).toBe("Where a\ufffdb\ufffdc\ufffdd?");
  });
});

describe("a huge question", () => {
  it("is cut to a native question's 4,000 characters, and the warnings say how long it was", () => {
    const body = genAiTrace();
    const spans = body.resourceSpans[0]!.scopeSpans[0]!.spans as unknown as { attributes: unknown[] }[];
    spans[0]!.attributes.push({ key: "input.value", value: { stringValue: "q".repeat(1_000_000) } });
    const { run, view } = imported(body);
    expect(run.question).toBe(`${"q".repeat(4000)}…`);
    expect(view.header.question).toBe(run.question);
    expect(view.header.warnings.join(" ")).toMatch(/The question is 1,000,000 characters; the first 4,000 are shown/);
  });
});

describe("a run that ended in error, round trip", () => {
  it.each([
    ["interrupted", { message: "interrupted: the cli that ran it stopped", phase: "interrupted" }],
    ["failed", { message: "the model broke", phase: "model.call (iteration 1)" }],
  ] as const)("an exported %s run imports with its status and its error receipt", async (status, error) => {
    const { LogBuilder } = await import("@/test/fixtures/timeline/builder");
    const b = new LogBuilder(`run-${status}`).started();
    b.finished({ status, error });
    const { run } = imported(runToOtlp(b.events));
    const finished = run.events.find((e) => e.type === "run.finished");
    expect(finished?.type === "run.finished" && finished.payload.status).toBe(status);
    expect(finished?.type === "run.finished" && finished.payload.error).toEqual(error);
  });
});
