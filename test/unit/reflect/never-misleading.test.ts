/**
 * Issue 12, "never a wrong or misleading result" (docs/engine.md#forced-retrieval-and-the-freshness-short-circuit end, §3.4 signature, §3.5b): one named
 * test per audited defect, each driving the engine through its ports with an adversarial scripted
 * model. Every test here failed on the engine before the fix.
 */
import { describe, expect, it } from "vitest";
import { factsDigest, NO_EVIDENCE_ANSWER } from "@/lib/reflect/digest";
import { type ReflectOptions, runReflect } from "@/lib/reflect/engine";
import { isPlaceholderContent } from "@/lib/reflect/freshness";
import { inspectAnswer } from "@/lib/reflect/output-guard";
import type { ModelPort, ModelRequest, ModelResponse, ToolCall } from "@/lib/reflect/ports";
import type { ReflectRequest } from "@/lib/reflect/request";
import { normalizeToolName } from "@/lib/reflect/tool-names";
import { capContent } from "@/lib/reflect/tools";
import { foldRun } from "@/lib/timeline/fold";
import { fact, InMemoryMemory, mentalModel } from "@/test/fixtures/in-memory-memory";
import { call, done, forcedTool, reply, ScriptedModel, say } from "@/test/fixtures/scripted-model";
import { ATLAS_MODEL, atlasMemory, harness, ofType, request, run } from "./harness";

const STALE_MODEL = { ...ATLAS_MODEL, isStale: true, stalenessReason: "2 newer memories in scope" };
const EPISODIC_ONLY = {
  ...request().skill,
  retrieval: { tags: [], types: ["episodic" as const], scope: "personal" as const },
};

/** Obeys forced retrieval turns; `onOther` answers auto turns and forced `done` turns. */
function obeying(onOther: (req: ModelRequest, index: number) => ModelResponse, query = "Atlas launch") {
  return new ScriptedModel((req, index) => {
    const forced = forcedTool(req);
    if (forced && forced !== "done") return reply(call(forced, { query }));
    return onOther(req, index);
  });
}

const forcedOf = (model: ScriptedModel) => model.requests.map(forcedTool);

describe("1: a forced turn accepts only its forced tool", () => {
  it("1a: a done sent on a forced retrieval turn is refused and the tier is forced again", async () => {
    // The wire forms `required` and `omit` let a model answer with done on a forced turn. This one
    // does so on each tier's first forced turn, and obeys once the refusal comes back.
    const model = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      const last = req.messages.findLast((m) => m.role !== "system");
      const refused = last?.role === "tool" && last.content.includes("refused");
      if (forced === "search_mental_models" || (forced && forced !== "done" && refused)) {
        return reply(call(forced, { query: "Atlas launch" }));
      }
      return reply(done("Atlas launches on March 14.", { mental_model_ids: ["mm1"] }));
    });
    const { result, events } = await run(atlasMemory({ mentalModels: [STALE_MODEL] }), model, { budget: "mid" });
    const refusals = ofType(events, "tool.result").filter(
      (e) => e.payload.tool === "done" && e.payload.outcome === "error",
    );
    expect(refusals[0]!.payload.error).toContain("accepts only search_observations");
    // Each refused tier stayed pending and was forced again on the next iteration.
    expect(forcedOf(model).slice(0, 5)).toEqual([
      "search_mental_models",
      "search_observations",
      "search_observations",
      "recall",
      "recall",
    ]);
    const searched = ofType(events, "tool.result").filter(
      (e) => e.payload.tier !== null && e.payload.outcome === "success",
    );
    expect(searched.map((e) => e.payload.tool)).toEqual(["search_mental_models", "search_observations", "recall"]);
    expect(result).toMatchObject({ status: "done", llmCalls: 6 });
  });

  it("1b: another tier's tool on a forced mental-model turn does not skip the tier or its freshness check", async () => {
    let n = 0;
    const model = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced === "search_mental_models" && n++ === 0) return reply(call("recall", { query: "Atlas launch" }));
      if (forced && forced !== "done") return reply(call(forced, { query: "Atlas launch" }));
      return reply(done("Atlas launches on March 14.", { mental_model_ids: ["mm1"] }));
    });
    const { result, events } = await run(atlasMemory(), model);
    const first = ofType(events, "tool.result")[0]!.payload;
    expect(first).toMatchObject({ tool: "recall", outcome: "error" });
    expect(first.error).toContain("accepts only search_mental_models");
    expect(first.ids.raw_facts).toEqual([]);
    expect(forcedOf(model).slice(0, 2)).toEqual(["search_mental_models", "search_mental_models"]);
    expect(ofType(events, "freshness.check")).toHaveLength(1);
    expect(result.status).toBe("done");
  });
});

