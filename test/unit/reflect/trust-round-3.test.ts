/**
 * Issue 27, "Engine" items 1–5 and 7 (guard side): one named test per audited defect, driving the
 * engine through its ports with a scripted model. Each failed on the engine before the fix.
 */
import { describe, expect, it } from "vitest";
import { factsDigest, NO_EVIDENCE_ANSWER } from "@/lib/reflect/digest";
import { runReflect } from "@/lib/reflect/engine";
import type { RunEvent } from "@/lib/reflect/events";
import { decideFreshness, isPlaceholderContent } from "@/lib/reflect/freshness";
import { hasNoContent } from "@/lib/reflect/no-content";
import { inspectAnswer } from "@/lib/reflect/output-guard";
import type { MentalModelHit, ModelRequest, ModelResponse, RunSink } from "@/lib/reflect/ports";
import { unusableRefresh } from "@/lib/server/services/refresh-outcome";
// Imported with the file, not inside the test: it loads the server's module graph (the database,
// the run service), seconds of a loaded machine's time that counted against the test's 5 s limit.
import { replayResponses } from "@/lib/server/services/rerun";
import { fact, InMemoryMemory, mentalModel } from "@/test/fixtures/in-memory-memory";
import { call, done, forcedTool, reply, ScriptedModel, say } from "@/test/fixtures/scripted-model";
import { ATLAS_MODEL, atlasMemory, harness, ofType, request, run } from "./harness";

const STALE_MODEL = { ...ATLAS_MODEL, isStale: true, stalenessReason: "2 newer memories in scope" };
const EPISODIC_ONLY = {
  ...request().skill,
  retrieval: { tags: [], types: ["episodic" as const], scope: "personal" as const },
};

/** Obeys forced retrieval with `query`; `onOther` answers auto turns and the forced final done. */
function obeying(onOther: (req: ModelRequest, index: number) => ModelResponse, query = "Atlas launch") {
  return new ScriptedModel((req, index) => {
    const forced = forcedTool(req);
    if (forced && forced !== "done") return reply(call(forced, { query }));
    return onOther(req, index);
  });
}

const injectionsOf = (req: ModelRequest) =>
  req.messages.filter((m, k) => m.role === "system" && k > 0).map((m) => (m as { content: string }).content);

describe("27.1: no_evidence only when every enabled tier was searched empty", () => {
  const misbehaviours: [string, () => ModelResponse][] = [
    ["bad arguments", () => reply(call("search_observations", { query: "" }))],
    ["a done", () => reply(done("Nothing found."))],
    ["prose", () => say("I could not find anything about that.")],
    ["an unknown tool", () => reply(call("lookup", { query: "Atlas" }))],
  ];
  it.each(misbehaviours)(
    "27.1: mental models empty, the forced observations turn answered with %s until halt or budget: failed, naming the unread tiers",
    async (_label, misbehave) => {
      const model = new ScriptedModel((req) => {
        const forced = forcedTool(req);
        if (forced === "search_mental_models") return reply(call(forced, { query: "quarterly revenue" }));
        if (forced === "done") return reply(done("Nothing found."));
        return misbehave();
      });
      const { result, events } = await run(atlasMemory({ mentalModels: [STALE_MODEL] }), model, {
        budget: "mid",
        question: "What was the quarterly revenue?",
      });
      expect(result.status).toBe("failed");
      expect(result.answer).not.toBe(NO_EVIDENCE_ANSWER);
      expect(result.error?.message).toMatch(/never read observations, raw facts/);
      expect(result.error?.message).not.toContain("\n");
      expect(ofType(events, "run.finished")).toHaveLength(1);
    },
  );

  it("27.1: every enabled tier searched and empty still ends no_evidence", async () => {
    const model = obeying(() => reply(call("recall", { query: "quarterly revenue" })), "quarterly revenue");
    const { result } = await run(atlasMemory(), model, { question: "What was the quarterly revenue?" });
    expect(result).toMatchObject({ status: "no_evidence", answer: NO_EVIDENCE_ANSWER });
  });
});

