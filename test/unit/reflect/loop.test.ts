import { describe, expect, it } from "vitest";
import { NO_EVIDENCE_ANSWER } from "@/lib/reflect/digest";
import { runReflect } from "@/lib/reflect/engine";
import { ScopeNotPermittedError } from "@/lib/reflect/errors";
import { MAX_CALLS_PER_RESPONSE } from "@/lib/reflect/model-turns";
import type { ModelRequest, ModelResponse } from "@/lib/reflect/ports";
import { MAX_CITED_IDS, MAX_SEARCH_QUERY_CHARS } from "@/lib/reflect/tools";
import { fact, InMemoryMemory } from "@/test/fixtures/in-memory-memory";
import { call, done, forcedTool, reply, ScriptedModel } from "@/test/fixtures/scripted-model";
import { atlasMemory, harness, ofType, request, run, SKILL, toolsCalled } from "./harness";

/** Forced turns obey; auto turns come from `auto` in order; the forced final turn answers. */
function scripted(auto: ModelResponse[], final = reply(done("March 14.", { memory_ids: ["f1"] }))) {
  let n = 0;
  return new ScriptedModel((req: ModelRequest) => {
    const forced = forcedTool(req);
    if (forced === "done") return final;
    if (forced) return reply(call(forced, { query: "Atlas launch" }));
    const next = auto[n++];
    if (!next) throw new Error("script exhausted");
    return next;
  });
}

describe("tool names from the model", () => {
  for (const raw of ["functions.done", "call=functions.done", "done<|channel|>commentary"]) {
    it(`treats ${raw} as done`, async () => {
      const model = scripted([reply(call(raw, { answer: "March 14.", memory_ids: ["f1"] }))]);
      const { result, events } = await run(atlasMemory({ mentalModels: [] }), model);
      expect(result.status).toBe("done");
      expect(result.answer).toBe("March 14.");
      const response = ofType(events, "llm.response").at(-1)!;
      expect(response.payload.toolCalls[0]).toMatchObject({ name: "done", rawName: raw });
    });
  }

  it("treats recall<|channel|>done as recall", async () => {
    const memory = atlasMemory({ mentalModels: [] });
    const model = scripted([
      reply(call("recall<|channel|>done", { query: "Priya checklist" })),
      reply(done("Priya.", { memory_ids: ["f2"] })),
    ]);
    const { result } = await run(memory, model);
    expect(memory.searchesOf("recall").map((q) => q.query)).toContain("Priya checklist");
    expect(result.citations.memory_ids).toEqual(["f2"]);
  });
});