describe("2: a rejected done keeps its turn", () => {
  it("2: the valid searches beside a rejected done still run", async () => {
    const model = new ScriptedModel([
      reply(call("recall", { query: "quarterly revenue" })),
      reply(done("I do not know."), call("recall", { query: "Atlas launch" })),
      reply(done("Atlas launches on March 14.", { memory_ids: ["f1"] })),
    ]);
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), model, { skill: EPISODIC_ONLY });
    expect(ofType(events, "guard.done_rejected")[0]!.payload.why).toBe("no_evidence_yet");
    expect(ofType(events, "guard.calls_dropped")).toHaveLength(0);
    const recall = ofType(events, "tool.result").filter((e) => e.payload.tool === "recall");
    expect(recall.map((e) => e.payload.outcome)).toEqual(["empty", "success"]);
    expect(result).toMatchObject({ status: "done", answer: "Atlas launches on March 14." });
    expect(result.citations.memory_ids).toEqual(["f1"]);
  });
});

describe("3: a malformed final forced done keeps the evidence", () => {
  const malformed: [string, ToolCall | null][] = [
    ["memory_ids: null", call("done", { answer: "March 14.", memory_ids: null })],
    ["memory_ids as a string", call("done", { answer: "March 14.", memory_ids: "f1" })],
    ["ids as numbers", call("done", { answer: "March 14.", memory_ids: [1, 2] })],
    ["prose instead of a call", null],
    ["a search call", call("recall", { query: "Atlas launch" })],
  ];
  it.each(malformed)("3a: %s ends degraded with the evidence digest, its quoted ids as citations", async (_n, last) => {
    const model = obeying((req) =>
      forcedTool(req) === "done"
        ? last
          ? reply(last)
          : say("The launch is on March 14.")
        : reply(call("recall", { query: "Atlas launch" })),
    );
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), model);
    expect(result.status).toBe("degraded");
    expect(result.error).toBeNull();
    expect(result.answer).toContain("[o1]");
    expect(result.answer).toContain("[f1]");
    expect(result.citations.observation_ids).toEqual(["o1"]);
    expect(result.citations.memory_ids).toEqual(expect.arrayContaining(["f1", "f2"]));
    expect(result.flags).not.toContain("ungrounded");
    expect(ofType(events, "guard.output").at(-1)!.payload.action).toBe("degraded");
  });

  it("3b: the same after a halt", async () => {
    const memory = atlasMemory({ mentalModels: [] }).fail("recall", "database is locked", 10);
    const model = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced === "done") return reply(call("done", { answer: "March 14.", observation_ids: null }));
      if (forced === "search_observations") return reply(call(forced, { query: "Atlas launch" }));
      return reply(call("recall", { query: "Atlas launch" }));
    });
    const { result } = await run(memory, model, { budget: "mid" });
    expect(result.flags).toEqual(expect.arrayContaining(["halted", "degraded"]));
    expect(result.status).toBe("degraded");
    expect(result.answer).toContain("[o1] The Atlas launch date is March 14.");
    expect(result.citations.observation_ids).toEqual(["o1"]);
  });

  it("3c: a degraded digest cites the ids it quotes, never ungrounded with zero citations", async () => {
    const model = obeying(() => reply(done("analysisThe user asks for the launch date.")));
    const { result } = await run(atlasMemory({ mentalModels: [] }), model);
    expect(result.status).toBe("degraded");
    expect(result.answer).toContain("[o1]");
    expect(result.citations.observation_ids).toEqual(["o1"]);
    expect(result.citations.memory_ids).toEqual(["f1", "f2"]);
    expect(result.flags).not.toContain("ungrounded");
  });
});

