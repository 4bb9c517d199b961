import { describe, expect, it } from "vitest";
import { NO_TOOL_CALL_SIGNATURE, NoProgressLadder, type TurnResult } from "@/lib/reflect/ladder";
import { call, done, forcedTool, reply, ScriptedModel, say } from "@/test/fixtures/scripted-model";
import { atlasMemory, ofType, QUESTION, run } from "./harness";

const fail = (signature: string): TurnResult => ({ signature, outcome: "error" });
const ok: TurnResult = { signature: "recall:ok:", outcome: "success" };

/** Feeds one turn per entry (iteration = index) and returns each verdict's kind (or null). */
function feed(turns: TurnResult[][]) {
  const ladder = new NoProgressLadder();
  return turns.map((t, i) => ladder.observe(i, t));
}
const kinds = (verdicts: ReturnType<typeof feed>) => verdicts.map((v) => v?.kind ?? null);

describe("no-progress ladder", () => {
  it("identical failure nudges then halts", () => {
    const v = feed([[fail("A")], [fail("A")], [fail("A")]]);
    expect(kinds(v)).toEqual([null, "nudge", "halt"]);
    expect(v[1]).toMatchObject({ trigger: "identical_failure", signature: "A", count: 2, sinceIteration: 0 });
    expect(v[2]).toMatchObject({ trigger: "identical_failure", count: 3, sinceIteration: 0 });
  });

  it("a success resets everything", () => {
    expect(kinds(feed([[fail("A")], [ok], [fail("A")], [fail("A")]]))).toEqual([null, null, null, "nudge"]);
    expect(kinds(feed([[fail("A")], [fail("A")], [ok], [fail("A")], [fail("A")]]))).toEqual([
      null,
      "nudge",
      null,
      null,
      "nudge",
    ]);
  });

  it("changed arguments clear the identical streak", () => {
    expect(kinds(feed([[fail("A")], [fail("B")], [fail("A")]]))).toEqual([null, null, null]);
  });

  it("policy reject halts on the second identical call without a nudge", () => {
    const p: TurnResult = { signature: "P", outcome: "policy_reject" };
    const v = feed([[p], [p]]);
    expect(kinds(v)).toEqual([null, "halt"]);
    expect(v[1]).toMatchObject({ trigger: "policy_reject", count: 2 });
  });

  it("varied failures nudge at 4 and halt at 6", () => {
    const v = feed(["a", "b", "c", "d", "e", "f"].map((s) => [fail(s)]));
    expect(kinds(v)).toEqual([null, null, null, "nudge", null, "halt"]);
    expect(v[3]).toMatchObject({ trigger: "failure_streak", count: 4, sinceIteration: 0 });
    expect(v[5]).toMatchObject({ trigger: "failure_streak", count: 6, sinceIteration: 0 });
  });

  it("unknown tools do not feed the backstop", () => {
    const unknown = (s: string): TurnResult => ({ signature: s, outcome: "unknown_tool" });
    const v = feed([[fail("a")], [unknown("u1")], [fail("b")], [unknown("u2")], [fail("c")], [unknown("u3")]]);
    expect(kinds(v)).toEqual([null, null, null, null, null, null]);
  });

  it("unknown tools still count toward identical repeats", () => {
    const u: TurnResult = { signature: "U", outcome: "unknown_tool" };
    expect(kinds(feed([[u], [u], [u]]))).toEqual([null, "nudge", "halt"]);
  });

  it("a batch of identical failures in one turn counts once", () => {
    expect(kinds(feed([[fail("A"), fail("A"), fail("A")]]))).toEqual([null]);
    expect(
      kinds(
        feed([
          [fail("A"), fail("A")],
          [fail("A"), fail("A")],
        ]),
      ),
    ).toEqual([null, "nudge"]);
  });

  it("a halt waits until a nudge was delivered in an earlier turn", () => {
    // Six distinct failures in one turn reach the halt threshold, but nothing was delivered yet.
    const v = feed([["a", "b", "c", "d", "e", "f"].map(fail), [fail("g")]]);
    expect(kinds(v)).toEqual(["nudge", "halt"]);
  });

  it("gives at most one nudge per turn", () => {
    // Turn 1 repeats A (identical nudge) and reaches a streak of 4 (backstop nudge): one nudge only.
    const v = feed([
      [fail("A"), fail("b")],
      [fail("A"), fail("c")],
    ]);
    expect(kinds(v)).toEqual([null, "nudge"]);
  });

  it("names the streak's first failing iteration", () => {
    const v = feed([[ok], [fail("A")], [fail("A")]]);
    expect(v[2]).toMatchObject({ kind: "nudge", sinceIteration: 1 });
    expect(v[2]?.kind === "nudge" && v[2].text).toContain("since iteration 1");
  });

  it("names where the streak began, not where the repeated call first failed", () => {
    const v = feed([[ok], [fail("B")], [fail("A")], [fail("A")]]);
    expect(v[3]).toMatchObject({ kind: "nudge", signature: "A", sinceIteration: 1 });
    expect(v[3]?.kind === "nudge" && v[3].text).toContain("since iteration 1");
  });

  it("the same empty search twice nudges", () => {
    const empty: TurnResult = { signature: "E", outcome: "empty" };
    const v = feed([[empty], [empty]]);
    expect(v[1]).toMatchObject({ kind: "nudge", trigger: "repeated_empty" });
  });

  it("empty results do not feed the backstop", () => {
    const e = (s: string): TurnResult => ({ signature: s, outcome: "empty" });
    expect(kinds(feed([[e("a")], [e("b")], [e("c")], [e("d")], [e("e")], [e("f")]]))).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
  });
});