describe("recovery", () => {
  it("unknown tool → error → recall → done", async () => {
    const memory = atlasMemory({ mentalModels: [] });
    const model = scripted([
      reply(call("search_web", { query: "Atlas" })),
      reply(call("recall", { query: "Atlas launch moved" })),
      reply(done("March 14.", { memory_ids: ["f1"] })),
    ]);
    const { result, events } = await run(memory, model, { budget: "mid" });
    const unknown = ofType(events, "tool.result").find((e) => e.payload.tool === "search_web")!;
    expect(unknown.payload.outcome).toBe("unknown_tool");
    expect(unknown.payload.content).toContain("unknown tool");
    expect(result.status).toBe("done");
    expect(result.citations.memory_ids).toEqual(["f1"]);
  });

  it("a tool that throws once is retried by the model and the run finishes", async () => {
    const memory = atlasMemory({ mentalModels: [] }).fail("recall", "database is locked");
    const model = scripted([
      reply(call("recall", { query: "Atlas launch" })),
      reply(done("March 14.", { memory_ids: ["f1"] })),
    ]);
    const { result, events } = await run(memory, model);
    const results = ofType(events, "tool.result").filter((e) => e.payload.tool === "recall");
    expect(results.map((e) => e.payload.outcome)).toEqual(["error", "success"]);
    expect(results[0]!.payload.error).toContain("database is locked");
    expect(result.status).toBe("done");
  });

  it("invalid JSON arguments come back as a tool error", async () => {
    const model = scripted([reply(call("recall", "{not json")), reply(done("March 14.", { memory_ids: ["f1"] }))]);
    const { events } = await run(atlasMemory({ mentalModels: [] }), model);
    const bad = ofType(events, "tool.result").find((e) => e.payload.outcome === "error")!;
    expect(bad.payload.error).toMatch(/not valid JSON/);
  });

  it("a scope the bank does not permit is a policy rejection", async () => {
    const memory = new InMemoryMemory({ facts: [fact("f1", "Atlas launch on March 14")], permittedTeams: ["core"] });
    const model = scripted([reply(done("x"))]);
    const { events } = await run(memory, model, { scope: "team:ops" });
    expect(ofType(events, "tool.result")[0]!.payload.outcome).toBe("policy_reject");
    expect(ofType(events, "tool.result")[0]!.payload.error).toContain(
      new ScopeNotPermittedError("team:ops", "bank").message,
    );
  });

  it("generates ids for tool calls the model left without one", async () => {
    const anonymous = { ...call("recall", { query: "Atlas launch" }), id: "" };
    const model = scripted([reply(anonymous), reply(done("March 14.", { memory_ids: ["f1"] }))]);
    const { events } = await run(atlasMemory({ mentalModels: [] }), model);
    const ids = ofType(events, "tool.call").map((e) => e.payload.callId);
    expect(ids.every((id) => id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain("call_1");
  });

  it("executes parallel calls and answers each with its own tool message", async () => {
    const memory = atlasMemory({ mentalModels: [] });
    const model = scripted([
      reply(call("recall", { query: "Atlas launch" }, "c1"), call("search_observations", { query: "Priya" }, "c2")),
      reply(done("March 14.", { memory_ids: ["f1"] })),
    ]);
    await run(memory, model);
    const afterBatch = model.requests[3]!.messages;
    const assistant = afterBatch.findLast((m) => m.role === "assistant")!;
    expect(assistant.role === "assistant" && assistant.tool_calls?.map((c) => c.id)).toEqual(["c1", "c2"]);
    expect(afterBatch.slice(-2).map((m) => m.role === "tool" && m.tool_call_id)).toEqual(["c1", "c2"]);
  });

  it("done wins over the other calls of its turn, which are answered as dropped", async () => {
    const memory = atlasMemory({ mentalModels: [] });
    const model = scripted([
      reply(call("recall", { query: "Priya" }, "r9"), done("March 14.", { memory_ids: ["f1"] })),
    ]);
    const { result, events } = await run(memory, model);
    expect(ofType(events, "guard.calls_dropped")[0]!.payload.calls).toEqual([{ id: "r9", name: "recall" }]);
    expect(memory.searchesOf("recall").map((q) => q.query)).not.toContain("Priya");
    expect(result.status).toBe("done");
  });

  it("rejects done before any evidence was retrieved while a tier was never read", async () => {
    // The forced recall fails, so raw facts were never read: "I do not know" would be a guess.
    const memory = new InMemoryMemory({ facts: [fact("f1", "Atlas launch on March 14")] }).fail(
      "recall",
      "database is locked",
    );
    const model = new ScriptedModel([
      reply(call("recall", { query: "quarterly revenue" })),
      reply(done("I do not know.")),
      reply(call("recall", { query: "Atlas launch" })),
      reply(done("March 14.", { memory_ids: ["f1"] })),
    ]);
    const { result, events } = await run(memory, model, {
      skill: { ...request().skill, retrieval: { tags: [], types: ["episodic"], scope: "personal" } },
    });
    const rejected = ofType(events, "guard.done_rejected")[0]!.payload;
    expect(rejected.why).toBe("no_evidence_yet");
    expect(rejected.message).toContain("raw facts (recall) was never searched");
    expect(result.answer).toBe("March 14.");
  });

  it("caps large tool results and records the real size", async () => {
    const big = Array.from({ length: 40 }, (_, i) => fact(`f${i}`, `Atlas launch note ${i} ${"x".repeat(80)}`));
    const model = scripted([reply(done("Notes.", { memory_ids: ["f0"] }))]);
    const { events } = await run(new InMemoryMemory({ facts: big }), model, {
      toolResultCapChars: 500,
      skill: { ...request().skill, retrieval: { tags: [], types: ["episodic"], scope: "personal" } },
    });
    const r = ofType(events, "tool.result")[0]!.payload;
    expect(r.truncated).toBe(true);
    expect(r.chars).toBeGreaterThan(500);
    expect(r.content.length).toBeLessThanOrEqual(500);
    expect(r.cap).toBe(500);
  });

  it("clamps max_results to 1..50", async () => {
    const memory = atlasMemory({ mentalModels: [] });
    const model = scripted([
      reply(call("recall", { query: "Atlas", max_results: 500 }), call("recall", { query: "launch", max_results: 0 })),
      reply(done("March 14.", { memory_ids: ["f1"] })),
    ]);
    await run(memory, model);
    expect(memory.searchesOf("recall").map((q) => q.limit)).toEqual([20, 50, 1]);
  });
});

describe("citations", () => {
  it("keeps a real id and drops a fabricated one as never_retrieved", async () => {
    const model = scripted([reply(done("March 14.", { memory_ids: ["f1", "f999"] }))]);
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), model);
    expect(result.citations.memory_ids).toEqual(["f1"]);
    expect(result.dropped).toEqual([{ id: "f999", claimedTier: "raw_facts", reason: "never_retrieved" }]);
    expect(ofType(events, "citations.validated")[0]!.payload.ungrounded).toBe(false);
  });

  it("drops an observation id placed in memory_ids as wrong_tier", async () => {
    const model = scripted([reply(done("March 14.", { memory_ids: ["o1", "f1"] }))]);
    const { result } = await run(atlasMemory({ mentalModels: [] }), model);
    expect(result.citations.memory_ids).toEqual(["f1"]);
    expect(result.citations.observation_ids).toEqual([]);
    expect(result.dropped).toEqual([{ id: "o1", claimedTier: "raw_facts", reason: "wrong_tier" }]);
  });

  it("flags ungrounded when evidence exists but no citation survives", async () => {
    const model = scripted([reply(done("March 14.", { memory_ids: ["nope"] }))]);
    const { result } = await run(atlasMemory({ mentalModels: [] }), model);
    expect(result.flags).toContain("ungrounded");
    expect(result.citations).toEqual({ memory_ids: [], observation_ids: [], mental_model_ids: [] });
  });

  it("deduplicates repeated ids", async () => {
    const model = scripted([reply(done("March 14.", { memory_ids: ["f1", "f1"] }))]);
    const { result } = await run(atlasMemory({ mentalModels: [] }), model);
    expect(result.citations.memory_ids).toEqual(["f1"]);
  });
});