describe("3d: a model error on the final forced done keeps the evidence", () => {
  it("3d: HTTP 500 on the final forced done ends degraded with the digest, naming the error", async () => {
    const model = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced && forced !== "done") return reply(call(forced, { query: "Atlas launch" }));
      if (forced === "done") throw new Error("model m failed with HTTP 500: upstream exploded");
      // auto: keep searching without answering so the final forced turn is reached
      return reply(call("recall", { query: `Atlas launch ${req.messages.length}` }));
    });
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), model);
    expect(result.status).toBe("degraded");
    expect(result.answer).toContain("[o1] The Atlas launch date is March 14.");
    expect(result.citations.observation_ids).toEqual(["o1"]);
    const degraded = ofType(events, "guard.output").find((e) => e.payload.action === "degraded")!;
    expect(degraded.payload.detail).toContain("the final forced done failed: model m failed with HTTP 500");
  });

  it("3d: the wall clock on the final forced done still ends the run failed", async () => {
    const model = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced && forced !== "done") return reply(call(forced, { query: "Atlas launch" }));
      if (forced === "done") return new Promise<never>(() => undefined) as unknown as ModelResponse;
      return reply(call("recall", { query: `Atlas launch ${req.messages.length}` }));
    });
    const h = harness(atlasMemory({ mentalModels: [] }), model);
    const result = await runReflect(h.deps, request({ wallClockMs: 300 }));
    expect(result.status).toBe("failed");
    expect(result.error?.message).toBe("wall-clock limit of 300 ms reached");
  });
});

describe("4: no_evidence only when the bank was searched", () => {
  it("4: every retrieval call malformed fails the run saying the model never produced a valid search", async () => {
    const model = new ScriptedModel((req) =>
      reply(call(forcedTool(req) === "done" ? "done" : (forcedTool(req) ?? "recall"), "{not json")),
    );
    const { result } = await run(atlasMemory({ mentalModels: [] }), model);
    expect(result.status).toBe("failed");
    expect(result.answer).not.toBe(NO_EVIDENCE_ANSWER);
    expect(result.error?.message).toContain("never produced a valid search");
  });

  it("4b: a tier whose search failed is not 'no relevant memories' when the other tiers found nothing", async () => {
    // The observations (where the answer is) fail; recall finds nothing for the query.
    const memory = new InMemoryMemory({
      facts: [],
      observations: [{ ...atlasMemory().data.observations![0]! }],
      mentalModels: [],
    }).fail("searchObservations", "database is locked", 5);
    const model = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced && forced !== "done") return reply(call(forced, { query: "Atlas launch" }));
      return reply(done("x"));
    });
    const { result, events } = await run(memory, model);
    const outcomes = ofType(events, "tool.result").map((e) => [e.payload.tool, e.payload.outcome]);
    expect(outcomes).toContainEqual(["search_observations", "error"]);
    expect(outcomes).toContainEqual(["recall", "empty"]);
    expect(result.status).toBe("failed");
    expect(result.answer).not.toBe(NO_EVIDENCE_ANSWER);
    expect(result.error?.message).toContain(
      "the observations search failed (search_observations failed: database is locked)",
    );
  });

  it("4c: a failed tier searched again successfully under auto counts as searched", async () => {
    const memory = new InMemoryMemory({ facts: [fact("f9", "Budget review notes")], mentalModels: [] }).fail(
      "recall",
      "database is locked",
      1,
    );
    const model = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced && forced !== "done") return reply(call(forced, { query: "Atlas launch" }));
      return reply(call("recall", { query: "Atlas launch date" }));
    });
    const { result } = await run(memory, model);
    expect(result.status).toBe("no_evidence");
    expect(result.error).toBeNull();
  });
});

