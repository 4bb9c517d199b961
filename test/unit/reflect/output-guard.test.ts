import { describe, expect, it } from "vitest";
import { inspectAnswer } from "@/lib/reflect/output-guard";
import { call, done, forcedTool, reply, ScriptedModel } from "@/test/fixtures/scripted-model";
import { atlasMemory, ofType, request, run } from "./harness";

/** Obeys forced retrieval, then answers with `answers` in order (one per done turn). */
function answering(...answers: string[]) {
  let n = 0;
  return new ScriptedModel((req) => {
    const forced = forcedTool(req);
    if (forced && forced !== "done") return reply(call(forced, { query: "Atlas launch" }));
    const answer = answers[Math.min(n++, answers.length - 1)]!;
    return reply(done(answer, { memory_ids: ["f1"] }));
  });
}

async function guarded(answers: string[], outputFormat?: string, answerFormat: "prose" | "json" = "prose") {
  const model = answering(...answers);
  const skill = { ...request().skill, answerFormat, ...(outputFormat ? { outputFormat } : {}) };
  const { result, events } = await run(atlasMemory({ mentalModels: [] }), model, { skill });
  return { result, events, model, guard: ofType(events, "guard.output").map((e) => e.payload) };
}

describe("output guard: leak shapes", () => {
  it("raw channel framing keeps only the final channel", async () => {
    const leaked =
      "<|channel|>analysis<|message|>The user wants the date. f1 says March 14.<|end|><|start|>assistant<|channel|>final<|message|>Atlas launches on March 14.<|return|>";
    const { result, guard } = await guarded([leaked]);
    expect(result.answer).toBe("Atlas launches on March 14.");
    expect(result.status).toBe("done");
    expect(guard).toEqual([expect.objectContaining({ action: "recovered", pattern: "harmony_token" })]);
  });

  it("glued assistantfinal keeps the text after it", async () => {
    const { result, guard } = await guarded([
      "analysisNeed the date from f1.assistantfinalAtlas launches on March 14.",
    ]);
    expect(result.answer).toBe("Atlas launches on March 14.");
    expect(guard[0]?.action).toBe("recovered");
  });

  it("to=functions.x text is retried, and a clean retry answer is used", async () => {
    const { result, guard, model } = await guarded([
      'commentary to=functions.recall json{"query":"Atlas launch"}',
      "Atlas launches on March 14.",
    ]);
    expect(guard.map((g) => g.action)).toEqual(["retry"]);
    expect(guard[0]?.pattern).toBe("to_functions");
    expect(result.answer).toBe("Atlas launches on March 14.");
    expect(result.status).toBe("done");
    const retry = model.requests.at(-1)!;
    expect(retry.toolChoice).toEqual({ type: "function", function: { name: "done" } });
    expect(retry.messages.at(-1)?.role).toBe("system");
    expect(result.answer).not.toContain("to=functions");
  });

  it("a polluted tool name still delivers a clean answer", async () => {
    const model = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced && forced !== "done") return reply(call(forced, { query: "Atlas launch" }));
      return reply(call("done<|channel|>commentary", { answer: "Atlas launches on March 14.", memory_ids: ["f1"] }));
    });
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), model);
    expect(result.answer).toBe("Atlas launches on March 14.");
    expect(ofType(events, "guard.output")).toHaveLength(0);
  });

  it("commentary JSON as the answer is never stored: retry, then degrade to a facts digest", async () => {
    const json = '{"reason":"look up the date","query":"Atlas launch"}';
    const { result, guard } = await guarded([json, json]);
    expect(guard.map((g) => g.action)).toEqual(["retry", "degraded"]);
    expect(result.status).toBe("degraded");
    expect(result.flags).toContain("degraded");
    expect(result.answer).not.toContain('"query"');
    expect(result.answer).toContain("[f1]");
  });

  it('a bare {"answer": ...} envelope is unwrapped', async () => {
    const { result, guard, model } = await guarded(['{"answer": "Atlas launches on March 14."}']);
    expect(result.answer).toBe("Atlas launches on March 14.");
    expect(guard).toEqual([expect.objectContaining({ action: "unwrapped", pattern: "json_envelope" })]);
    expect(model.calls).toBe(3);
  });

  it("analysis-only text is retried once and then degraded", async () => {
    const analysis = "analysisThe user asks for the launch date. I should look at f1 before answering.";
    const { result, guard, model, events } = await guarded([analysis, analysis]);
    expect(guard.map((g) => g.action)).toEqual(["retry", "degraded"]);
    expect(result.status).toBe("degraded");
    expect(result.answer).not.toContain("analysis");
    expect(result.answer).toContain("The Atlas launch moved to March 14");
    expect(model.calls).toBe(4);
    expect(result.llmCalls).toBe(4);
    const retryRequest = ofType(events, "llm.request").at(-1)!;
    expect(retryRequest.payload.injections.map((x) => x.kind)).toEqual(["guard_retry"]);
  });
});

describe("output guard: a retry that fails", () => {
  it("degrades to the evidence digest instead of failing the run", async () => {
    let dones = 0;
    const model = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced && forced !== "done") return reply(call(forced, { query: "Atlas launch" }));
      if (dones++ === 0) return reply(done("<|channel|>analysis<|message|>f1 says March 14.", { memory_ids: ["f1"] }));
      throw new Error("upstream 503: overloaded");
    });
    const { result, events } = await run(atlasMemory({ mentalModels: [] }), model);
    expect(ofType(events, "guard.output").map((g) => g.payload.action)).toEqual(["retry", "degraded"]);
    expect(result.status).toBe("degraded");
    expect(result.answer).toContain("The Atlas launch moved to March 14");
    expect(result.answer).not.toContain("<|");
  });
});