describe("27.2: one detector for text with no content", () => {
  const EMPTY = [
    "",
    "   \n",
    "\u200B",
    "...",
    "…",
    "null",
    "<!-- -->",
    "<!-- summary -->",
    "Generating content...",
    "Generating summary...",
    "Generating content (3/10)...",
    "*Generating content 3 of 10…*",
    "Refreshing...",
    "In progress",
    "Not yet generated.",
    "Content pending generation",
    "To be written",
    "Summary will appear here.",
    "# Atlas\n\nGenerating summary...",
    "TBD",
  ];
  const CONTENT = [
    "Generating content for the Q3 launch is owned by Priya.",
    "Refreshing the cache takes five minutes.",
    "The security review is in progress until March 3.",
    "Null results in the A/B test mean no change was shipped.",
    "To be written by Sam before March 14: the launch memo.",
    "The summary will appear here on the dashboard once legal signs off.",
    "Version 3 of 10 ships on March 14.",
    "42",
    "<b>Atlas</b> launches on March 14.",
  ];
  it.each(EMPTY)("27.2: %j has no content", (text) => {
    expect(hasNoContent(text)).toBe(true);
    expect(isPlaceholderContent(text)).toBe(true);
  });
  it.each(CONTENT)("27.2: %j is content (a look-alike)", (text) => {
    expect(hasNoContent(text)).toBe(false);
    expect(hasNoContent(text, { as: "answer" })).toBe(false);
    expect(isPlaceholderContent(text)).toBe(false);
  });
  it("27.2: a status word is an answer but not a memory's content", () => {
    expect(hasNoContent("In progress.", { as: "answer" })).toBe(false);
    expect(hasNoContent("In progress.")).toBe(true);
  });

  it.each(["\u200B", "...", "null", "<!-- -->", "Generating content..."])(
    "27.2: the answer %j never ends done: the guard retries, then degrades to the digest",
    async (answer) => {
      const model = obeying(() => reply(done(answer, { memory_ids: ["f1"] })));
      const { result, events } = await run(atlasMemory({ mentalModels: [] }), model);
      expect(result.status).toBe("degraded");
      expect(ofType(events, "guard.output").map((e) => e.payload.pattern)).toContain("empty_answer");
      expect(result.answer).toContain("[f1]");
    },
  );

  it.each([
    "Generating summary...",
    "Generating content (3/10)...",
    "Refreshing...",
    "In progress",
    "Not yet generated.",
    "Content pending generation",
    "To be written",
    "Summary will appear here.",
  ])("27.2: a fresh mental model reading %j does not release, is not citable, is not quoted", async (content) => {
    expect(decideFreshness("low", [{ id: "mm1", name: "Atlas", content, isStale: false }]).verdict).toBe(
      "keep_forcing",
    );
    const memory = atlasMemory({ mentalModels: [mentalModel("mm1", "Atlas launch", content)] });
    const model = obeying(() => reply(done("Atlas launches on March 14.", { mental_model_ids: ["mm1"] })));
    const { result, events } = await run(memory, model);
    expect(ofType(events, "freshness.check")[0]!.payload.verdict).toBe("keep_forcing");
    expect(result.flags).not.toContain("short_circuited");
    expect(result.citations.mental_model_ids).toEqual([]);
    const [hit] = await memory.searchMentalModels({
      bankId: "bank",
      query: "Atlas",
      limit: 5,
      tags: [],
      scope: "personal",
      probe: true,
    });
    const digest = factsDigest("q", { mentalModels: [hit!] });
    expect(digest).toBe(NO_EVIDENCE_ANSWER);
    expect(unusableRefresh({ status: "done", answer: content })).toMatch(/placeholder/);
  });
});

