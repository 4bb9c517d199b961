/** Run comparison on golden pairs produced by the real engine with scripted models. */
import { describe, expect, it } from "vitest";
import type { RunEvent } from "@/lib/reflect/events";
import { compareRuns, diffStep, divergenceSummary, driftedSteps, replayDivergence } from "@/lib/timeline/compare";
import { observation } from "@/test/fixtures/in-memory-memory";
import { call, done, forcedTool, reply, ScriptedModel } from "@/test/fixtures/scripted-model";
import { ATLAS_OBSERVATIONS, atlasMemory, run, SKILL } from "../reflect/harness";
import { SCENARIOS } from "../reflect/scenarios";

async function scenario(name: "fresh" | "stale") {
  const s = SCENARIOS[name]();
  return (await run(s.memory, s.model, s.overrides)).events;
}

/** Obeys forced retrieval; under auto, digs into raw facts first when the mission asks to quote. */
function missionReader() {
  return new ScriptedModel((req) => {
    const forced = forcedTool(req);
    if (forced && forced !== "done") return reply(call(forced, { query: "Atlas launch" }));
    const system = req.messages[0]?.content ?? "";
    const digs = typeof system === "string" && system.includes("quote");
    const recalled = req.messages.some((m) => m.role === "tool" && m.content.includes('"memories"'));
    if (!forced && digs && !recalled) return reply(call("recall", { query: "Atlas launch checklist" }));
    return reply(
      done("Atlas launches on March 14.", { mental_model_ids: ["mm1"], memory_ids: recalled ? ["f2"] : [] }),
    );
  });
}

describe("compareRuns", () => {
  it("finds no divergence between two runs of the same inputs", async () => {
    const a = await scenario("fresh");
    const b = await scenario("fresh");
    const cmp = compareRuns(a, b);
    expect(cmp.firstDivergence).toBeNull();
    expect(cmp.steps.map((s) => s.differences)).toEqual([[], []]);
    expect(cmp.answerChanged).toBe(false);
    expect(cmp.inputs).toEqual([]);
    expect(cmp.mentalModels).toEqual([]);
    expect(cmp.citations.every((c) => c.added.length === 0 && c.removed.length === 0)).toBe(true);
  });

  it("says no divergence only when the inputs are the same too", async () => {
    const same = compareRuns(await scenario("fresh"), await scenario("fresh"));
    expect(divergenceSummary(same)).toBe("No divergence: both runs took the same steps and got the same results.");
    expect(divergenceSummary(same, 2)).toContain("2 replayed steps of the fork did not replay");
    // Same steps and the same memories found, but another question asked: not "the same results".
    const s = SCENARIOS.fresh();
    const a = (await run(s.memory, s.model, s.overrides)).events;
    const t = SCENARIOS.fresh();
    const b = (await run(t.memory, t.model, { ...t.overrides, question: "What is the Atlas launch date again?" }))
      .events;
    const asked = compareRuns(a, b);
    expect(asked.firstDivergence).toBeNull();
    expect(asked.inputs.map((c) => c.field)).toContain("question");
    expect(divergenceSummary(asked)).toBe(
      "The runs took the same steps and their searches found the same memories, but their inputs differ (see Inputs that changed).",
    );
  });

  it("marks the first divergence at the freshness check when a stale model becomes fresh", async () => {
    const cmp = compareRuns(await scenario("stale"), await scenario("fresh"));
    expect(cmp.firstDivergence).toEqual({ iteration: 0, aspect: "freshness" });
    const step0 = cmp.steps[0]!;
    expect(step0.differences.map((d) => d.aspect)).toEqual(["freshness"]);
    expect(step0.differences[0]!.a).toMatch(/^keep_forcing/);
    expect(step0.differences[0]!.b).toMatch(/^release/);
    // The forced path went on to observations; the short-circuited run answered under auto.
    expect(cmp.steps[1]!.differences[0]).toMatchObject({
      aspect: "tool_choice",
      a: "forced:search_observations",
      b: "auto",
    });
    expect(cmp.steps.slice(2).every((s) => s.b === null && s.differences[0]?.aspect === "presence")).toBe(true);
    expect(cmp.a.llmCalls).toBe(4);
    expect(cmp.b.llmCalls).toBe(2);
    expect(cmp.citations.find((c) => c.tier === "mental_models")).toMatchObject({ added: ["mm1"], removed: [] });
    expect(cmp.citations.find((c) => c.tier === "raw_facts")).toMatchObject({ added: [], removed: ["f1"] });
    expect(cmp.answerChanged).toBe(true);
    // Punctuation is its own token: "14" and the final "." stay, the clause between them goes.
    expect(cmp.answerDiff.filter((d) => d.op === "remove").map((d) => d.text.trim())).toContain(
      ", after the security review",
    );
    expect(cmp.mentalModels).toEqual([
      expect.objectContaining({ id: "mm1", stalenessChanged: true, contentChanged: false }),
    ]);
    expect(cmp.mentalModels[0]!.a?.isStale).toBe(true);
    expect(cmp.mentalModels[0]!.b?.isStale).toBe(false);
  });

  it("marks the divergence at the step a changed mission altered, and names the mission change", async () => {
    const base = await run(atlasMemory(), missionReader(), { budget: "low" });
    // An edit of the mission (most of it kept): the comparison shows it as an inline word diff.
    const specific = { ...SKILL, version: 2, mission: `${SKILL.mission} Always quote the raw facts behind it.` };
    const changed = await run(atlasMemory(), missionReader(), { budget: "low", skill: specific });
    const cmp = compareRuns(base.events, changed.events);
    expect(cmp.firstDivergence).toEqual({ iteration: 1, aspect: "tool" });
    expect(cmp.steps[0]!.differences).toEqual([]);
    expect(cmp.steps[1]!.differences[0]).toMatchObject({ a: "done", b: "recall" });
    expect(cmp.inputs.map((i) => i.field)).toEqual(["skill", "mission"]);
    const mission = cmp.inputs.find((i) => i.field === "mission")!;
    expect(mission.diff?.some((d) => d.op === "add" && d.text.includes("raw"))).toBe(true);
    expect(cmp.citations.find((c) => c.tier === "raw_facts")).toMatchObject({ added: ["f2"] });
  });

  it("shows a rewritten mission whole on both sides instead of an interleaved word diff", async () => {
    const base = await run(atlasMemory(), missionReader(), { budget: "low" });
    const rewritten = {
      ...SKILL,
      version: 3,
      mission: "List every open action item with its owner and due date; skip anything already done.",
    };
    const changed = await run(atlasMemory(), missionReader(), { budget: "low", skill: rewritten });
    const mission = compareRuns(base.events, changed.events).inputs.find((i) => i.field === "mission")!;
    expect(mission).toMatchObject({ a: SKILL.mission, b: rewritten.mission });
    expect(mission.diff).toBeUndefined();
  });

  it("orders a step's differences query before returned ids", () => {
    const side = (query: string, ids: string[]) => ({
      iteration: 0,
      toolChoice: "auto" as const,
      replayed: false,
      llmCalls: 1,
      tokensIn: 0,
      tokensOut: 0,
      calls: [
        {
          tool: "recall",
          tier: "raw_facts" as const,
          query,
          outcome: "success" as const,
          ids: { mental_models: [], observations: [], raw_facts: ids },
        },
      ],
      freshness: null,
      steering: [],
      offeredTools: ["recall", "done"],
    });
    expect(diffStep(side("launch", ["f1"]), side("launch date", ["f1", "f2"])).map((d) => d.aspect)).toEqual([
      "query",
      "ids",
    ]);
  });
});

