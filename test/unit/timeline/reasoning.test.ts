import { describe, expect, it } from "vitest";
import { formatReflectHuman } from "@/lib/cli/reflect-output";
import { allRows, foldRun, type ReasoningRow } from "@/lib/timeline/fold";
import { runToOtlp } from "@/lib/timeline/otlp";
import { LogBuilder } from "@/test/fixtures/timeline/builder";

const THOUGHT = "The question is about the launch date; the observations tier should have it.";

function runWithReasoning() {
  const b = new LogBuilder("run-reasoning").started();
  b.turn(0, {
    calls: [{ name: "search_observations", args: { query: "launch date" } }],
    reasoning: { text: THOUGHT, tokens: 42 },
  });
  b.turn(1, { calls: [{ name: "recall", args: { query: "launch" } }] });
  b.turn(2, {
    calls: [{ name: "done", args: { answer: "March 14." } }],
    reasoning: { text: "x".repeat(100), chars: 25_000 },
  });
  b.emit(
    "guard.output",
    {
      pattern: "text_tool_call",
      action: "recovered",
      detail: "read 1 tool call the model wrote as text (Hermes <tool_call> blocks)",
      format: "hermes",
    },
    2,
  );
  return b;
}

describe("reasoning in the timeline", () => {
  it("a response with reasoning shows as a reasoning row at the head of its iteration, with text and sizes", () => {
    const view = foldRun(runWithReasoning().events);
    const [first, second, third] = view.iterations;
    expect(first?.rows[0]).toMatchObject({
      kind: "reasoning",
      iteration: 0,
      text: THOUGHT,
      chars: THOUGHT.length,
      truncated: false,
      tokens: 42,
    } satisfies Partial<ReasoningRow>);
    expect(second?.rows.some((r) => r.kind === "reasoning")).toBe(false);
    expect(third?.rows.find((r) => r.kind === "reasoning")).toMatchObject({
      chars: 25_000,
      truncated: true,
      tokens: null,
    });
    // The text sits in the folded row data, where a text filter over rows finds it.
    expect(allRows(view).filter((r) => JSON.stringify(r).includes("observations tier should"))).toHaveLength(1);
  });

  it("a text tool call is a guard row that names the format", () => {
    const row = foldRun(runWithReasoning().events).iterations[2]?.rows.find((r) => r.kind === "guard");
    expect(row).toMatchObject({ kind: "guard", action: "output", pattern: "text_tool_call", format: "hermes" });
  });

  it("the OTLP chat span counts reasoning tokens and carries the reasoning; spans without it carry neither", () => {
    const spans = runToOtlp(runWithReasoning().events).resourceSpans[0]!.scopeSpans[0]!.spans;
    const chats = spans.filter((s) => s.name.startsWith("chat "));
    const get = (i: number, key: string) => chats[i]?.attributes.find((a) => a.key === key)?.value;
    expect(get(0, "gen_ai.usage.reasoning.output_tokens")).toEqual({ intValue: "42" });
    expect(get(0, "reflect.reasoning")).toEqual({ stringValue: THOUGHT });
    expect(get(1, "reflect.reasoning")).toBeUndefined();
    expect(get(1, "gen_ai.usage.reasoning.output_tokens")).toBeUndefined();
    expect(get(2, "reflect.reasoning_chars")).toEqual({ intValue: "25000" });
    const guard = spans.flatMap((s) => s.events).find((e) => e.name === "reflect.guard_output");
    expect(guard?.attributes.find((a) => a.key === "reflect.format")?.value).toEqual({ stringValue: "hermes" });
  });

  it("the CLI trace lists the reasoning with its size", () => {
    const b = runWithReasoning();
    b.finished({ status: "done" });
    const text = formatReflectHuman("run-reasoning", b.events.at(-1)!.payload as never, b.events);
    expect(text).toContain(`reasoning: ${THOUGHT.length} chars`);
    expect(text).toContain("reasoning: 25,000 chars");
  });
});