describe("27.3: the no-progress ladder on what the search means", () => {
  it("27.3: an extra key, max_results, inner whitespace, a trailing ? and case are the same empty search", async () => {
    const variants = [
      { query: "quarterly  revenue?", max_results: 20 },
      { query: "Quarterly revenue", extra: "stripped by the schema" },
      { query: " quarterly revenue ?" },
    ];
    let n = 0;
    const model = obeying(() => reply(call("recall", variants[n++ % variants.length]!)), "quarterly revenue");
    const { events } = await run(atlasMemory({ mentalModels: [] }), model, {
      budget: "high",
      skill: EPISODIC_ONLY,
      question: "What was the quarterly revenue?",
    });
    const signatures = new Set(
      ofType(events, "tool.result")
        .filter((e) => e.payload.tool === "recall")
        .map((e) => e.payload.signature),
    );
    expect(signatures).toEqual(new Set(['recall:{"query":"quarterly revenue"}:']));
    const nudge = ofType(events, "steering.nudge")[0]!;
    expect(nudge.iteration).toBe(1);
    expect(ofType(events, "steering.halt")).toHaveLength(1);
  });

  it("27.3: a model that says nothing found after every tier came back empty finishes with done", async () => {
    const model = obeying(
      () => reply(done("I found nothing about the quarterly revenue in this bank.")),
      "quarterly revenue",
    );
    const { result, events } = await run(atlasMemory(), model, {
      budget: "high",
      question: "What was the quarterly revenue?",
    });
    expect(result.status).toBe("no_evidence");
    expect(result.flags).toEqual([]);
    expect(result.llmCalls).toBe(4);
    expect(ofType(events, "guard.done_rejected")).toHaveLength(0);
    const accepted = ofType(events, "tool.result").filter((e) => e.payload.tool === "done");
    expect(accepted.map((e) => e.payload.outcome)).toEqual(["success"]);
  });
});

