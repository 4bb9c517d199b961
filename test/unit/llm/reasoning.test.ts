import { describe, expect, it } from "vitest";
import { splitReasoning } from "@/lib/llm/reasoning";

describe("splitReasoning", () => {
  it("reads reasoning_content (vLLM, DeepSeek) and reasoning (OpenRouter, Ollama)", () => {
    expect(splitReasoning({ content: "Answer.", reasoning_content: "I should search." })).toEqual({
      content: "Answer.",
      reasoning: "I should search.",
    });
    expect(splitReasoning({ content: null, reasoning: "Thinking." })).toEqual({
      content: null,
      reasoning: "Thinking.",
    });
  });

  it("the same text in both fields (vLLM keeps reasoning_content beside reasoning) is kept once", () => {
    expect(
      splitReasoning({ content: "Answer.", reasoning: " I should search.", reasoning_content: "I should search.\n" }),
    ).toEqual({ content: "Answer.", reasoning: "I should search." });
    expect(splitReasoning({ content: null, reasoning_content: "A.", reasoning: "B." }).reasoning).toBe("A.\n\nB.");
  });

  it("takes a leading <think> block out of the content", () => {
    expect(splitReasoning({ content: "<think>\nThe user asks about Atlas.\n</think>\n\nMarch 14." })).toEqual({
      content: "March 14.",
      reasoning: "The user asks about Atlas.",
    });
  });

  it("an unclosed leading <think> (a response cut while thinking) is all reasoning", () => {
    expect(splitReasoning({ content: "<think>Still thinking about" })).toEqual({
      content: null,
      reasoning: "Still thinking about",
    });
  });

  it("a lone closing tag (the template opened the block in the prompt) ends the reasoning", () => {
    expect(splitReasoning({ content: "Let me think.</think>\n\nMarch 14." })).toEqual({
      content: "March 14.",
      reasoning: "Let me think.",
    });
  });

  it("joins a reasoning field with a <think> block", () => {
    expect(splitReasoning({ content: "<think>b</think>c", reasoning_content: "a" })).toEqual({
      content: "c",
      reasoning: "a\n\nb",
    });
  });

  it("no reasoning: content as sent, blank fields ignored", () => {
    expect(splitReasoning({ content: "Plain.", reasoning_content: "  ", reasoning: null })).toEqual({
      content: "Plain.",
      reasoning: null,
    });
  });
});

describe("think blocks after the start", () => {
  it("are reasoning too: never content, so never sent back to the model", () => {
    const split = splitReasoning({ content: "Searching now. <think>MID-THOUGHT</think> Then done." });
    expect(split.reasoning).toBe("MID-THOUGHT");
    expect(split.content).not.toContain("MID-THOUGHT");
    expect(split.content).not.toContain("<think>");
    expect(split.content).toContain("Searching now.");
  });

  it("joins a leading block, a middle block and one left open at the end", () => {
    const split = splitReasoning({ content: "<think>one</think>Text <think>two</think> more <think>three" });
    expect(split.reasoning).toBe("one\n\ntwo\n\nthree");
    expect(split.content?.replace(/\s+/g, " ").trim()).toBe("Text more");
  });
});