describe("no evidence", () => {
  it("an empty bank answers with the fixed text and zero model calls", async () => {
    const model = new ScriptedModel([]);
    const { result, events } = await run(new InMemoryMemory({}), model);
    expect(result).toMatchObject({ status: "no_evidence", answer: NO_EVIDENCE_ANSWER, llmCalls: 0 });
    expect(result.citations).toEqual({ memory_ids: [], observation_ids: [], mental_model_ids: [] });
    expect(model.calls).toBe(0);
    // The missed-evidence probe still looks (it makes no model call) and finds nothing to miss.
    expect(events.map((e) => e.type)).toEqual(["run.started", "probe.finished", "run.finished"]);
    expect(result.probe).toMatchObject({ hits: [], strong: false });
    expect(result.flags).not.toContain("missed_evidence");
  });

  it("a bank whose memories are all outside the run's scope counts as empty", async () => {
    const memory = new InMemoryMemory({ facts: [fact("f1", "Atlas launch", { scope: "team:ops" })] });
    const model = new ScriptedModel([]);
    const { result } = await run(memory, model);
    expect(result.status).toBe("no_evidence");
    expect(model.calls).toBe(0);
  });

  it("when every search comes back empty the final iteration makes no synthesis call", async () => {
    const memory = atlasMemory();
    const model = new ScriptedModel((req) => reply(call(forcedTool(req) ?? "recall", { query: "quarterly revenue" })));
    const { result } = await run(memory, model, { question: "What was the quarterly revenue?" });
    expect(result.status).toBe("no_evidence");
    expect(result.answer).toBe(NO_EVIDENCE_ANSWER);
    expect(model.calls).toBe(4);
    expect(model.requests.map(forcedTool)).not.toContain("done");
  });
});