describe("27.4: the event store and the memory store cannot hold or crash a run", () => {
  /** A sink that stores events until `hangFrom` is appended, then never answers again. */
  function hangingSink(hangFrom: RunEvent["type"]): { sink: RunSink; events: RunEvent[] } {
    const events: RunEvent[] = [];
    let hanging = false;
    return {
      events,
      sink: {
        append: (event) => {
          events.push(event);
          if (event.type === hangFrom) hanging = true;
          return hanging ? new Promise(() => {}) : Promise.resolve();
        },
        flush: () => (hanging ? new Promise(() => {}) : Promise.resolve()),
      },
    };
  }

  it("27.4: a hanging event write ends the run at its wall clock", async () => {
    const h = harness(
      atlasMemory(),
      obeying(() => reply(done("March 14.", { memory_ids: ["f1"] }))),
    );
    const { sink, events } = hangingSink("tool.result");
    const started = performance.now();
    const result = await runReflect({ ...h.deps, sink }, request({ wallClockMs: 300 }));
    const took = performance.now() - started;
    expect(took).toBeLessThan(300 + 1_500);
    expect(result.status).toBe("failed");
    expect(result.error?.message).toContain("wall-clock limit of 300 ms");
    expect(events.filter((e) => e.type === "run.finished")).toHaveLength(1);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, k) => k));
  });

  it("27.4: a hanging event write does not outlive a cancel", async () => {
    const h = harness(
      atlasMemory(),
      obeying(() => reply(done("March 14.", { memory_ids: ["f1"] }))),
    );
    const { sink } = hangingSink("llm.request");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = performance.now();
    const result = await runReflect({ ...h.deps, sink }, request({ wallClockMs: 60_000 }), {
      signal: controller.signal,
    });
    expect(performance.now() - started).toBeLessThan(50 + 1_500);
    expect(result.status).toBe("interrupted");
  });

  it("27.4: a cancel that lands during a slow but healthy write still stores run.finished before returning", async () => {
    const h = harness(
      atlasMemory(),
      obeying(() => reply(done("March 14.", { memory_ids: ["f1"] }))),
    );
    const stored: RunEvent[] = [];
    const slow: RunSink = {
      append: (event) =>
        new Promise((resolve) =>
          setTimeout(() => {
            stored.push(event);
            resolve();
          }, 15),
        ),
    };
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 40);
    const result = await runReflect({ ...h.deps, sink: slow }, request({ wallClockMs: 60_000 }), {
      signal: controller.signal,
    });
    expect(result.status).toBe("interrupted");
    expect(stored.at(-1)?.type).toBe("run.finished");
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, k) => k));
  });

  it("27.4: a store that hangs on the run's first event still returns at the wall clock", async () => {
    const h = harness(
      atlasMemory(),
      obeying(() => reply(done("March 14.", { memory_ids: ["f1"] }))),
    );
    const { sink } = hangingSink("run.started");
    const started = performance.now();
    const result = await runReflect({ ...h.deps, sink }, request({ wallClockMs: 200 }));
    expect(performance.now() - started).toBeLessThan(200 + 1_500);
    expect(result.status).toBe("failed");
    expect(result.error?.message).toContain("wall-clock limit of 200 ms");
  });

  it("27.4: an observation search without its freshness fields fails the run with a one-line reason", async () => {
    class NoFreshness extends InMemoryMemory {
      override async searchObservations(q: Parameters<InMemoryMemory["searchObservations"]>[0]) {
        const found = await super.searchObservations(q);
        return { ...found, pending: null } as unknown as typeof found;
      }
    }
    const memory = new NoFreshness({ facts: [fact("f1", "Atlas launches on March 14.")], observations: [] });
    const { result, events } = await run(
      memory,
      obeying(() => reply(done("March 14.", { memory_ids: ["f1"] }))),
    );
    expect(result.status).toBe("failed");
    expect(result.error?.message).toContain("malformed observation search");
    expect(result.error?.message).not.toContain("\n");
    expect(ofType(events, "run.finished")).toHaveLength(1);
  });

  class MalformedModels extends InMemoryMemory {
    constructor(private readonly hit: Record<string, unknown>) {
      super({ facts: [fact("f1", "Atlas launches on March 14.")], mentalModels: [ATLAS_MODEL] });
    }
    override async searchMentalModels(): Promise<MentalModelHit[]> {
      return [this.hit as unknown as MentalModelHit];
    }
  }
  const base = {
    id: "mm1",
    name: "Atlas",
    content: "Atlas launches on March 14.",
    tags: [],
    version: 1,
    relevance: 1,
    refreshedAt: null,
    isStale: false,
    stalenessReason: "",
    usable: true,
  };
  it.each([
    ["a model without a name", { ...base, name: undefined }, "name is missing"],
    ["a numeric id", { ...base, id: 7 }, "id is a number"],
    ["content: null", { ...base, content: null }, "content is null"],
  ])("27.4: a store hit with %s fails the run with a one-line reason", async (_label, hit, reason) => {
    const model = obeying(() => reply(done("March 14.", { mental_model_ids: ["mm1"] })));
    const { result, events } = await run(new MalformedModels(hit), model);
    expect(result.status).toBe("failed");
    expect(result.error?.message).toContain(reason);
    expect(result.error?.message).toContain("malformed hit");
    expect(result.error?.message).not.toContain("\n");
    expect(ofType(events, "run.finished")).toHaveLength(1);
  });
});

