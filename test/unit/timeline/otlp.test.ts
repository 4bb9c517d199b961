/** OTLP/JSON export of the engine's golden event logs. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { noTierIds, RunEvent } from "@/lib/reflect/events";
import { TOOL_DEFINITIONS } from "@/lib/reflect/tools";
import { errorType, type OtlpAttribute, type OtlpSpan, runToOtlp } from "@/lib/timeline/otlp";
import { langfuseTraceTokens, langfuseUsageDetails, phoenixTraceTokens } from "@/test/fixtures/otlp-viewers";
import { LogBuilder } from "@/test/fixtures/timeline/builder";

function golden(name: string): RunEvent[] {
  const path = fileURLToPath(new URL(`../../fixtures/golden/${name}.jsonl`, import.meta.url));
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => RunEvent.parse(JSON.parse(l)));
}

const EPOCH = Date.UTC(2025, 0, 2, 3, 4, 5);

/** Round-trips through JSON text, as a file download or an HTTP push would. */
function exported(name: string): OtlpSpan[] {
  const text = JSON.stringify(runToOtlp(golden(name), { epochMs: EPOCH, serviceName: "test-svc" }));
  const trace = JSON.parse(text) as ReturnType<typeof runToOtlp>;
  return trace.resourceSpans[0]!.scopeSpans[0]!.spans;
}

function attr(span: OtlpSpan | undefined, key: string): unknown {
  const value = span?.attributes.find((a: OtlpAttribute) => a.key === key)?.value;
  if (!value) return undefined;
  if ("stringValue" in value) return value.stringValue;
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return value.doubleValue;
  if ("boolValue" in value) return value.boolValue;
  return value.arrayValue.values.map((v) => ("stringValue" in v ? v.stringValue : v));
}

const kind = (s: OtlpSpan) => attr(s, "openinference.span.kind");