describe("ladder inside the loop", () => {
  it("halts a model stuck on the same failing call and synthesizes from the evidence", async () => {
    const memory = atlasMemory({ mentalModels: [] });
    const bad = call("recall", { query: "" });
    const model = new ScriptedModel((req, index) => {
      const forced = forcedTool(req);
      if (forced === "done") return reply(done("March 14.", { observation_ids: ["o1"] }));
      if (index === 0) return reply(call("search_observations", { query: "Atlas launch" }));
      return reply(bad);
    });
    const { result, events } = await run(memory, model, { budget: "mid" });
    expect(ofType(events, "steering.nudge")).toHaveLength(1);
    const halt = ofType(events, "steering.halt");
    expect(halt).toHaveLength(1);
    expect(halt[0]!.payload).toMatchObject({ trigger: "identical_failure", sinceIteration: 1 });
    expect(result.status).toBe("halted");
    expect(result.flags).toEqual(expect.arrayContaining(["nudged", "halted"]));
    expect(result.answer).toBe("March 14.");
    // 1 good + 3 identical failures + the forced synthesis.
    expect(model.calls).toBe(5);
    expect(model.requests[4]!.toolChoice).toEqual({ type: "function", function: { name: "done" } });
  });

  it("halts on a repeated policy rejection without a nudge", async () => {
    const memory = atlasMemory({ mentalModels: [] });
    const model = new ScriptedModel((req) =>
      forcedTool(req) === "done" ? reply(done("n/a")) : reply(call(forcedTool(req) ?? "recall", { query: "Atlas" })),
    );
    const { result, events } = await run(memory, model, { scope: "team:ops", budget: "mid" });
    const halt = ofType(events, "steering.halt");
    expect(halt[0]?.payload.trigger).toBe("policy_reject");
    expect(ofType(events, "steering.nudge")).toHaveLength(0);
    expect(ofType(events, "tool.result")[0]!.payload.outcome).toBe("policy_reject");
    // Nothing was retrieved: no synthesis call after the halt. The bank was never searched, so the
    // run fails naming the refused scope instead of claiming "no relevant memories" (docs/engine.md#never-a-misleading-result).
    expect(result.status).toBe("failed");
    expect(result.error?.message).toContain("scope team:ops is not permitted");
    expect(result.answer).not.toContain("No relevant memories");
    expect(model.calls).toBe(3);
  });

  it("treats a turn without tool calls as a failure", async () => {
    const memory = atlasMemory({ mentalModels: [] });
    const model = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced === "done") return reply(done("March 14.", { memory_ids: ["f1"] }));
      if (forced) return reply(call(forced, { query: "Atlas launch" }));
      return say("I think it is March.");
    });
    const { events } = await run(memory, model, { budget: "mid" });
    const nudge = ofType(events, "steering.nudge")[0]!;
    expect(nudge.payload.signature).toBe(NO_TOOL_CALL_SIGNATURE);
    expect(ofType(events, "steering.halt")[0]!.payload.signature).toBe(NO_TOOL_CALL_SIGNATURE);
  });
});