/** The parent's model responses, as a fork replays them. */
function replayedResponses(events: readonly RunEvent[]) {
  return events.flatMap((e) =>
    e.type === "llm.response"
      ? [
          {
            content: e.payload.text,
            toolCalls: e.payload.toolCalls.map((c) => ({
              id: c.id,
              type: "function" as const,
              function: { name: c.rawName, arguments: c.arguments },
            })),
            finishReason: e.payload.finishReason,
            usage: { inputTokens: 0, outputTokens: 0 },
          },
        ]
      : [],
  );
}

describe("replayDivergence", () => {
  it("names the replayed step whose tool results differ from the parent's", async () => {
    const stale = SCENARIOS.stale();
    const parent = await run(stale.memory, stale.model, stale.overrides);
    const responses = replayedResponses(parent.events);
    // Today's memory has a second observation: the replayed observations search returns more.
    const today = SCENARIOS.stale();
    today.memory = atlasMemory({
      mentalModels: [{ id: "mm1", name: "Atlas launch", content: "x", isStale: true, stalenessReason: "stale" }],
      observations: [...ATLAS_OBSERVATIONS, observation("o2", "Atlas launch review is on March 10.")],
    });
    const fork = await run(
      today.memory,
      today.model,
      { ...today.overrides, forkedAtIteration: 3 },
      {
        replay: { forkAt: 3, responses },
      },
    );
    const diverged = replayDivergence(parent.events, fork.events);
    expect(diverged).toEqual([
      {
        iteration: 1,
        aspect: "results",
        where: "call 1 (search_observations)",
        parent: "success: o1",
        fork: "success: o1, o2",
      },
    ]);
    expect(driftedSteps(diverged)).toBe(1);
    expect(replayDivergence(parent.events, parent.events)).toEqual([]);
  });

  it("marks a replayed freshness verdict that flipped, and the tool choice and offered tools that followed", async () => {
    const stale = SCENARIOS.stale();
    const parent = await run(stale.memory, stale.model, stale.overrides);
    // Today the model is fresh: the replayed check releases where the parent kept forcing.
    const today = SCENARIOS.stale();
    today.memory = atlasMemory({
      mentalModels: [{ id: "mm1", name: "Atlas launch", content: "Atlas launches in March.", isStale: false }],
    });
    const fork = await run(
      today.memory,
      today.model,
      { ...today.overrides, forkedAtIteration: 3 },
      { replay: { forkAt: 3, responses: replayedResponses(parent.events) } },
    );
    const diverged = replayDivergence(parent.events, fork.events);
    const freshness = diverged.find((d) => d.aspect === "freshness");
    expect(freshness).toMatchObject({ iteration: 0, parent: expect.stringMatching(/^keep forcing/) });
    expect(freshness?.fork).toMatch(/^release/);
    // After the release the next replayed step is no longer forced.
    expect(diverged).toContainEqual(expect.objectContaining({ iteration: 1, aspect: "tool_choice", fork: "auto" }));
    expect(driftedSteps(diverged)).toBeGreaterThanOrEqual(2);
  });
});