describe.each(["fresh", "stale", "halted", "degraded", "no-evidence"])("golden %s as OTLP", (name) => {
  const spans = exported(name);

  it("is one trace with exactly one root span, the invoke_agent AGENT span", () => {
    const roots = spans.filter((s) => !s.parentSpanId);
    expect(roots).toHaveLength(1);
    expect(roots[0]!.name).toBe("invoke_agent reflect");
    expect(kind(roots[0]!)).toBe("AGENT");
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect(spans[0]!.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it("gives every span a unique id and a parent that exists in the trace", () => {
    const ids = spans.map((s) => s.spanId);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
    for (const s of spans.filter((x) => x.parentSpanId)) expect(ids).toContain(s.parentSpanId);
  });

  it("keeps every child inside its parent's time range", () => {
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    for (const s of spans) {
      expect(BigInt(s.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(s.startTimeUnixNano));
      const parent = s.parentSpanId ? byId.get(s.parentSpanId) : undefined;
      if (!parent) continue;
      expect(BigInt(s.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(parent.startTimeUnixNano));
      expect(BigInt(s.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(parent.endTimeUnixNano));
    }
  });

  it("is deterministic: the same log exports to the same ids", () => {
    expect(exported(name).map((s) => s.spanId)).toEqual(spans.map((s) => s.spanId));
  });

  it("counts the run's tokens once in Phoenix and once in Langfuse (usage on the chat spans only)", () => {
    const finished = golden(name).find((e) => e.type === "run.finished");
    if (finished?.type !== "run.finished") throw new Error("unreachable");
    const usage = { input: finished.payload.usage.inputTokens, output: finished.payload.usage.outputTokens };
    expect(usage.input).toBeGreaterThan(0);
    expect(phoenixTraceTokens(spans)).toEqual(usage);
    expect(langfuseTraceTokens(spans)).toEqual(usage);
    // Only LLM spans carry usage a viewer reads; the root keeps the totals under reflect.*.
    for (const s of spans) {
      if (kind(s) !== "LLM") expect(langfuseUsageDetails(s)).toEqual({});
    }
    const root = spans.find((s) => !s.parentSpanId)!;
    expect(attr(root, "reflect.usage.input_tokens")).toBe(usage.input);
  });

  it("gives every span an OpenInference kind, and every search a CLIENT retrieval under a search_memory span", () => {
    for (const s of spans) expect(kind(s)).toEqual(expect.any(String));
    const retrievals = spans.filter((s) => attr(s, "gen_ai.operation.name") === "retrieval");
    expect(retrievals.length).toBeGreaterThan(0);
    for (const r of retrievals) {
      expect(r.kind).toBe(3);
      const memory = spans.find((s) => s.spanId === r.parentSpanId)!;
      expect(memory.name).toBe("search_memory");
      expect(memory.kind).toBe(3);
      expect(attr(memory, "gen_ai.operation.name")).toBe("search_memory");
      // The memory attributes live on the memory span, not on the retrieval span.
      expect(r.attributes.some((a) => a.key.startsWith("gen_ai.memory."))).toBe(false);
      const docs = JSON.parse(attr(r, "output.value") as string) as { id: string; score: number }[];
      expect(attr(memory, "gen_ai.memory.record.count")).toBe(docs.length);
      expect(attr(r, "output.mime_type")).toBe("application/json");
      // Every document score is an OTLP double, 1.0 included.
      for (const a of r.attributes.filter((x) => x.key.endsWith(".document.score"))) {
        expect(a.value).toEqual({ doubleValue: expect.any(Number) });
      }
    }
  });
});

describe("span shapes (golden fresh)", () => {
  const events = golden("fresh");
  const spans = exported("fresh");
  const root = spans.find((s) => !s.parentSpanId)!;

  it("has one chat span per model call, with model name, usage and finish reason", () => {
    const chats = spans.filter((s) => attr(s, "gen_ai.operation.name") === "chat");
    const responses = events.filter((e) => e.type === "llm.response");
    expect(chats).toHaveLength(responses.length);
    expect(chats[0]!.name).toBe("chat scripted-test-model");
    expect(chats[0]!.parentSpanId).toBe(root.spanId);
    expect(kind(chats[0]!)).toBe("LLM");
    const first = responses[0]!;
    if (first.type !== "llm.response") throw new Error("unreachable");
    expect(attr(chats[0], "gen_ai.usage.input_tokens")).toBe(first.payload.tokensIn);
    expect(attr(chats[0], "gen_ai.usage.output_tokens")).toBe(first.payload.tokensOut);
    expect(attr(chats[0], "gen_ai.response.finish_reasons")).toEqual([first.payload.finishReason]);
    expect(attr(chats[0], "gen_ai.request.model")).toBe("scripted-test-model");
    expect(attr(chats[0], "llm.input_messages.0.message.role")).toBe("system");
    expect(attr(chats[0], "reflect.tool_choice")).toBe("search_mental_models");
  });

  it("times spans from the run epoch plus the event offsets", () => {
    const request = events.find((e) => e.type === "llm.request")!;
    const response = events.find((e) => e.type === "llm.response")!;
    const chat = spans.find((s) => attr(s, "gen_ai.operation.name") === "chat")!;
    expect(chat.startTimeUnixNano).toBe(String(BigInt(EPOCH + request.at) * 1_000_000n));
    expect(chat.endTimeUnixNano).toBe(String(BigInt(EPOCH + response.at) * 1_000_000n));
  });

  it("exports tool calls as execute_tool TOOL spans and tier searches as GenAI retrieval / OpenInference RETRIEVER children", () => {
    const tool = spans.find((s) => s.name === "execute_tool search_mental_models")!;
    expect(attr(tool, "gen_ai.operation.name")).toBe("execute_tool");
    expect(attr(tool, "gen_ai.tool.name")).toBe("search_mental_models");
    expect(attr(tool, "gen_ai.tool.call.id")).toEqual(expect.any(String));
    expect(kind(tool)).toBe("TOOL");
    expect(tool.parentSpanId).toBe(root.spanId);

    // OpenInference: tool.parameters is the tool's parameter schema; the call's arguments are the input.
    expect(JSON.parse(attr(tool, "tool.parameters") as string)).toEqual(
      TOOL_DEFINITIONS.search_mental_models!.function.parameters,
    );
    expect(JSON.parse(attr(tool, "input.value") as string)).toEqual(
      JSON.parse(attr(tool, "gen_ai.tool.call.arguments") as string),
    );
    expect(JSON.parse(attr(tool, "input.value") as string)).toHaveProperty("query");

    const memory = spans.find((s) => s.parentSpanId === tool.spanId)!;
    const search = spans.find((s) => s.parentSpanId === memory.spanId)!;
    expect(search.name).toBe("retrieval bank/mental_models");
    expect(kind(search)).toBe("RETRIEVER");
    expect(attr(search, "gen_ai.operation.name")).toBe("retrieval");
    expect(attr(search, "gen_ai.data_source.id")).toBe("bank/mental_models");
    expect(attr(search, "gen_ai.retrieval.query.text")).toEqual(expect.any(String));
    // The memory span's store is the bank, never the tier.
    expect(attr(memory, "gen_ai.memory.store.id")).toBe("bank");
    expect(attr(memory, "gen_ai.memory.query.text")).toBe(attr(search, "gen_ai.retrieval.query.text"));
    expect(memory.attributes.some((a) => a.key === "gen_ai.memory.store.name")).toBe(false);
    const docs = JSON.parse(attr(search, "gen_ai.retrieval.documents") as string) as { id: string; score: number }[];
    expect(docs.length).toBe(attr(memory, "gen_ai.memory.record.count"));
    expect(docs.length).toBeGreaterThan(0);
    expect(docs[0]!.score).toBe(1);
    docs.forEach((d, i) => {
      expect(attr(search, `retrieval.documents.${i}.document.id`)).toBe(d.id);
      expect(attr(search, `retrieval.documents.${i}.document.score`)).toBe(d.score);
    });
    expect(attr(search, "retrieval.documents.0.document.content")).toEqual(expect.stringContaining("March 14"));

    const done = spans.find((s) => s.name === "execute_tool done")!;
    expect(spans.some((s) => s.parentSpanId === done.spanId)).toBe(false);
  });

  it("records the freshness check as a span event and the citations as root attributes", () => {
    const check = root.events.find((e) => e.name === "reflect.freshness_check")!;
    expect(check.attributes.find((a) => a.key === "reflect.verdict")?.value).toEqual({ stringValue: "release" });
    const finished = events.find((e) => e.type === "run.finished")!;
    if (finished.type !== "run.finished") throw new Error("unreachable");
    expect(attr(root, "reflect.citations.mental_model_ids")).toEqual(finished.payload.citations.mental_model_ids);
    expect(attr(root, "reflect.citations.memory_ids")).toEqual(finished.payload.citations.memory_ids);
    expect(attr(root, "output.value")).toBe(finished.payload.answer);
    expect(attr(root, "reflect.usage.input_tokens")).toBe(finished.payload.usage.inputTokens);
    expect(attr(root, "gen_ai.usage.input_tokens")).toBeUndefined();
    expect(attr(root, "llm.token_count.prompt")).toBeUndefined();
    expect(root.status.code).toBe(1);
  });
});

describe("steering and guards", () => {
  it("records nudge and halt as root span events", () => {
    const root = exported("halted").find((s) => !s.parentSpanId)!;
    expect(root.events.map((e) => e.name)).toEqual(
      expect.arrayContaining(["reflect.steering_nudge", "reflect.steering_halt", "reflect.citations_validated"]),
    );
    expect(attr(root, "reflect.status")).toBe("halted");
  });

  it("records output-guard actions as span events", () => {
    const root = exported("degraded").find((s) => !s.parentSpanId)!;
    expect(root.events.filter((e) => e.name === "reflect.guard_output")).toHaveLength(2);
  });

  it("marks failed tool calls as errors", () => {
    const spans = exported("halted");
    const tools = spans.filter((s) => attr(s, "gen_ai.operation.name") === "execute_tool");
    const failing = tools.filter((s) => s.status.code === 2);
    expect(failing.length).toBeGreaterThan(0);
    for (const s of failing) expect(attr(s, "error.type")).toEqual(expect.any(String));
  });
});

describe("errors", () => {
  it("names a failed run's error.type by its phase class, never the sentence", () => {
    expect(errorType("tool.result (iteration 2)")).toBe("tool.result");
    expect(errorType("setup (memory counts)")).toBe("setup");
    expect(errorType("memory.countInScope")).toBe("memory.countInScope");
    expect(errorType("Something odd: it broke at 12:00")).toBe("_OTHER");

    const b = new LogBuilder("run-failed").started();
    b.turn(0, { calls: [{ name: "recall", args: { query: "launch" } }] });
    b.search(0, "raw_facts", "launch", "why", [], { callId: "call-1", error: "database is locked" });
    b.finished({ status: "failed", error: { message: "every search failed", phase: "tool.result (iteration 0)" } });
    const spans = runToOtlp(b.events).resourceSpans[0]!.scopeSpans[0]!.spans;
    const root = spans.find((s) => !s.parentSpanId)!;
    expect(root.status.code).toBe(2);
    expect(attr(root, "error.type")).toBe("tool.result");
    expect(attr(root, "reflect.error.phase")).toBe("tool.result (iteration 0)");
    // The failed search: its retrieval and memory spans are errors with a type too.
    for (const op of ["retrieval", "search_memory"]) {
      const s = spans.find((x) => attr(x, "gen_ai.operation.name") === op)!;
      expect(s.status.code).toBe(2);
      expect(attr(s, "error.type")).toBe("error");
    }
  });

  it.each([
    ["interrupted", { message: "interrupted: the cli that ran it stopped", phase: "interrupted" }, 2, "interrupted"],
    ["failed", { message: "the model broke", phase: "model.call (iteration 1)" }, 2, "model.call"],
    ["halted", null, 1, undefined],
    ["degraded", null, 1, undefined],
    ["done", null, 1, undefined],
    ["no_evidence", null, 1, undefined],
  ] as const)("a %s run's root span: error.type only with status ERROR (OTel)", (status, error, code, type) => {
    const b = new LogBuilder(`run-${status}`).started();
    b.finished({ status, error });
    const root = runToOtlp(b.events).resourceSpans[0]!.scopeSpans[0]!.spans.find((s) => !s.parentSpanId)!;
    expect(root.status.code).toBe(code);
    expect(attr(root, "error.type")).toBe(type);
    if (error) expect(root.status.message).toBe(error.message);
    // Never one without the other, whatever the status.
    expect(attr(root, "error.type") !== undefined).toBe(root.status.code === 2);
  });
});

describe("span order", () => {
  it("lists spans in log order when a turn's calls run side by side", () => {
    const b = new LogBuilder("run-parallel").started();
    const [a, c] = b.turn(0, {
      calls: [
        { name: "search_observations", args: { query: "launch" } },
        { name: "recall", args: { query: "launch" } },
      ],
    });
    const call = (callId: string, tool: "search_observations" | "recall", tier: "observations" | "raw_facts") =>
      b.emit("tool.call", { callId, tool, tier, query: "launch", reason: null, args: { query: "launch" } }, 0);
    const result = (callId: string, tool: "search_observations" | "recall", tier: "observations" | "raw_facts") =>
      b.emit(
        "tool.result",
        {
          callId,
          tool,
          tier,
          outcome: "empty",
          ids: noTierIds(),
          count: 0,
          chars: 2,
          cap: 100,
          truncated: false,
          durationMs: 1,
          error: null,
          signature: tool,
          content: "{}",
        },
        0,
      );
    call(a!, "search_observations", "observations");
    call(c!, "recall", "raw_facts");
    result(a!, "search_observations", "observations");
    result(c!, "recall", "raw_facts");
    const spans = runToOtlp(b.events).resourceSpans[0]!.scopeSpans[0]!.spans;
    expect(spans.map((s) => s.name)).toEqual([
      "invoke_agent reflect",
      "chat offline-extractive",
      "execute_tool search_observations",
      "execute_tool recall",
      "search_memory",
      "retrieval acme/observations",
      "search_memory",
      "retrieval acme/raw_facts",
    ]);
  });
});

describe("a run still in flight", () => {
  it("exports an unset root status and closes open spans at the last event", () => {
    const events = golden("fresh").filter((e) => e.seq <= 3);
    const spans = runToOtlp(events, { epochMs: EPOCH }).resourceSpans[0]!.scopeSpans[0]!.spans;
    const root = spans.find((s) => !s.parentSpanId)!;
    expect(root.status.code).toBe(0);
    expect(attr(root, "reflect.status")).toBe("running");
    const tool = spans.find((s) => s.name.startsWith("execute_tool"))!;
    expect(tool.endTimeUnixNano).toBe(String(BigInt(EPOCH + events[3]!.at) * 1_000_000n));
  });

  it("uses the service name on the resource", () => {
    const trace = runToOtlp(golden("fresh"), { serviceName: "svc" });
    expect(trace.resourceSpans[0]!.resource.attributes).toContainEqual({
      key: "service.name",
      value: { stringValue: "svc" },
    });
  });
});