describe("5: the ladder signature leaves out the reason", () => {
  it("5: the same empty recall with a reworded reason is nudged, then halted", async () => {
    let n = 0;
    const model = new ScriptedModel((req) =>
      forcedTool(req) === "done"
        ? reply(done("Nothing found."))
        : reply(
            call("recall", {
              reason: `attempt ${++n}, rephrased`,
              query: n % 2 ? "Quarterly budget" : " quarterly BUDGET ",
            }),
          ),
    );
    const memory = new InMemoryMemory({ facts: [fact("f1", "Atlas launch is on March 14")] });
    const { result, events } = await run(memory, model, { budget: "high", skill: EPISODIC_ONLY });
    expect(ofType(events, "steering.nudge")[0]).toMatchObject({ iteration: 1, payload: { trigger: "repeated_empty" } });
    expect(ofType(events, "steering.halt")[0]?.iteration).toBe(2);
    expect(model.calls).toBe(3);
    expect(result.flags).toContain("halted");
  });
});

describe("6: JSON answers are opt-in", () => {
  it('6: an outputFormat that mentions JSON ("never JSON") keeps the envelope check', async () => {
    const skill = { ...request().skill, outputFormat: "Plain prose only; never JSON." };
    const model = obeying(() => reply(done('{"answer": "Atlas launches on March 14."}', { memory_ids: ["f1"] })));
    const { result } = await run(atlasMemory({ mentalModels: [] }), model, { skill });
    expect(result.answer).toBe("Atlas launches on March 14.");
    expect(result.status).toBe("done");
  });
});

describe("7: placeholder content is detected after normalization", () => {
  const placeholders = [
    "*Generating content...*",
    "_Generating content..._",
    "Generating content, please wait...",
    "(generating content)",
    "# Atlas\n\nGenerating content...",
    "\u200B",
    NO_EVIDENCE_ANSWER,
  ];
  it.each(placeholders)("7: a fresh model whose content is %j never releases forced retrieval", async (content) => {
    expect(isPlaceholderContent(content)).toBe(true);
    const model = obeying(() => reply(done("Atlas launches on March 14.", { memory_ids: ["f1"] })));
    const memory = atlasMemory({ mentalModels: [mentalModel("mm1", "Atlas launch", content)] });
    const { result, events } = await run(memory, model);
    expect(ofType(events, "freshness.check")[0]!.payload.verdict).toBe("keep_forcing");
    expect(result.flags).not.toContain("short_circuited");
    expect(result.citations.mental_model_ids).toEqual([]);
  });
  it("real content that starts with a placeholder word stays usable", () => {
    expect(isPlaceholderContent("Loading dock moves to building B on March 14.")).toBe(false);
    expect(isPlaceholderContent("# Atlas\n\nAtlas launches on March 14.")).toBe(false);
  });
});

/** A memory whose `method` never answers. */
function hanging(memory: InMemoryMemory, method: "countInScope" | "recall"): InMemoryMemory {
  memory[method] = () => new Promise<never>(() => undefined);
  return memory;
}

describe("8: the wall clock and abort cover the whole run", () => {
  const timed = async (memory: InMemoryMemory, overrides: Partial<ReflectRequest>, options?: ReflectOptions) => {
    const h = harness(memory, new ScriptedModel([]));
    const started = Date.now();
    const result = await runReflect(h.deps, request({ wallClockMs: 100, ...overrides }), options);
    return { result, ms: Date.now() - started };
  };

  it("8a: a hanging countInScope ends the run at the wall clock", async () => {
    const { result, ms } = await timed(hanging(atlasMemory(), "countInScope"), {});
    expect(result.status).toBe("failed");
    expect(result.error?.message).toContain("wall-clock limit of 100 ms");
    expect(ms).toBeLessThan(2_000);
  });

  it("8b: a hanging facts-mode recall ends the run at the wall clock", async () => {
    const { result } = await timed(hanging(atlasMemory(), "recall"), { mode: "facts" });
    expect(result.status).toBe("failed");
    expect(result.error?.message).toContain("wall-clock limit of 100 ms");
  });

  it("8c: facts mode honours the caller's abort", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const { result } = await timed(
      hanging(atlasMemory(), "recall"),
      { mode: "facts", wallClockMs: 60_000 },
      { signal: controller.signal },
    );
    expect(result.status).toBe("interrupted");
  });
});

