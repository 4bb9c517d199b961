import { describe, expect, it } from "vitest";
import { NO_EVIDENCE_ANSWER } from "@/lib/reflect/digest";
import { RESPONSE_SCHEMA_WARNING } from "@/lib/reflect/engine";
import { InMemoryMemory } from "@/test/fixtures/in-memory-memory";
import { call, done, forcedTool, reply, ScriptedModel } from "@/test/fixtures/scripted-model";
import { atlasMemory, ofType, request, run, SKILL } from "./harness";

describe("facts mode", () => {
  it("makes zero model calls and returns the ids it lists", async () => {
    const memory = atlasMemory();
    const model = new ScriptedModel([]);
    const { result, events } = await run(memory, model, { mode: "facts" });
    expect(model.calls).toBe(0);
    expect(result.llmCalls).toBe(0);
    expect(result.status).toBe("done");
    expect(result.citations.memory_ids).toEqual(["f1", "f2"]);
    for (const id of result.citations.memory_ids) expect(result.answer).toContain(`[${id}]`);
    expect(result.answer).toContain("The Atlas launch moved to March 14");
    expect(result.facts?.memories.map((m) => m.id)).toEqual(["f1", "f2"]);
    expect(memory.searchesOf("recall")[0]).toMatchObject({ query: request().question, scope: "personal" });
    expect(ofType(events, "llm.request")).toHaveLength(0);
  });

  it("uses observations when the skill retrieves no episodic memories", async () => {
    const memory = atlasMemory();
    const skill = { ...SKILL, retrieval: { tags: [], types: ["observation" as const], scope: "personal" as const } };
    const { result } = await run(memory, new ScriptedModel([]), { mode: "facts", skill });
    expect(memory.searchesOf("recall")).toHaveLength(0);
    expect(result.citations.observation_ids).toEqual(["o1"]);
  });

  it("applies the skill's tags", async () => {
    const memory = atlasMemory();
    const skill = { ...SKILL, retrieval: { ...SKILL.retrieval, tags: ["atlas"] } };
    const { result } = await run(memory, new ScriptedModel([]), { mode: "facts", skill });
    expect(memory.searchesOf("recall")[0]?.tags).toEqual(["atlas"]);
    expect(result.status).toBe("no_evidence");
    expect(result.answer).toBe(NO_EVIDENCE_ANSWER);
  });

  it("answers no_evidence on an empty bank", async () => {
    const { result } = await run(new InMemoryMemory({}), new ScriptedModel([]), { mode: "facts" });
    expect(result.status).toBe("no_evidence");
  });

  it("accepts responseSchema and warns that it is ignored", async () => {
    const { result, events } = await run(atlasMemory(), new ScriptedModel([]), {
      mode: "facts",
      responseSchema: { type: "object" },
    });
    expect(result.warnings).toEqual([RESPONSE_SCHEMA_WARNING]);
    expect(ofType(events, "run.started")[0]!.payload.warnings).toEqual([RESPONSE_SCHEMA_WARNING]);
    expect(ofType(events, "run.finished")[0]!.payload.warnings).toEqual([RESPONSE_SCHEMA_WARNING]);
  });

  it("warns about responseSchema in synthesize mode too", async () => {
    const model = new ScriptedModel((req) =>
      forcedTool(req) && forcedTool(req) !== "done"
        ? reply(call(forcedTool(req)!, { query: "Atlas launch" }))
        : reply(done("March 14.", { mental_model_ids: ["mm1"] })),
    );
    const { result } = await run(atlasMemory(), model, { responseSchema: { type: "object" } });
    expect(result.warnings).toEqual([RESPONSE_SCHEMA_WARNING]);
  });

  it("fails with a receipt when the memory port throws", async () => {
    const memory = atlasMemory().fail("recall", "disk I/O error");
    const { result } = await run(memory, new ScriptedModel([]), { mode: "facts" });
    expect(result.status).toBe("failed");
    expect(result.error).toEqual({ message: "disk I/O error", phase: "tool.call (recall)" });
  });

  it("fails with a receipt when the store throws a non-Error value (null)", async () => {
    const memory = atlasMemory();
    memory.recall = async () => {
      throw null;
    };
    const { result, events } = await run(memory, new ScriptedModel([]), { mode: "facts" });
    expect(result.status).toBe("failed");
    expect(result.answer).not.toBe(NO_EVIDENCE_ANSWER);
    expect(result.error).toEqual({ message: "recall failed without an error message", phase: "tool.call (recall)" });
    expect(events.at(-1)?.type).toBe("run.finished");
  });

  it("fails with a receipt when the store answers with no list (never a raw TypeError)", async () => {
    const memory = atlasMemory();
    memory.recall = async () => undefined as never;
    const { result, events } = await run(memory, new ScriptedModel([]), { mode: "facts" });
    expect(result.status).toBe("failed");
    expect(result.error?.message).toBe("recall returned no list of memories");
    expect(events.at(-1)?.type).toBe("run.finished");
  });
});