describe("output guard: leaks that hide", () => {
  it.each([
    ["tool-call text glued to a channel name", 'assistantcommentaryto=functions.recall json{"query":"x"}'],
    ["analysis glued to lowercase text", "analysisthe user asks for the date; f1 says March 14."],
    ["an unclosed code fence before channel framing", "```\n<|channel|>analysis<|message|>secret reasoning"],
  ])("detects %s", (_name, text) => {
    expect(inspectAnswer(text, { jsonExpected: false }).kind).not.toBe("clean");
  });
});

describe("output guard: answers that must pass untouched", () => {
  const clean = async (answer: string, outputFormat?: string, answerFormat: "prose" | "json" = "prose") => {
    const { result, guard } = await guarded([answer], outputFormat, answerFormat);
    expect(guard).toEqual([]);
    expect(result.answer).toBe(answer);
    expect(result.status).toBe("done");
  };

  it("prose mentioning an analysis of something", () =>
    clean("An analysis of the notes shows the launch is on March 14."));
  it("prose starting with Analysis", () => clean("Analysis: the launch is on March 14."));
  it("JSON when the skill's answer format is json", () =>
    clean('{"answer": "March 14", "owner": "Priya"}', "Return a JSON object with answer and owner.", "json"));
});

describe("inspectAnswer", () => {
  it("reports a leak for channel framing without a final channel", () => {
    expect(inspectAnswer("<|channel|>analysis<|message|>thinking", { jsonExpected: false }).kind).toBe("leak");
  });
  it("unwraps an envelope whose inner text is clean only", () => {
    expect(inspectAnswer('{"answer":"<|channel|>x"}', { jsonExpected: false }).kind).toBe("leak");
  });
  it("treats a blank answer as a leak", () => {
    expect(inspectAnswer("  ", { jsonExpected: false }).kind).toBe("leak");
  });
  const prose = { jsonExpected: false };

  it("drops a leading <think> block when the rest is a clean answer", () => {
    const r = inspectAnswer(
      "<think>The user wants the date. f1 says March 14.</think>Atlas launches on March 14.",
      prose,
    );
    expect(r).toMatchObject({ kind: "recovered", text: "Atlas launches on March 14.", pattern: "think_block" });
  });
  it("treats a <think> block that is not leading, or unclosed, as a leak", () => {
    expect(inspectAnswer("Atlas launches on March 14. <think>check f2</think>", prose).kind).toBe("leak");
    expect(inspectAnswer("<think>The user wants the date", prose).kind).toBe("leak");
    expect(inspectAnswer("<think>x</think>", prose).kind).toBe("leak");
  });
  it("cuts a ChatML end-of-turn token and what follows it", () => {
    const r = inspectAnswer("Atlas launches on March 14.<|im_end|>\n<|im_start|>assistant", prose);
    expect(r).toMatchObject({ kind: "recovered", text: "Atlas launches on March 14.", pattern: "chat_template_token" });
  });
  it("treats other chat-template tokens as a leak", () => {
    expect(inspectAnswer("<|im_start|>assistant\nAtlas launches on March 14.", prose).kind).toBe("leak");
    expect(inspectAnswer("<|start_header_id|>assistant<|end_header_id|>March 14", prose).kind).toBe("leak");
  });
  it.each(['[{"answer": "Atlas launches on March 14."}]', 'Answer: {"answer": "Atlas launches on March 14."}'])(
    "unwraps an envelope inside a list or after a lead-in: %s",
    (text) => {
      expect(inspectAnswer(text, prose)).toMatchObject({ kind: "unwrapped", text: "Atlas launches on March 14." });
    },
  );
  it.each([
    'Atlas launches on March 14. <tool_call>{"name": "recall", "arguments": {"query": }</tool_call>',
    '<tool_call>{"name": "recall"',
    "March 14.</tool_call>",
    '[TOOL_CALLS] [{"name": "recall", "arguments": {broken',
    "recall[ARGS]{not json",
  ])("tool-call scaffolding written as text is a leak, whatever the JSON inside: %s", (text) => {
    expect(inspectAnswer(text, prose)).toMatchObject({ kind: "leak", pattern: "text_tool_call" });
    expect(inspectAnswer(text, { jsonExpected: true })).toMatchObject({ kind: "leak", pattern: "text_tool_call" });
  });
  it.each([
    "Run the launch script with [ARGS] set to the release tag.",
    "The model wraps its reasoning in <think> tags before it answers.",
  ])("prose that only mentions the markers is an answer, not a leak: %s", (text) => {
    expect(inspectAnswer(text, prose).kind).toBe("clean");
  });
  it("a bare tool-call object as the answer is a leak, not an answer", () => {
    expect(inspectAnswer('{"name": "recall", "arguments": {"query": "Atlas"}}', prose).kind).toBe("leak");
  });
  it("with answerFormat json, unwraps a fenced JSON block to the JSON", () => {
    const r = inspectAnswer('```json\n{"date": "2025-03-14"}\n```', { jsonExpected: true });
    expect(r).toMatchObject({ kind: "unwrapped", text: '{"date": "2025-03-14"}', pattern: "json_fence" });
    expect(inspectAnswer("```\nnot json\n```", { jsonExpected: true }).kind).toBe("clean");
  });
});

describe("output guard: answer format json", () => {
  it("a json-format answer wrapped in a ```json fence is stored as the JSON", async () => {
    const { result } = await guarded(['```json\n{"date": "2025-03-14"}\n```'], undefined, "json");
    expect(JSON.parse(result.answer)).toEqual({ date: "2025-03-14" });
    expect(result.status).toBe("done");
  });
});
