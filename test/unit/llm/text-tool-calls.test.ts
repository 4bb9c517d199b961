import { describe, expect, it } from "vitest";
import { parseTextToolCalls } from "@/lib/llm/text-tool-calls";

const args = { reason: "find the date", query: "Atlas launch" };

describe("parseTextToolCalls", () => {
  describe("Hermes / Qwen <tool_call> blocks", () => {
    it("reads one block with object arguments", () => {
      const parsed = parseTextToolCalls(
        `<tool_call>\n{"name": "recall", "arguments": ${JSON.stringify(args)}}\n</tool_call>`,
      );
      expect(parsed).toEqual({
        format: "hermes",
        calls: [{ name: "recall", arguments: JSON.stringify(args) }],
        prose: "",
      });
    });

    it("reads several blocks in order, arguments as a JSON string kept as sent", () => {
      const raw = '{"query": "Atlas", "reason": "x"}';
      const parsed = parseTextToolCalls(
        `Let me search.\n<tool_call>{"name": "recall", "arguments": ${JSON.stringify(raw)}}</tool_call>\n<tool_call>{"name": "search_observations", "arguments": {"query": "launch"}}</tool_call>`,
      );
      expect(parsed?.format).toBe("hermes");
      expect(parsed?.calls).toEqual([
        { name: "recall", arguments: raw },
        { name: "search_observations", arguments: '{"query":"launch"}' },
      ]);
      expect(parsed?.prose).toBe("Let me search.");
    });

    it("reads a last block the response left open", () => {
      const parsed = parseTextToolCalls('<tool_call>{"name": "done", "arguments": {"answer": "March 14."}}');
      expect(parsed?.calls).toEqual([{ name: "done", arguments: '{"answer":"March 14."}' }]);
    });

    it("accepts `parameters` for the arguments and keeps unknown tool names for the engine", () => {
      const parsed = parseTextToolCalls('<tool_call>{"name": "web_search", "parameters": {"q": "x"}}</tool_call>');
      expect(parsed?.calls).toEqual([{ name: "web_search", arguments: '{"q":"x"}' }]);
    });

    it("a block with invalid JSON leaves the whole text as prose", () => {
      expect(parseTextToolCalls('<tool_call>{"name": "recall", "arguments": {"query": }</tool_call>')).toBeNull();
      expect(
        parseTextToolCalls('<tool_call>{"name": "recall", "arguments": {}}</tool_call><tool_call>{broken</tool_call>'),
      ).toBeNull();
    });

    it("a block without a name is not a call", () => {
      expect(parseTextToolCalls('<tool_call>{"arguments": {}}</tool_call>')).toBeNull();
      expect(parseTextToolCalls('<tool_call>{"name": "recall", "arguments": [1]}</tool_call>')).toBeNull();
    });
  });

  describe("Mistral [TOOL_CALLS]", () => {
    it("reads the list form of tokenizers before v11", () => {
      const parsed = parseTextToolCalls(
        `[TOOL_CALLS] [{"name": "recall", "arguments": ${JSON.stringify(args)}}, {"name": "done", "arguments": {"answer": "a"}}]`,
      );
      expect(parsed).toEqual({
        format: "mistral",
        calls: [
          { name: "recall", arguments: JSON.stringify(args) },
          { name: "done", arguments: '{"answer":"a"}' },
        ],
        prose: "",
      });
    });

    it("reads the v11+ `name{…}` and `name[ARGS]{…}` forms, one marker per call", () => {
      const parsed = parseTextToolCalls(
        '[TOOL_CALLS]recall{"query": "Atlas [launch]", "reason": "brace } in a string"}[TOOL_CALLS]done[ARGS]{"answer": "March 14."}',
      );
      expect(parsed?.calls).toEqual([
        { name: "recall", arguments: '{"query":"Atlas [launch]","reason":"brace } in a string"}' },
        { name: "done", arguments: '{"answer":"March 14."}' },
      ]);
    });

    it("skips a [CALL_ID] and keeps the text before and after the calls as prose", () => {
      const parsed = parseTextToolCalls('Sure.[TOOL_CALLS]recall[CALL_ID]a1B2c3D4e[ARGS]{"query": "x"} trailing');
      expect(parsed?.calls).toEqual([{ name: "recall", arguments: '{"query":"x"}' }]);
      expect(parsed?.prose).toBe("Sure.\n\ntrailing");
    });

    it("an unclosed or broken list stays prose", () => {
      expect(parseTextToolCalls('[TOOL_CALLS] [{"name": "recall", "arguments": {}')).toBeNull();
      expect(parseTextToolCalls("[TOOL_CALLS] and then nothing")).toBeNull();
      expect(parseTextToolCalls("[TOOL_CALLS] []")).toBeNull();
    });
  });

  describe("bare JSON", () => {
    it("reads a whole-content call object, also inside a ```json fence", () => {
      const call = `{"name": "recall", "arguments": ${JSON.stringify(args)}}`;
      for (const text of [call, `  ${call}\n`, `\`\`\`json\n${call}\n\`\`\``, `\`\`\`\n${call}\n\`\`\``]) {
        expect(parseTextToolCalls(text)).toEqual({
          format: "bare_json",
          calls: [{ name: "recall", arguments: JSON.stringify(args) }],
          prose: "",
        });
      }
    });

    it("reads `parameters` too", () => {
      expect(parseTextToolCalls('{"name": "done", "parameters": {"answer": "x"}}')?.calls).toEqual([
        { name: "done", arguments: '{"answer":"x"}' },
      ]);
    });

    it("JSON that is not only a call stays text: envelopes, extra keys, prose around it", () => {
      expect(parseTextToolCalls('{"answer": "March 14."}')).toBeNull();
      expect(parseTextToolCalls('{"name": "Atlas", "arguments": {}, "launch": "March"}')).toBeNull();
      expect(parseTextToolCalls('The call is {"name": "recall", "arguments": {}}')).toBeNull();
      expect(parseTextToolCalls('{"name": "recall", "arguments": {}')).toBeNull();
      // A JSON answer whose keys happen to be call-like, without arguments, is data, not a call.
      expect(parseTextToolCalls('{"name": "Atlas", "type": "launch"}')).toBeNull();
      expect(parseTextToolCalls('```json\n{"id": "f1", "name": "Launch plan"}\n```')).toBeNull();
    });
  });

  it("a call written inside a <think> block is reasoning, never a call; one outside it still is", () => {
    const call = '<tool_call>{"name": "recall", "arguments": {"query": "secret"}}</tool_call>';
    expect(parseTextToolCalls(`<think>b</think>\n<think>I could ${call}</think>`)).toBeNull();
    expect(parseTextToolCalls(`Prose. <think>maybe ${call}</think> more prose.`)).toBeNull();
    expect(parseTextToolCalls(`Prose. <think>cut off while thinking ${call}`)).toBeNull();
    expect(parseTextToolCalls(`[TOOL_CALLS]<think>x [TOOL_CALLS]recall{"query": "q"}</think>`)).toBeNull();
    expect(parseTextToolCalls(`<think>a</think><think>b</think>${call.replace("secret", "atlas")}`)?.calls).toEqual([
      { name: "recall", arguments: '{"query":"atlas"}' },
    ]);
  });

  it("plain prose and empty content hold no call", () => {
    expect(parseTextToolCalls("The launch is on March 14.")).toBeNull();
    expect(parseTextToolCalls("")).toBeNull();
    expect(parseTextToolCalls(null)).toBeNull();
  });
});