describe("9: prose under auto", () => {
  it("9: gets a request-scoped hint to finish with done on the next turn", async () => {
    const model = obeying((req) => {
      const hinted = req.messages.some((m) => m.role === "system" && m.content.includes("Finish with done"));
      return hinted ? reply(done("Atlas launches on March 14.", { memory_ids: ["f1"] })) : say("It is March 14.");
    });
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), model);
    const hinted = ofType(events, "llm.request").find((e) => e.payload.injections.some((x) => x.kind === "prose_hint"));
    expect(hinted?.iteration).toBe(3);
    // Request-scoped: the hint is never part of the persisted conversation of a later request.
    expect(model.requests.at(-1)!.messages.filter((m) => m.role === "user")).toHaveLength(1);
    expect(result).toMatchObject({ status: "done", llmCalls: 4 });
  });
});

describe("10: malformed tool calls are classified, never a crash", () => {
  const broken: [string, unknown][] = [
    ["a call without a function name", { id: "c1", type: "function", function: { arguments: "{}" } }],
    ["a call without a function", { id: "c1", type: "function" }],
  ];
  it.each(broken)("10a: %s is a tool error", async (_n, bad) => {
    let n = 0;
    const model = obeying(() =>
      n++ === 0
        ? { ...reply(), toolCalls: [bad as ToolCall] }
        : reply(done("Atlas launches on March 14.", { memory_ids: ["f1"] })),
    );
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), model);
    const error = ofType(events, "tool.result").find((e) => e.payload.error?.includes("no function name"));
    expect(error?.payload.outcome).toBe("error");
    expect(result.status).toBe("done");
  });

  it("10b: a response without toolCalls and usage is prose, not a TypeError", async () => {
    const follow = obeying(() => reply(done("Atlas launches on March 14.", { memory_ids: ["f1"] })));
    let bare = true;
    const model: ModelPort = {
      info: follow.info,
      async complete(req) {
        if (forcedTool(req) === null && bare) {
          bare = false;
          return { content: "thinking", finishReason: "stop" } as unknown as ModelResponse;
        }
        return follow.complete(req);
      },
    };
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), model);
    expect(result.status).toBe("done");
    expect(ofType(events, "llm.response").map((e) => e.payload.tokensIn)).toContain(0);
  });

  it("10c: a mental model without isStale counts as stale instead of failing the run", async () => {
    const memory = atlasMemory();
    const search = memory.searchMentalModels.bind(memory);
    memory.searchMentalModels = async (q) =>
      (await search(q)).map(({ isStale: _s, ...m }) => m as unknown as Awaited<ReturnType<typeof search>>[number]);
    const model = obeying(() => reply(done("Atlas launches on March 14.", { memory_ids: ["f1"] })));
    const { result, events } = await run(memory, model);
    expect(result.status).toBe("done");
    expect(ofType(events, "freshness.check")[0]!.payload.verdict).toBe("keep_forcing");
    expect(ofType(events, "tool.result")[0]!.payload.mentalModels?.[0]?.isStale).toBe(true);
  });
});

describe("11: the release-miss guard", () => {
  it("11: accepts a done citing a mental model the model found itself under auto", async () => {
    // Not returned by the forced search ("Atlas launch"), so not among the released models.
    const checklist = mentalModel("mm2", "Checklist owner", "Priya owns the checklist.");
    const model = obeying((_req, index) =>
      index === 1
        ? reply(call("search_mental_models", { query: "checklist owner" }))
        : reply(done("Priya owns the checklist.", { mental_model_ids: ["mm2"] })),
    );
    const { result, events } = await run(atlasMemory({ mentalModels: [ATLAS_MODEL, checklist] }), model, {
      question: "Who owns the Atlas launch?",
    });
    expect(ofType(events, "guard.done_rejected")).toHaveLength(0);
    expect(result).toMatchObject({ status: "done", llmCalls: 3 });
    expect(result.citations.mental_model_ids).toEqual(["mm2"]);
  });
});