describe("failures", () => {
  it("a model slower than the wall-clock limit fails with a receipt", async () => {
    const slow = new ScriptedModel(
      (req) =>
        new Promise<ModelResponse>((resolve) => {
          const t = setTimeout(() => resolve(reply(call("recall", { query: "x" }))), 2_000);
          req.signal?.addEventListener("abort", () => clearTimeout(t));
        }),
    );
    const h = harness(atlasMemory(), slow, { now: () => Date.now() });
    const result = await runReflect(h.deps, request({ wallClockMs: 50 }));
    expect(result.status).toBe("failed");
    expect(result.error).toEqual({ message: "wall-clock limit of 50 ms reached", phase: "llm.request (iteration 0)" });
    expect(slow.requests[0]!.signal?.aborted).toBe(true);
    expect(ofType(h.events, "run.finished")[0]!.payload.error?.message).toContain("wall-clock");
  });

  it("stops before the next model call or tool batch once the limit has passed", async () => {
    let t = 0;
    const model = scripted([reply(call("recall", { query: "Atlas" }))]);
    const h = harness(atlasMemory({ mentalModels: [] }), model, { now: () => (t += 40) });
    const result = await runReflect(h.deps, request({ wallClockMs: 200 }));
    expect(result.status).toBe("failed");
    expect(result.error?.message).toBe("wall-clock limit of 200 ms reached");
    expect(result.error?.phase).toMatch(/^(llm\.request|tool\.call) \(iteration \d\)$/);
  });

  it("a tool that never answers is cut off by the wall clock too", async () => {
    const memory = atlasMemory({ mentalModels: [] });
    memory.searchObservations = () => new Promise(() => {});
    const model = scripted([]);
    const h = harness(memory, model, { now: () => Date.now() });
    const result = await runReflect(h.deps, request({ wallClockMs: 100 }));
    expect(result.status).toBe("failed");
    expect(result.error).toEqual({ message: "wall-clock limit of 100 ms reached", phase: "tool.call (iteration 0)" });
    expect(ofType(h.events, "tool.call")).toHaveLength(1);
  });

  it("a model that throws fails the run with its message", async () => {
    const model = new ScriptedModel(() => {
      throw new Error("upstream 503: overloaded");
    });
    const { result } = await run(atlasMemory(), model);
    expect(result.status).toBe("failed");
    expect(result.error).toEqual({ message: "upstream 503: overloaded", phase: "llm.request (iteration 0)" });
  });

  it("a model with no tool call on the forced final turn ends degraded with the evidence digest, naming the model", async () => {
    const model = scripted(
      [reply(call("recall", { query: "Atlas" })), reply(call("recall", { query: "launch" }))],
      reply(),
    );
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), model);
    expect(result.status).toBe("degraded");
    expect(result.answer).toContain("[f1]");
    const degraded = ofType(events, "guard.output").find((g) => g.payload.action === "degraded")!;
    expect(degraded.payload.detail).toContain(
      'model "scripted-test-model" returned no tool call on the forced final turn',
    );
  });

  it("an aborted caller signal interrupts the run", async () => {
    const controller = new AbortController();
    const model = new ScriptedModel(() => {
      controller.abort();
      return new Promise<ModelResponse>(() => undefined);
    });
    const h = harness(atlasMemory(), model);
    const result = await runReflect(h.deps, request(), { signal: controller.signal });
    expect(result.status).toBe("interrupted");
  });

  it("an invalid request throws", async () => {
    const h = harness(atlasMemory(), new ScriptedModel([]));
    await expect(runReflect(h.deps, request({ question: "  " }))).rejects.toThrow();
  });
});