describe("steering delivery", () => {
  function stuckModel() {
    return new ScriptedModel((req, index) => {
      const forced = forcedTool(req);
      if (forced === "done") return reply(done("March 14.", { memory_ids: ["f1"] }));
      if (index === 0) return reply(call("search_observations", { query: "Atlas launch" }));
      if (index === 1) return reply(call("recall", { query: "Atlas launch" }));
      return reply(call("recall", { query: "zzz nothing" }));
    });
  }

  it("the nudge is a system message in the next request only", async () => {
    const model = stuckModel();
    const { events } = await run(atlasMemory({ mentalModels: [] }), model, { budget: "mid", anchorEvery: 50 });
    const nudge = ofType(events, "steering.nudge")[0]!;
    const next = model.requests[nudge.iteration! + 1]!;
    const last = next.messages.at(-1)!;
    expect(last).toEqual({ role: "system", content: nudge.payload.text });
    const later = model.requests[nudge.iteration! + 2]!;
    expect(later.messages.some((m) => m.content === nudge.payload.text)).toBe(false);
    for (const req of model.requests) {
      expect(req.messages.filter((m) => m.role === "user").at(-1)?.content).toBe(QUESTION);
      expect(req.messages.filter((m) => m.role === "user")).toHaveLength(1);
    }
    const request = ofType(events, "llm.request").find((e) => e.iteration === nudge.iteration! + 1)!;
    expect(request.payload.injections).toEqual([
      { kind: "nudge", text: nudge.payload.text, index: request.payload.messages.length - 1 },
    ]);
  });

  it("anchors at N and 2N, never at 0 or on the final forced turn, one per request", async () => {
    const model = new ScriptedModel((req, index) => {
      if (forcedTool(req) === "done") return reply(done("March 14.", { memory_ids: ["f1"] }));
      return reply(call(forcedTool(req) ?? "recall", { query: `Atlas launch ${index}` }));
    });
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), model, { budget: "mid", anchorEvery: 3 });
    const anchorsAt = model.requests.map((r) => r.messages.filter((m) => m.role === "system").length - 1);
    // Iterations 3 and 6 carry one anchor; 9 is the final forced turn and carries none.
    expect(anchorsAt).toEqual([0, 0, 0, 1, 0, 0, 1, 0, 0, 0]);
    expect(ofType(events, "steering.anchor").map((e) => e.iteration)).toEqual([3, 6]);
    expect(model.requests[3]!.messages.at(-1)!.content).toContain(QUESTION);
    expect(result.flags).toContain("anchored");
  });

  it("carries the latest progress text, sticky across turns without text, cut at 500 code points", async () => {
    const long = `${"🚀".repeat(499)}ab`;
    const model = new ScriptedModel((req, index) => {
      if (forcedTool(req) === "done") return reply(done("March 14.", { memory_ids: ["f1"] }));
      const c = call(forcedTool(req) ?? "recall", { query: `Atlas launch ${index}` });
      if (index === 1) return say("Found the launch date, checking the owner.", c);
      if (index === 3) return say(long, c);
      return reply(c);
    });
    await run(atlasMemory({ mentalModels: [] }), model, { budget: "mid", anchorEvery: 2 });
    const anchor = (i: number) => model.requests[i]!.messages.at(-1)!.content as string;
    expect(anchor(2)).toContain("Found the launch date, checking the owner.");
    expect(anchor(4)).toContain(`${"🚀".repeat(499)}a…`);
    expect(anchor(4)).not.toContain("ab");
    // Iterations 4 and 5 wrote no text: iteration 6 still restates the long note.
    expect(anchor(6)).toContain(`${"🚀".repeat(499)}a…`);
  });

  it("restates only notes written beside tool calls, not a turn of bare text", async () => {
    const model = new ScriptedModel((req, index) => {
      if (forcedTool(req) === "done") return reply(done("March 14.", { memory_ids: ["f1"] }));
      if (index === 1)
        return say("Found the launch date, checking the owner.", call("recall", { query: "Atlas owner" }));
      if (index === 3)
        return {
          content: "Hmm, let me think.",
          toolCalls: [],
          finishReason: "stop",
          usage: { inputTokens: 1, outputTokens: 1 },
        };
      return reply(call("recall", { query: `Atlas launch ${index}` }));
    });
    await run(atlasMemory({ mentalModels: [] }), model, { budget: "mid", anchorEvery: 2 });
    const anchor = (i: number) => model.requests[i]!.messages.at(-1)!.content as string;
    expect(anchor(4)).toContain("Found the launch date, checking the owner.");
    expect(anchor(4)).not.toContain("Hmm, let me think.");
  });
});