describe("12: a provider that downgraded the forced tool choice", () => {
  it("12: the run records the warning once, as an event and in the result, and the timeline shows it", async () => {
    const warning = "forced_tool_choice_downgraded: named → required";
    const follow = obeying(() => reply(done("Atlas launches on March 14.", { memory_ids: ["f1"] })));
    const model: ModelPort = {
      info: follow.info,
      complete: async (req) => ({ ...(await follow.complete(req)), warnings: forcedTool(req) ? [warning] : [] }),
    };
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), model);
    expect(result.warnings).toEqual([warning]);
    expect(ofType(events, "llm.warning").map((e) => [e.iteration, e.payload.message])).toEqual([[0, warning]]);
    const view = foldRun(events);
    expect(view.header.warnings).toEqual([warning]);
    const rows = view.iterations.flatMap((it) => it.rows);
    expect(rows.some((r) => r.kind === "guard" && r.action === "provider_warning" && r.message === warning)).toBe(true);
    // A live run shows it before the run finishes.
    expect(foldRun(events.filter((e) => e.type !== "run.finished")).header.warnings).toEqual([warning]);
  });
});

describe("13: smaller holes", () => {
  it("13a: harmony scaffolding inside a closed code fence is detected", () => {
    expect(inspectAnswer("Here:\n```\n<|channel|>analysis<|message|>secret\n```", { jsonExpected: false }).kind).toBe(
      "leak",
    );
  });
  it("13b: a fenced ```json envelope is unwrapped", () => {
    expect(inspectAnswer('```json\n{"answer": "March 14."}\n```', { jsonExpected: false })).toMatchObject({
      kind: "unwrapped",
      text: "March 14.",
    });
  });
  it('13c: "analysis\'s" is prose, not the analysis channel', () => {
    expect(inspectAnswer("analysis's conclusion: the launch is March 14.", { jsonExpected: false }).kind).toBe("clean");
  });
  it("13d: digests pass the guard: a stored leak is named by id, not quoted", async () => {
    const leaky = fact("f9", "<|channel|>analysis<|message|>Atlas launch reasoning");
    const digest = factsDigest("Atlas launch?", { facts: [leaky] });
    expect(digest).toContain("[f9]");
    expect(digest).not.toContain("<|");
    const { result } = await run(new InMemoryMemory({ facts: [leaky] }), new ScriptedModel([]), {
      mode: "facts",
      skill: EPISODIC_ONLY,
    });
    expect(result.answer).not.toContain("<|");
    expect(result.citations.memory_ids).toEqual(["f9"]);
  });
  it.each([
    ["DONE", "done"],
    ["to=functions.recall", "recall"],
    ["Functions.Search_Observations", "search_observations"],
  ])("13e: the tool name %s is normalized to %s", (raw, name) => {
    expect(normalizeToolName(raw)).toBe(name);
  });
  it("13j: the system prompt states the effective scope, never a team the bank does not grant", async () => {
    const systemOf = async (permittedTeams: string[]) => {
      const model = obeying(() => reply(done("Atlas launches on March 14.", { memory_ids: ["f1"] })));
      await run(atlasMemory({ mentalModels: [], permittedTeams }), model, { scope: "team:ops" });
      return model.requests[0]!.messages[0]!.content as string;
    };
    const refused = await systemOf([]);
    expect(refused).toContain(
      "Scope: personal memories only (team ops was requested, but this bank does not permit it).",
    );
    expect(refused).not.toContain("memories of team ops");
    expect(await systemOf(["ops"])).toContain("Scope: personal memories and memories of team ops.");
  });
  it("13f: nudge text numbers iterations as the timeline does (from 0)", async () => {
    const model = obeying(() => reply(call("recall", { query: "zzz nothing" })));
    const { events } = await run(atlasMemory({ mentalModels: [] }), model, { budget: "mid" });
    const nudge = ofType(events, "steering.nudge")[0]!.payload;
    expect(nudge.text).toContain(`since iteration ${nudge.sinceIteration}`);
    expect(nudge.text).not.toMatch(/step \d/);
  });
  it("13g: the tool-result cap never splits an emoji", () => {
    const capped = capContent({ text: "🚀".repeat(400) }, 300);
    expect(capped.truncated).toBe(true);
    expect(capped.content).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
  it("13h: an id beyond the cap (never seen by the model) is not grounded", async () => {
    const facts = Array.from({ length: 30 }, (_, i) => fact(`f${i}`, `Atlas launch note ${i} ${"x".repeat(60)}`));
    const model = obeying(() => reply(done("Notes.", { memory_ids: ["f0", "f15"] })));
    const { result, events } = await run(new InMemoryMemory({ facts }), model, {
      skill: EPISODIC_ONLY,
      toolResultCapChars: 600,
    });
    const seen = ofType(events, "tool.result")[0]!.payload;
    expect(seen.truncated).toBe(true);
    expect(seen.count).toBe(20);
    expect(seen.ids.raw_facts).not.toContain("f15");
    expect(result.citations.memory_ids).toEqual(["f0"]);
    expect(result.dropped).toEqual([{ id: "f15", claimedTier: "raw_facts", reason: "never_retrieved" }]);
  });
  it("13i: a 2 MB answer is capped at 20,000 characters and flagged truncated", async () => {
    const huge = `March 14. ${"🚀".repeat(1_000_000)}`;
    const model = obeying(() => reply(done(huge, { memory_ids: ["f1"] })));
    const { result } = await run(atlasMemory({ mentalModels: [] }), model);
    expect(result.answer.length).toBeLessThanOrEqual(20_000);
    expect(result.answer).toContain("[answer truncated at 20,000 characters]");
    expect(result.flags).toContain("truncated");
  });
});

const LONG_QUERY = `Atlas launch ${"please find the Atlas launch date and owner ".repeat(12)}`;

describe("14: the tool-result cap never hides evidence behind a wrong verdict", () => {
  it("14a: hits the cap hid from the model are not reported as 'no relevant memories in this bank'", async () => {
    // An adversarial (or just verbose) model echoes a long query: the capped result holds only the
    // query echo, so every id is cut off. The store DID return matches.
    const model = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced && forced !== "done") return reply(call(forced, { query: LONG_QUERY }));
      return reply(done("Atlas launches on March 14.", { memory_ids: ["f1"] }));
    });
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), model, { toolResultCapChars: 300 });
    const results = ofType(events, "tool.result").filter((e) => e.payload.tier !== null);
    expect(results.some((e) => e.payload.count > 0)).toBe(true); // the store returned matches
    // Honest: the bank was NOT empty for this question; the run must not claim it was.
    expect(result.answer).not.toBe(NO_EVIDENCE_ANSWER);
    expect(result.status).toBe("failed");
    expect(result.error?.message).toMatch(/found \d+ match\(es\) but the 300-character result cap hid all of them/);
  });

  it("14b: a 'success' whose ids were all cut off by the cap is not progress the model could use", async () => {
    const model = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced && forced !== "done") return reply(call(forced, { query: LONG_QUERY }));
      return reply(done("x"));
    });
    const { events } = await run(atlasMemory({ mentalModels: [] }), model, { toolResultCapChars: 300 });
    const results = ofType(events, "tool.result").filter((e) => e.payload.tier !== null);
    for (const r of results) {
      const seen = Object.values(r.payload.ids).flat().length;
      // outcome "success" means "non-empty"; the model saw no hit at all.
      if (seen === 0) expect(r.payload.outcome).not.toBe("success");
    }
  });

  it("14c: a stale mental model hidden by the cap still keeps the forced path (every returned model must be fresh)", async () => {
    const fresh = mentalModel(
      "mm1",
      "Atlas launch",
      `Atlas launches on March 14; Priya owns the checklist. ${"Atlas launch detail. ".repeat(30)}`,
    );
    const stale = mentalModel("mm2", "Atlas launch risks", "Atlas launch risks: the date may move again.", {
      isStale: true,
      stalenessReason: "12 newer memories in scope",
    });
    const model = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced && forced !== "done") return reply(call(forced, { query: "Atlas launch" }));
      return reply(done("Atlas launches on March 14.", { mental_model_ids: ["mm1"] }));
    });
    const { events } = await run(atlasMemory({ mentalModels: [fresh, stale] }), model, {
      budget: "mid",
      toolResultCapChars: 600,
    });
    const mm = ofType(events, "tool.result").find((e) => e.payload.tool === "search_mental_models")!;
    expect(mm.payload.count).toBe(2);
    expect(mm.payload.ids.mental_models).toEqual(["mm1"]); // mm2 (stale) was cut off by the cap
    const check = ofType(events, "freshness.check")[0]!;
    expect(check.payload.verdict).toBe("keep_forcing");
  });
});

