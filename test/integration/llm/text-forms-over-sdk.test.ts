/**
 * Issue 18 on the wire: servers without tool parsing write tool calls as text, reasoning models
 * return their thinking beside (or inside) the content. Each form, through the real `openai` SDK
 * against the loopback fake server, ends `done` with the right citations, the event log records
 * the recovery or the reasoning, and no scaffolding reaches the answer or the conversation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "@/lib/reflect/events";
import { REASONING_CAP_CHARS } from "@/lib/reflect/model-turns";
import { type FakeOpenAI, type FakeReply, startFakeOpenAI } from "@/test/fixtures/fake-openai-server";
import { followForced, reflectOverWire, toolCall, WIRE_KEY } from "./wire-harness";

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());

const DONE_ARGS = { answer: "Atlas launches on March 14.", memory_ids: ["f1"] };
const RECALL_ARGS = { reason: "the date", query: "Atlas launch" };
const SCAFFOLDING = /<tool_call>|<\/tool_call>|\[TOOL_CALLS\]|\[ARGS\]|<think>|<\/think>|"arguments"/;

const hermes = (name: string, args: unknown) =>
  `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

const guards = (events: RunEvent[]) =>
  events.flatMap((e) => (e.type === "guard.output" ? [{ ...e.payload, iteration: e.iteration }] : []));
const responses = (events: RunEvent[]) => events.flatMap((e) => (e.type === "llm.response" ? [e.payload] : []));

function expectCleanDone(result: Awaited<ReturnType<typeof reflectOverWire>>["result"]) {
  expect(result.status).toBe("done");
  expect(result.answer).toBe("Atlas launches on March 14.");
  expect(result.citations.memory_ids).toEqual(["f1"]);
  expect(result.answer).not.toMatch(SCAFFOLDING);
}

describe("text tool calls over the wire", () => {
  it.each<[string, string, FakeReply, "hermes" | "mistral" | "bare_json"]>([
    ["a Hermes block", "hermes", { content: `Done searching.\n${hermes("done", DONE_ARGS)}` }, "hermes"],
    [
      "Mistral's list",
      "mistral",
      { content: `[TOOL_CALLS] [${JSON.stringify({ name: "done", arguments: DONE_ARGS })}]` },
      "mistral",
    ],
    ["Mistral's [ARGS] form", "mistral", { content: `[TOOL_CALLS]done[ARGS]${JSON.stringify(DONE_ARGS)}` }, "mistral"],
    ["a bare JSON object", "bare", { content: JSON.stringify({ name: "done", arguments: DONE_ARGS }) }, "bare_json"],
    [
      "a fenced JSON object, arguments as a JSON string",
      "fenced",
      { content: `\`\`\`json\n${JSON.stringify({ name: "done", arguments: JSON.stringify(DONE_ARGS) })}\n\`\`\`` },
      "bare_json",
    ],
  ])("done written as %s finishes the run and records the recovery", async (_label, id, reply, format) => {
    const { result, events, bodies } = await reflectOverWire(
      fake,
      followForced(() => reply),
      { mm: false },
    );
    expectCleanDone(result);
    const recovered = guards(events).filter((g) => g.pattern === "text_tool_call");
    expect(recovered).toHaveLength(1);
    expect(recovered[0]).toMatchObject({ action: "recovered", format });
    // The response as recorded holds the call and the prose beside it (none but the Hermes case's),
    // never the call's markup; no markup went back to the model.
    const last = responses(events).at(-1);
    expect(last?.text).toBe(id === "hermes" ? "Done searching." : null);
    expect(last?.toolCalls.map((c) => c.name)).toEqual(["done"]);
    expect(last?.toolCalls[0]?.id).toMatch(/^call_/);
    expect(JSON.stringify(bodies)).not.toMatch(/<tool_call>|\[TOOL_CALLS\]/);
  });

  it("several Hermes blocks in one response are several calls; a server with no tool parsing at all still finishes", async () => {
    // Every turn, forced ones included, comes back as text: a server that ignores `tools`.
    const { result, events, bodies } = await reflectOverWire(
      fake,
      (raw) => {
        const body = raw as { tool_choice?: { function?: { name: string } }; tools?: { function: { name: string } }[] };
        const forced = body.tool_choice?.function?.name;
        if (forced === "done") return { content: hermes("done", DONE_ARGS) };
        if (forced) return { content: hermes(forced, RECALL_ARGS) };
        const sentResults = (raw.messages as { role: string }[]).filter((m) => m.role === "tool").length;
        return sentResults < 3
          ? { content: `${hermes("recall", RECALL_ARGS)}\n${hermes("search_observations", RECALL_ARGS)}` }
          : { content: hermes("done", DONE_ARGS) };
      },
      { mm: false },
    );
    expectCleanDone(result);
    const multi = responses(events).find((r) => r.toolCalls.length === 2);
    expect(multi?.toolCalls.map((c) => c.name)).toEqual(["recall", "search_observations"]);
    expect(new Set(multi?.toolCalls.map((c) => c.id)).size).toBe(2);
    expect(guards(events).filter((g) => g.pattern === "text_tool_call").length).toBe(responses(events).length);
    expect(guards(events).find((g) => g.detail.includes("2 tool calls"))).toBeDefined();
    // Tool results pair with the generated ids.
    const toolMessages = bodies.at(-1)?.messages.filter((m) => m.role === "tool") ?? [];
    expect(toolMessages.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(bodies)).not.toContain("<tool_call>");
  });

  it("an unknown tool written as text goes through the engine's unknown-tool handling", async () => {
    const { result, events } = await reflectOverWire(
      fake,
      followForced((_b, n) =>
        n === 0 ? { content: hermes("web_search", { q: "Atlas" }) } : { content: hermes("done", DONE_ARGS) },
      ),
      { mm: false },
    );
    expectCleanDone(result);
    const unknown = events.find((e) => e.type === "tool.result" && e.payload.tool === "web_search");
    expect(unknown?.type === "tool.result" && unknown.payload.outcome).toBe("unknown_tool");
  });

  it("a broken block stays prose: the prose hint follows and the scaffolding never becomes an answer", async () => {
    const { result, events, bodies } = await reflectOverWire(
      fake,
      followForced((_b, n) =>
        n === 0
          ? { content: '<tool_call>{"name": "done", "arguments": {"answer": </tool_call>' }
          : toolCall("done", DONE_ARGS),
      ),
      { mm: false },
    );
    expectCleanDone(result);
    expect(guards(events).filter((g) => g.pattern === "text_tool_call")).toHaveLength(0);
    expect(bodies.at(-1)?.messages.some((m) => m.role === "system" && m.content?.includes("Finish with done"))).toBe(
      true,
    );
  });

  it("a done whose answer carries tool-call text is caught by the output guard, never stored", async () => {
    const { result, events } = await reflectOverWire(
      fake,
      followForced(() =>
        toolCall("done", { answer: `<tool_call>{"name": "recall", "arguments": {}}</tool_call>`, memory_ids: ["f1"] }),
      ),
      { mm: false },
    );
    expect(result.answer).not.toMatch(SCAFFOLDING);
    expect(guards(events).some((g) => g.pattern === "text_tool_call" && g.action !== "recovered")).toBe(true);
    // The structured call's argument text was never read as a call.
    expect(guards(events).some((g) => g.pattern === "text_tool_call" && g.action === "recovered")).toBe(false);
    expect(responses(events).every((r) => r.toolCalls.every((c) => c.id.startsWith("call_fake_")))).toBe(true);
  });

  it("27.7: a <tool_call> inside a fenced example in prose is not executed", async () => {
    const example = `Qwen would write it like this:\n\n\`\`\`\n${hermes("recall", RECALL_ARGS)}\n\`\`\`\n\nI have what I need.`;
    const { result, events } = await reflectOverWire(
      fake,
      followForced((_b, n) => (n === 0 ? { content: example } : toolCall("done", DONE_ARGS))),
      { mm: false },
    );
    expectCleanDone(result);
    // The forced recall ran once; the example in prose ran no second recall.
    const recalls = events.filter((e) => e.type === "tool.call" && e.payload.tool === "recall");
    expect(recalls).toHaveLength(1);
    expect(guards(events).filter((g) => g.pattern === "text_tool_call")).toHaveLength(0);
  });

  it('27.7: {"name":"Atlas","arguments":…} written as the reply is text, never a call to "Atlas"', async () => {
    const { result, events } = await reflectOverWire(
      fake,
      followForced((_b, n) =>
        n === 0
          ? { content: JSON.stringify({ name: "Atlas", arguments: { launch: "March 14" } }) }
          : toolCall("done", DONE_ARGS),
      ),
      { mm: false },
    );
    expectCleanDone(result);
    expect(events.some((e) => e.type === "tool.call" && /atlas/i.test(e.payload.tool))).toBe(false);
    expect(events.some((e) => e.type === "tool.result" && e.payload.outcome === "unknown_tool")).toBe(false);
  });

  it("27.7: a harmony to=functions text call is read and runs", async () => {
    const { result, events } = await reflectOverWire(
      fake,
      followForced((_b, n) =>
        n === 0
          ? {
              content:
                '<|channel|>commentary to=functions.recall <|constrain|>json<|message|>{"reason":"date","query":"Atlas launch"}<|call|>',
            }
          : toolCall("done", DONE_ARGS),
      ),
      { mm: false },
    );
    expectCleanDone(result);
    const recovered = guards(events).filter((g) => g.pattern === "text_tool_call");
    expect(recovered).toEqual([expect.objectContaining({ action: "recovered", format: "harmony" })]);
    const recalls = events.filter((e) => e.type === "tool.result" && e.payload.tool === "recall");
    expect(recalls).toHaveLength(2);
  });

  it("keeps the server quirks working: arguments as an object, calls without ids, no usage", async () => {
    const { result, events } = await reflectOverWire(
      fake,
      followForced((_b, n) =>
        n === 0
          ? {
              raw_tool_calls: [{ type: "function", function: { name: "recall", arguments: RECALL_ARGS } }],
              usage: null,
            }
          : { raw_tool_calls: [{ function: { name: "done", arguments: DONE_ARGS } }], usage: null },
      ),
      { mm: false },
    );
    expectCleanDone(result);
    const recall = events.find((e) => e.type === "tool.call" && e.payload.tool === "recall");
    expect(recall?.type === "tool.call" && recall.payload.query).toBe("Atlas launch");
    expect(responses(events).at(-1)?.tokensIn).toBe(0);
  });
});

describe("reasoning over the wire", () => {
  const THOUGHT = "The user asks for the Atlas date; f1 says March 14.";

  it.each<[string, FakeReply]>([
    ["reasoning_content (vLLM, DeepSeek)", { ...toolCall("done", DONE_ARGS), reasoning_content: THOUGHT }],
    ["reasoning (OpenRouter, Ollama)", { ...toolCall("done", DONE_ARGS), reasoning: THOUGHT }],
    ["a leading <think> block", { ...toolCall("done", DONE_ARGS), content: `<think>\n${THOUGHT}\n</think>\n\n` }],
    ["a <think> block before a Hermes call", { content: `<think>${THOUGHT}</think>\n${hermes("done", DONE_ARGS)}` }],
  ])("%s is recorded in llm.response and kept out of answer and conversation", async (_label, reply) => {
    const { result, events, bodies } = await reflectOverWire(
      fake,
      followForced(() => reply),
      { mm: false },
    );
    expectCleanDone(result);
    const withReasoning = responses(events).filter((r) => r.reasoning);
    expect(withReasoning).toHaveLength(1);
    expect(withReasoning[0]).toMatchObject({ reasoning: THOUGHT, reasoningChars: THOUGHT.length });
    expect(JSON.stringify(bodies)).not.toContain("f1 says March 14");
    expect(JSON.stringify(result)).not.toContain("f1 says March 14");
  });

  it("an unclosed <think> (cut off) is reasoning, the turn counts as prose and the run goes on", async () => {
    const { result, events, bodies } = await reflectOverWire(
      fake,
      followForced((_b, n) =>
        n === 0
          ? { content: `<think>${THOUGHT} Let me also che`, finish_reason: "length" }
          : toolCall("done", DONE_ARGS),
      ),
      { mm: false },
    );
    expectCleanDone(result);
    const cut = responses(events).find((r) => r.finishReason === "length");
    expect(cut).toMatchObject({ text: null, reasoning: `${THOUGHT} Let me also che` });
    expect(JSON.stringify(bodies)).not.toContain("<think>");
  });

  it("long reasoning is capped on a code-point boundary with its full length, and reasoning tokens are recorded", async () => {
    const long = `${"x".repeat(REASONING_CAP_CHARS - 1)}😀 and more`;
    const { result, events } = await reflectOverWire(
      fake,
      followForced(() => ({ ...toolCall("done", DONE_ARGS), reasoning_content: long, reasoning_tokens: 321 })),
      { mm: false },
    );
    expectCleanDone(result);
    const r = responses(events).find((p) => p.reasoning);
    expect(r?.reasoningChars).toBe(long.length);
    expect(r?.reasoning).toBe("x".repeat(REASONING_CAP_CHARS - 1));
    expect(r?.reasoningTokens).toBe(321);
  });

  it("a response without reasoning records no reasoning fields (logs stay as they were)", async () => {
    const { events } = await reflectOverWire(
      fake,
      followForced(() => toolCall("done", DONE_ARGS)),
      { mm: false },
    );
    for (const r of responses(events)) {
      expect(Object.keys(r)).not.toContain("reasoning");
      expect(Object.keys(r)).not.toContain("reasoningTokens");
    }
    expect(JSON.stringify(events)).not.toContain(WIRE_KEY);
  });
});
