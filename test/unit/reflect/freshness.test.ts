import { describe, expect, it } from "vitest";
import { decideFreshness, isPlaceholderContent } from "@/lib/reflect/freshness";
import { mentalModel } from "@/test/fixtures/in-memory-memory";
import { call, done, forcedTool, offeredTools, reply, ScriptedModel } from "@/test/fixtures/scripted-model";
import { ATLAS_MODEL, atlasMemory, ofType, run, toolsCalled } from "./harness";

const fresh = { id: "mm1", name: "Atlas", content: "Launch on March 14.", isStale: false };

describe("freshness helper", () => {
  it("releases when every model is fresh and has content", () => {
    expect(decideFreshness("low", [fresh, { ...fresh, id: "mm2" }]).verdict).toBe("release");
  });
  it("keeps forcing when any model is stale", () => {
    const d = decideFreshness("low", [
      fresh,
      { ...fresh, id: "mm2", isStale: true, stalenessReason: "3 newer memories in scope" },
    ]);
    expect(d.verdict).toBe("keep_forcing");
    expect(d.why).toContain("3 newer memories in scope");
  });
  it("treats a missing staleness flag as stale", () => {
    const { isStale: _omit, ...noFlag } = fresh;
    const d = decideFreshness("mid", [noFlag]);
    expect(d.verdict).toBe("keep_forcing");
    expect(d.models[0]?.isStale).toBe(true);
  });
  it("keeps forcing when content is blank", () => {
    expect(decideFreshness("low", [{ ...fresh, content: "   \n" }]).verdict).toBe("keep_forcing");
  });
  it("keeps forcing when content is a placeholder", () => {
    for (const content of ["Generating content...", "TBD", "Pending", "generating…"]) {
      expect(isPlaceholderContent(content)).toBe(true);
      expect(decideFreshness("low", [{ ...fresh, content }]).verdict).toBe("keep_forcing");
    }
    expect(isPlaceholderContent("Pending review by legal until March.")).toBe(false);
  });
  it("keeps forcing on an empty list", () => {
    const d = decideFreshness("low", []);
    expect(d.verdict).toBe("keep_forcing");
    expect(d.why).toMatch(/no mental models/);
  });
  it("never releases on a high budget", () => {
    expect(decideFreshness("high", [fresh]).verdict).toBe("keep_forcing");
  });
});

/** A model that follows forced turns and answers under auto citing the mental model. */
function answerFromModel(mentalModelIds = ["mm1"]) {
  return new ScriptedModel((req) => {
    const forced = forcedTool(req);
    if (forced && forced !== "done") return reply(call(forced, { query: "Atlas launch" }));
    return reply(done("Atlas launches on March 14.", { mental_model_ids: mentalModelIds }));
  });
}