describe("issue 27.7: what is not a call, and harmony calls", () => {
  const OFFERED = ["search_mental_models", "search_observations", "recall", "done"];
  it("27.7: a <tool_call> inside a fenced code example in prose is not a call", () => {
    const text =
      'Qwen writes its calls like this:\n\n```xml\n<tool_call>{"name": "recall", "arguments": {"query": "Atlas"}}</tool_call>\n```\n\nThat is all.';
    expect(parseTextToolCalls(text, OFFERED)).toBeNull();
    const mistral = 'Example:\n```\n[TOOL_CALLS] [{"name": "recall", "arguments": {}}]\n```\nEnd.';
    expect(parseTextToolCalls(mistral, OFFERED)).toBeNull();
  });
  it("27.7: a call outside the fence is still read", () => {
    const text = '```\nexample\n```\n<tool_call>{"name": "recall", "arguments": {"query": "Atlas"}}</tool_call>';
    expect(parseTextToolCalls(text, OFFERED)?.calls).toEqual([{ name: "recall", arguments: '{"query":"Atlas"}' }]);
  });
  it('27.7: {"name":"Atlas","arguments":…} names no offered tool: an answer, not a call', () => {
    expect(parseTextToolCalls('{"name": "Atlas", "arguments": {"launch": "March 14"}}', OFFERED)).toBeNull();
    expect(parseTextToolCalls('{"name": "recall", "arguments": {"query": "Atlas"}}', OFFERED)?.calls).toEqual([
      { name: "recall", arguments: '{"query":"Atlas"}' },
    ]);
  });
  it.each([
    '<|channel|>commentary to=functions.recall <|constrain|>json<|message|>{"query":"Atlas launch"}<|call|>',
    'assistantcommentaryto=functions.recall json{"query":"Atlas launch"}',
    'commentary to=functions.recall json{"query":"Atlas launch"}',
  ])("27.7: a harmony text call is read: %s", (text) => {
    expect(parseTextToolCalls(text, OFFERED)).toEqual({
      format: "harmony",
      calls: [{ name: "recall", arguments: '{"query":"Atlas launch"}' }],
      prose: "",
    });
  });
  it("27.7: a harmony call with broken arguments stays text", () => {
    expect(parseTextToolCalls('to=functions.recall json{"query": ', OFFERED)).toBeNull();
  });
  it("27.7: a call inside <thinking> or <reasoning> is not a call", () => {
    expect(
      parseTextToolCalls('<thinking><tool_call>{"name": "recall", "arguments": {}}</tool_call></thinking>', OFFERED),
    ).toBeNull();
  });
});