describe("replay (fork)", () => {
  it("reuses parent responses before the fork point and calls the model after it", async () => {
    const parent = [reply(call("search_mental_models", { query: "Atlas launch" }))];
    const live = new ScriptedModel([reply(done("March 14.", { mental_model_ids: ["mm1"] }))]);
    const { result, events } = await run(
      atlasMemory(),
      live,
      { parentRunId: "run_parent", forkedAtIteration: 1 },
      {
        replay: { forkAt: 1, responses: parent },
      },
    );
    expect(live.calls).toBe(1);
    expect(result.llmCalls).toBe(1);
    expect(result.flags).toContain("replayed");
    const responses = ofType(events, "llm.response");
    expect(responses.map((e) => e.payload.replayed)).toEqual([true, false]);
    expect(responses[0]!.payload).toMatchObject({ tokensIn: 0, tokensOut: 0, latencyMs: 0 });
    expect(toolsCalled(events)).toEqual(["search_mental_models", "done"]);
    expect(ofType(events, "run.started")[0]!.payload).toMatchObject({
      parentRunId: "run_parent",
      forkedAtIteration: 1,
    });
  });
});

describe("prompt", () => {
  it("states grounding rules, mission, disposition as prose, scope and output format", async () => {
    const model = scripted([reply(done("March 14.", { memory_ids: ["f1"] }))]);
    await run(atlasMemory(), model, { scope: "team:core" });
    const system = model.requests[0]!.messages[0]!.content as string;
    expect(system).toContain("Never invent");
    expect(system).toContain(request().skill.mission);
    expect(system).toContain("Disposition: concise, skeptical.");
    expect(system).not.toMatch(/\d\s*\/\s*\d|: \d(\.\d+)?\b/);
    expect(system).toContain("team core");
    expect(system).toContain("Output format: Short prose paragraphs.");
    expect(system).toContain("search_mental_models");
    expect(model.requests[0]!.messages[1]).toEqual({ role: "user", content: request().question });
  });

  it("records usage and llm calls", async () => {
    const model = scripted([reply(done("March 14.", { memory_ids: ["f1"] }))]);
    const { result } = await run(atlasMemory({ mentalModels: [] }), model);
    expect(result.llmCalls).toBe(3);
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 15 });
  });
});

describe("skill retrieval directive", () => {
  it("narrows observations and raw facts by the skill's tags but not mental models", async () => {
    const memory = atlasMemory();
    const model = scripted([]);
    const skill = { ...SKILL, retrieval: { ...SKILL.retrieval, tags: ["decision"] } };
    await run(memory, model, { skill, budget: "high" });
    expect(memory.searchesOf("searchMentalModels").map((q) => q.tags)).toEqual([[]]);
    expect(memory.searchesOf("searchObservations").map((q) => q.tags)).toEqual([["decision"]]);
    expect(memory.searchesOf("recall").map((q) => q.tags)).toEqual([["decision"]]);
  });
});

describe("a model that cannot call tools", () => {
  it("fails the run with a message naming the model instead of reporting no evidence", async () => {
    const model = new ScriptedModel(
      () => ({
        content: "Probably March.",
        toolCalls: [],
        finishReason: "stop",
        usage: { inputTokens: 1, outputTokens: 1 },
      }),
      "textonly-7b",
    );
    const { result } = await run(atlasMemory({ mentalModels: [] }), model);
    expect(result.status).toBe("failed");
    expect(result.error?.message).toContain('"textonly-7b" never called a tool');
  });
});