describe("forced hierarchical retrieval", () => {
  it("fresh mental model releases forced retrieval", async () => {
    const memory = atlasMemory();
    const model = answerFromModel();
    const { result, events } = await run(memory, model, { budget: "low" });

    expect(model.calls).toBe(2);
    expect(forcedTool(model.requests[0]!)).toBe("search_mental_models");
    expect(offeredTools(model.requests[0]!)).toEqual(["search_mental_models"]);
    expect(model.requests[1]!.toolChoice).toBe("auto");
    expect(offeredTools(model.requests[1]!)).toEqual(["search_mental_models", "search_observations", "recall", "done"]);
    expect(memory.searchesOf("searchObservations")).toHaveLength(0);
    expect(memory.searchesOf("recall")).toHaveLength(0);
    expect(result.status).toBe("done");
    expect(result.citations.mental_model_ids).toEqual(["mm1"]);
    expect(result.flags).toContain("short_circuited");
    const check = ofType(events, "freshness.check");
    expect(check).toHaveLength(1);
    expect(check[0]!.payload.verdict).toBe("release");
    expect(check[0]!.payload.models[0]).toMatchObject({ id: "mm1", isStale: false, usable: true, version: 1 });
  });

  it("released agent may still retrieve under auto with its own query", async () => {
    const memory = atlasMemory();
    const model = new ScriptedModel([
      reply(call("search_mental_models", { query: "Atlas launch" })),
      reply(call("recall", { query: "security review Atlas" })),
      reply(done("March 14, after the security review.", { memory_ids: ["f1"], mental_model_ids: ["mm1"] })),
    ]);
    const { result } = await run(memory, model);
    expect(memory.searchesOf("recall").map((q) => q.query)).toEqual(["security review Atlas"]);
    expect(result.status).toBe("done");
    expect(result.citations).toEqual({ memory_ids: ["f1"], observation_ids: [], mental_model_ids: ["mm1"] });
  });

  it("stale mental model keeps forced retrieval", async () => {
    const memory = atlasMemory({
      mentalModels: [{ ...ATLAS_MODEL, isStale: true, stalenessReason: "2 newer memories in scope" }],
    });
    const model = answerFromModel([]);
    const { events } = await run(memory, model);
    expect(model.requests.slice(0, 3).map(forcedTool)).toEqual([
      "search_mental_models",
      "search_observations",
      "recall",
    ]);
    expect(toolsCalled(events).slice(0, 3)).toEqual(["search_mental_models", "search_observations", "recall"]);
    expect(memory.searchesOf("searchMentalModels")).toHaveLength(1);
    expect(memory.searchesOf("searchObservations")).toHaveLength(1);
    expect(memory.searchesOf("recall")).toHaveLength(1);
    const check = ofType(events, "freshness.check")[0]!;
    expect(check.payload.verdict).toBe("keep_forcing");
    expect(check.payload.why).toContain("2 newer memories in scope");
  });

  it("no mental models keeps forced retrieval", async () => {
    const memory = atlasMemory({ mentalModels: [] });
    const model = answerFromModel([]);
    const { events } = await run(memory, model);
    // With no mental models the tier is not even offered: observations then recall are forced.
    expect(model.requests.slice(0, 2).map(forcedTool)).toEqual(["search_observations", "recall"]);
    expect(ofType(events, "run.started")[0]!.payload.enabledTiers).toEqual(["observations", "raw_facts"]);
    expect(ofType(events, "freshness.check")).toHaveLength(0);
  });

  it("a mental-model search that returns nothing keeps forced retrieval", async () => {
    const memory = atlasMemory({ mentalModels: [mentalModel("mm9", "Hiring plan", "Two engineers in Q3.")] });
    const model = answerFromModel([]);
    const { events } = await run(memory, model);
    expect(model.requests.slice(0, 3).map(forcedTool)).toEqual([
      "search_mental_models",
      "search_observations",
      "recall",
    ]);
    expect(ofType(events, "freshness.check")[0]!.payload).toMatchObject({ verdict: "keep_forcing", models: [] });
  });

  it("a placeholder mental model keeps forced retrieval", async () => {
    const memory = atlasMemory({ mentalModels: [{ ...ATLAS_MODEL, content: "Generating content..." }] });
    const model = answerFromModel([]);
    await run(memory, model);
    expect(model.requests.slice(0, 3).map(forcedTool)).toEqual([
      "search_mental_models",
      "search_observations",
      "recall",
    ]);
  });

  it("high budget keeps the forced path for a fresh model", async () => {
    const memory = atlasMemory();
    const model = answerFromModel();
    const { events } = await run(memory, model, { budget: "high" });
    expect(model.requests.slice(0, 3).map(forcedTool)).toEqual([
      "search_mental_models",
      "search_observations",
      "recall",
    ]);
    expect(ofType(events, "freshness.check")[0]!.payload.verdict).toBe("keep_forcing");
  });

  it("mid budget releases", async () => {
    const memory = atlasMemory();
    const model = answerFromModel();
    const { result } = await run(memory, model, { budget: "mid" });
    expect(model.calls).toBe(2);
    expect(memory.searchesOf("recall")).toHaveLength(0);
    expect(result.flags).toContain("short_circuited");
  });

  it("an excluded tier is never offered", async () => {
    const memory = atlasMemory();
    const model = answerFromModel([]);
    const { events } = await run(memory, model, { excludeTiers: ["mental_models"] });
    expect(ofType(events, "run.started")[0]!.payload.enabledTiers).toEqual(["observations", "raw_facts"]);
    expect(model.requests.flatMap(offeredTools)).not.toContain("search_mental_models");
  });
});