describe("27.5: digests and steering texts", () => {
  it.each([
    ["<think>", "<think>the user wants the date</think> March 14."],
    ["<tool_call>", '<tool_call>{"name": "recall", "arguments": {"query": "Atlas"}}</tool_call>'],
    ["<|im_start|>", "<|im_start|>assistant\nAtlas launches on March 14."],
    ["[TOOL_CALLS]", '[TOOL_CALLS] [{"name": "recall", "arguments": {}}]'],
    ["<thinking>", "Atlas launches.</thinking>"],
  ])("27.5: a memory carrying %s is named by id in a digest, never quoted", (marker, text) => {
    const digest = factsDigest("When?", { facts: [fact("f9", text)] });
    expect(digest).toContain("[f9]");
    expect(digest).toContain("text withheld");
    expect(digest).not.toContain(marker);
  });

  it("27.5: a degraded run's digest does not quote a leaked memory", async () => {
    const memory = atlasMemory({
      mentalModels: [],
      facts: [fact("f1", "<think>guess</think> Atlas launch on March 14."), fact("f2", "Atlas launch owner is Priya.")],
    });
    const model = obeying(() => reply(done("analysisThe user asks", { memory_ids: ["f1"] })));
    const { result } = await run(memory, model);
    expect(result.status).toBe("degraded");
    expect(result.answer).not.toContain("<think>");
    expect(result.answer).toContain("[f2] Atlas launch owner is Priya.");
  });

  it("27.5: a nudge sent on a forced turn never asks for done or another tier", async () => {
    // The stale model keeps the forced path; the forced observations turn is answered with an
    // unknown tool until the ladder nudges: that nudge reaches a turn that accepts only search_observations.
    const model = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced === "search_mental_models") return reply(call(forced, { query: "Atlas launch" }));
      if (forced === "search_observations") return reply(call("lookup", { query: "Atlas" }));
      return reply(done("March 14.", { memory_ids: ["f1"] }));
    });
    const { events } = await run(atlasMemory({ mentalModels: [STALE_MODEL] }), model, { budget: "high" });
    const nudges = ofType(events, "steering.nudge");
    expect(nudges.length).toBeGreaterThan(0);
    for (const req of model.requests) {
      const forced = forcedTool(req);
      for (const text of injectionsOf(req)) {
        if (forced && forced !== "done") {
          expect(text).not.toMatch(/call done|another tier/);
        }
      }
    }
    const onForced = model.requests.filter((r) => forcedTool(r) === "search_observations").flatMap(injectionsOf);
    expect(onForced.some((t) => t.includes("accepts only search_observations"))).toBe(true);
  });

  it("27.5: the release-miss text names only tiers this run offers", async () => {
    let n = 0;
    const model = obeying(() =>
      n++ === 0 ? reply(done("Atlas launches on March 14.")) : reply(done("March 14.", { mental_model_ids: ["mm1"] })),
    );
    const { events } = await run(atlasMemory(), model, { skill: EPISODIC_ONLY });
    const rejected = ofType(events, "guard.done_rejected")[0]!.payload;
    expect(rejected.why).toBe("release_miss");
    expect(rejected.message).toContain("raw facts (recall)");
    expect(rejected.message).not.toContain("search_observations");
  });

  it("27.5: an anchor on a forced tier turn does not ask for done", async () => {
    const model = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced === "search_mental_models") return reply(call(forced, { query: "Atlas launch" }));
      if (forced === "search_observations") return reply(call("lookup", { query: "Atlas" }));
      return reply(done("March 14.", { memory_ids: ["f1"] }));
    });
    await run(atlasMemory({ mentalModels: [STALE_MODEL] }), model, { budget: "high", anchorEvery: 1 });
    const anchored = model.requests.filter((r) => forcedTool(r) === "search_observations").flatMap(injectionsOf);
    const anchors = anchored.filter((t) => t.startsWith("Reminder of the original question"));
    expect(anchors.length).toBeGreaterThan(0);
    for (const a of anchors) expect(a).not.toContain("call done");
  });
});

describe("27.7: the guard reads reasoning tags and leaves prose about markers alone", () => {
  const prose = { jsonExpected: false };
  it.each([
    ["<thinking>", "<thinking>The user wants the date.</thinking>Atlas launches on March 14."],
    ["<reasoning>", "<reasoning>f1 has it</reasoning>\nAtlas launches on March 14."],
  ])("27.7: a leading %s block is dropped", (_tag, text) => {
    expect(inspectAnswer(text, prose)).toMatchObject({ kind: "recovered", text: "Atlas launches on March 14." });
  });
  it.each(["Atlas launches on March 14.</thinking>", "<reasoning>f1 has it", "March 14. </reasoning> more"])(
    "27.7: a stray reasoning tag is a leak: %j",
    (text) => {
      expect(inspectAnswer(text, prose)).toMatchObject({ kind: "leak", pattern: "think_block" });
    },
  );
  it.each(["Atlas launches on March 14.[TOOL_CALLS]", "Atlas launches on March 14. [TOOL_CALLS]"])(
    "27.7: a marker glued to the answer or ending it is still a leak: %j",
    (text) => {
      expect(inspectAnswer(text, prose)).toMatchObject({ kind: "leak", pattern: "text_tool_call" });
    },
  );
  it.each([
    "Qwen closes each turn with <|im_end|> and the server stops there.",
    "Qwen closes each turn with `<|im_end|>`.",
    "Mistral marks tool calls with [TOOL_CALLS] before the list.",
    'The marker "[TOOL_CALLS]" starts a Mistral call.',
  ])("27.7: prose that only mentions a marker is kept whole: %j", (text) => {
    expect(inspectAnswer(text, prose)).toEqual({ kind: "clean", text });
    const digest = factsDigest("q", { facts: [fact("f1", text)] });
    expect(digest).not.toContain("withheld");
  });
});