describe("a model's search query past MAX_SEARCH_QUERY_CHARS", () => {
  it("is the call's error, named, never searched (100,000 words ran a server out of memory)", async () => {
    const memory = atlasMemory({ mentalModels: [] });
    const searched: string[] = [];
    const recall = memory.recall.bind(memory);
    memory.recall = (q) => {
      searched.push(q.query);
      return recall(q);
    };
    const huge = Array.from({ length: 100_000 }, (_, i) => `w${i.toString(36)}`).join(" ");
    const model = scripted([reply(call("recall", { query: huge })), reply(done("March 14.", { memory_ids: ["f1"] }))]);
    const { result, events } = await run(memory, model);
    expect(result.status).not.toBe("failed");
    const refused = ofType(events, "tool.result").find((e) => e.payload.error?.includes("search with fewer words"));
    expect(refused?.payload.error).toMatch(
      new RegExp(`query is longer than ${MAX_SEARCH_QUERY_CHARS.toLocaleString("en-US")} characters`),
    );
    expect(searched.some((q) => q.length > MAX_SEARCH_QUERY_CHARS)).toBe(false);
  });
});

describe("a model response with more tool calls than MAX_CALLS_PER_RESPONSE", () => {
  it("reads the first ones, ignores the rest with a warning (5,000 calls were 5,000 searches at once)", async () => {
    const memory = atlasMemory({ mentalModels: [] });
    let searches = 0;
    const recall = memory.recall.bind(memory);
    memory.recall = (q) => {
      searches++;
      return recall(q);
    };
    const flood = reply(call("recall", { query: "Atlas" }));
    flood.toolCalls = Array.from({ length: 5_000 }, (_, i) => ({
      id: `c${i}`,
      type: "function" as const,
      function: { name: "recall", arguments: JSON.stringify({ query: `Atlas launch ${i}` }) },
    }));
    const { result, events } = await run(memory, scripted([flood, reply(done("March 14.", { memory_ids: ["f1"] }))]));
    expect(result.status).toBe("done");
    const floodSearches = ofType(events, "tool.call").filter((e) => /^c\d+$/.test(e.payload.callId));
    expect(floodSearches).toHaveLength(MAX_CALLS_PER_RESPONSE);
    // The forced turns' searches and the flood's first ones; the rest never reached the store.
    expect(searches).toBeLessThanOrEqual(MAX_CALLS_PER_RESPONSE + 3);
    expect(result.warnings).toContain(
      `the model sent 5000 tool calls in one response: the first ${MAX_CALLS_PER_RESPONSE} were read, ${5_000 - MAX_CALLS_PER_RESPONSE} ignored`,
    );
    expect(ofType(events, "llm.warning").map((e) => e.payload.message)).toContain(result.warnings.at(-1));
    // Every later request answers exactly the calls it read: each tool_call id has its tool message.
    const next = ofType(events, "llm.request").at(-1)!.payload.messages as { role: string; tool_calls?: unknown[] }[];
    expect(next.every((m) => (m.tool_calls?.length ?? 0) <= MAX_CALLS_PER_RESPONSE)).toBe(true);
  });
});

describe("a done citing more than MAX_CITED_IDS memories of a tier", () => {
  it("is refused as invalid arguments, named, never recorded as 300,000 dropped citations", async () => {
    const flood = Array.from({ length: 300_000 }, (_, i) => `f${i}`);
    const model = scripted([
      reply(done("March 14.", { memory_ids: ["f1", ...flood] })),
      reply(done("March 14.", { memory_ids: ["f1"] })),
    ]);
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), model);
    const refused = ofType(events, "tool.result").filter((e) => e.payload.tool === "done" && e.payload.error);
    expect(refused[0]?.payload.error).toMatch(new RegExp(`cite at most ${MAX_CITED_IDS} raw facts in one answer`));
    // The model's next done is accepted; nothing of the flood is a citation.
    expect(result.status).toBe("done");
    for (const v of ofType(events, "citations.validated"))
      expect(v.payload.dropped.length).toBeLessThanOrEqual(MAX_CITED_IDS);
    expect(result.dropped.length).toBeLessThanOrEqual(MAX_CITED_IDS);
  });
});