describe("release-miss guard", () => {
  it("rejects a released done that cites nothing once, then lets the model recall", async () => {
    const memory = atlasMemory();
    const model = new ScriptedModel([
      reply(call("search_mental_models", { query: "Atlas launch" })),
      reply(done("It launches soon.")),
      reply(call("recall", { query: "Atlas launch date" })),
      reply(done("March 14.", { memory_ids: ["f1"] })),
    ]);
    const { result, events } = await run(memory, model);
    const rejected = ofType(events, "guard.done_rejected");
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.payload.why).toBe("release_miss");
    const corrective = model.requests[2]!.messages.at(-1)!;
    expect(corrective.role).toBe("tool");
    expect(corrective.content).toMatch(/search_observations|recall/);
    expect(result.flags).toContain("release_miss");
    expect(result.status).toBe("done");
    expect(result.answer).toBe("March 14.");
    expect(result.citations.memory_ids).toEqual(["f1"]);
  });

  it("rejects only once: a second uncited done is accepted and flagged ungrounded", async () => {
    const memory = atlasMemory();
    const model = new ScriptedModel([
      reply(call("search_mental_models", { query: "Atlas launch" })),
      reply(done("It launches soon.")),
      reply(done("It launches soon.")),
    ]);
    const { result, events } = await run(memory, model);
    expect(ofType(events, "guard.done_rejected")).toHaveLength(1);
    expect(result.status).toBe("done");
    expect(result.flags).toEqual(expect.arrayContaining(["release_miss", "ungrounded"]));
  });

  it("a done citing the released model is accepted at once", async () => {
    const model = answerFromModel(["mm1"]);
    const { events } = await run(atlasMemory(), model);
    expect(ofType(events, "guard.done_rejected")).toHaveLength(0);
  });
});

describe("one freshness verdict per forced turn", () => {
  const twoModels = () =>
    atlasMemory({
      mentalModels: [
        mentalModel("mm1", "Atlas launch", "Atlas launches on March 14.", { isStale: false }),
        mentalModel("mm2", "Hiring plan", "Two engineers in Q3.", {
          isStale: true,
          stalenessReason: "3 newer memories in scope",
        }),
      ],
    });

  it("keeps forcing when a second search in the same turn returns a stale model", async () => {
    const model = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced === "search_mental_models") {
        return reply(
          call("search_mental_models", { query: "Atlas launch" }),
          call("search_mental_models", { query: "hiring engineers" }),
        );
      }
      if (forced && forced !== "done") return reply(call(forced, { query: "Atlas launch" }));
      return reply(done("Atlas launches on March 14.", { memory_ids: ["f1"] }));
    });
    const { result, events } = await run(twoModels(), model, { budget: "low" });
    const checks = ofType(events, "freshness.check");
    expect(checks).toHaveLength(1);
    expect(checks[0]!.payload.verdict).toBe("keep_forcing");
    expect(checks[0]!.payload.models.map((m) => m.id).sort()).toEqual(["mm1", "mm2"]);
    expect(result.flags).not.toContain("short_circuited");
  });

  it("records a keep-forcing verdict when the mental-model search fails", async () => {
    const memory = atlasMemory();
    memory.fail("searchMentalModels", new Error("index unavailable"), 1);
    const { events } = await run(memory, answerFromModel([]), { budget: "low" });
    const check = ofType(events, "freshness.check")[0];
    expect(check?.payload.verdict).toBe("keep_forcing");
    expect(check?.payload.why).toContain("index unavailable");
    expect(toolsCalled(events).slice(0, 3)).toEqual(["search_mental_models", "search_observations", "recall"]);
  });
});