describe("27.7: forks keep the parent's reasoning", () => {
  it("27.7: a fork's replayed steps carry the parent's reasoning", async () => {
    const thinking = (req: ModelRequest) => {
      const forced = forcedTool(req);
      const r =
        forced && forced !== "done"
          ? reply(call(forced, { query: "Atlas launch" }))
          : reply(done("Atlas launches on March 14.", { memory_ids: ["f1"] }));
      return { ...r, reasoning: `thinking about ${forced ?? "auto"}` };
    };
    const parent = await run(atlasMemory({ mentalModels: [] }), new ScriptedModel(thinking));
    const responses = replayResponses(parent.events, 2);
    const fork = await run(
      atlasMemory({ mentalModels: [] }),
      new ScriptedModel(thinking),
      {},
      {
        replay: { forkAt: 2, responses },
      },
    );
    const reasoningOf = (events: RunEvent[]) =>
      ofType(events, "llm.response")
        .filter((e) => (e.iteration ?? 0) < 2)
        .map((e) => e.payload.reasoning);
    expect(reasoningOf(parent.events)).toEqual(["thinking about search_observations", "thinking about recall"]);
    expect(reasoningOf(fork.events)).toEqual(reasoningOf(parent.events));
    expect(ofType(fork.events, "llm.response").filter((e) => e.payload.replayed)).toHaveLength(2);
  });
});

describe("27.6: every model request is counted (engine)", () => {
  it("27.6: retries and downgrades a port reports are requests, each with its own event", async () => {
    let n = 0;
    const model = obeying(() => reply(done("Atlas launches on March 14.", { memory_ids: ["f1"] })));
    const port = {
      info: model.info,
      complete: async (req: ModelRequest) => {
        const r = await model.complete(req);
        return n++ === 0
          ? {
              ...r,
              failedRequests: [
                { kind: "downgrade" as const, error: "HTTP 400: tool_choice named unsupported", status: 400 },
                { kind: "retry" as const, error: "HTTP 503: overloaded", status: 503 },
              ],
            }
          : r;
      },
    };
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), port);
    expect(result.llmCalls).toBe(3);
    expect(result.modelRequests).toBe(5);
    expect(ofType(events, "llm.request_failed").map((e) => [e.iteration, e.payload.attempt, e.payload.kind])).toEqual([
      [0, 1, "downgrade"],
      [0, 2, "retry"],
    ]);
  });

  it("27.6: a call that fails after retries counts every request and says why each failed", async () => {
    const { ModelCallError } = await import("@/lib/reflect/errors");
    const port = {
      info: { kind: "scripted" as const, name: "failing" },
      complete: async (): Promise<ModelResponse> => {
        throw new ModelCallError(
          "model failing: timed out after 1000 ms per request; 4 requests took 4.9 s in all",
          "failing",
          undefined,
          [
            { kind: "retry", error: "timed out after 1000 ms", status: null },
            { kind: "retry", error: "timed out after 1000 ms", status: null },
            { kind: "retry", error: "timed out after 1000 ms", status: null },
          ],
        );
      },
    };
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), port);
    expect(result.status).toBe("failed");
    expect(result.llmCalls).toBe(0);
    expect(result.modelRequests).toBe(4);
    expect(result.error?.message).toContain("4 requests took 4.9 s");
    expect(ofType(events, "llm.request_failed").map((e) => e.payload.kind)).toEqual([
      "retry",
      "retry",
      "retry",
      "final",
    ]);
  });
});