describe("15: the guard retry reports what happened and stays inside the budget", () => {
  const leaky = (retry: () => ModelResponse) =>
    new ScriptedModel((req, index) => {
      const forced = forcedTool(req);
      if (forced && forced !== "done") return reply(call(forced, { query: "Atlas launch" }));
      if (req.messages.some((m) => m.role === "system" && m.content?.includes("model-internal formatting")))
        return retry();
      void index;
      return reply(done("<|channel|>analysis<|message|>thinking", { memory_ids: ["f1"] }));
    });

  it("15a: a guard retry that fails with a model error does not claim 'the answer still leaked after the retry'", async () => {
    const model = leaky(() => {
      throw new Error("model m failed with HTTP 500: upstream exploded");
    });
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), model);
    expect(result.status).toBe("degraded");
    const degraded = ofType(events, "guard.output").find((e) => e.payload.action === "degraded")!;
    // The retry never produced an answer: the receipt must say the retry failed, not that it leaked.
    expect(degraded.payload.detail).not.toContain("still leaked");
    expect(degraded.payload.detail).toContain("the corrective retry failed: model m failed with HTTP 500");
  });

  it("15b: a guard retry that answers with a search instead of done says so", async () => {
    const model = leaky(() => reply(call("recall", { query: "Atlas" })));
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), model);
    expect(result.status).toBe("degraded");
    const degraded = ofType(events, "guard.output").find((e) => e.payload.action === "degraded")!;
    expect(degraded.payload.detail).toContain("the corrective retry brought no done");
    expect(degraded.payload.detail).toContain("called recall");
  });

  it("15c: the wall clock expiring during the guard retry is reported (status failed per §3.2, or at least named)", async () => {
    const model = leaky(() => new Promise<never>(() => undefined) as unknown as ModelResponse);
    const h = harness(atlasMemory({ mentalModels: [] }), model);
    const result = await runReflect(h.deps, request({ wallClockMs: 200 }));
    expect(result.status).toBe("failed");
    expect(result.error?.message).toBe("wall-clock limit of 200 ms reached");
    expect(h.events.at(-1)?.type).toBe("run.finished");
  });

  it("15d: a guard retry on the last iteration does not report more iterations than the budget allows", async () => {
    let n = 0;
    const model = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced && forced !== "done") return reply(call(forced, { query: "Atlas launch" }));
      if (forced === "done") {
        n += 1;
        return reply(
          done(n === 1 ? "<|channel|>final<|message|>x<|channel|>" : "Atlas launches on March 14.", {
            memory_ids: ["f1"],
          }),
        );
      }
      return reply(call("recall", { query: `Atlas ${req.messages.length}` }));
    });
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), model);
    const started = ofType(events, "run.started")[0]!;
    expect(result.iterations).toBeLessThanOrEqual(started.payload.maxIterations);
    expect(n).toBe(1);
    expect(result.status).toBe("degraded");
    const degraded = ofType(events, "guard.output").find((e) => e.payload.action === "degraded")!;
    expect(degraded.payload.detail).toContain("leaves no iteration for the corrective retry");
  });
});
