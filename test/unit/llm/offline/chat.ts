/**
 * Conversations as the engine builds them for the offline model's unit tests: system prompt,
 * question, then one assistant search call and its tool result per turn, in the exact payload
 * shapes of docs/engine.md#tools.
 */
import { expect } from "vitest";
import type { ChatMessage, ModelRequest, ModelResponse, ToolDefinition } from "@/lib/reflect/ports";

export function tool(name: string): ToolDefinition {
  return { type: "function", function: { name, description: name, parameters: { type: "object" } } };
}
export const ALL_TOOLS = ["search_mental_models", "search_observations", "recall", "done"].map(tool);

export interface Turn {
  tool: string;
  result: unknown;
  /** The query the search was sent with (what the offline model itself would send, by default). */
  query?: string;
}

export function conversation(
  question: string,
  turns: Turn[],
  options: { system?: string; query?: string; extraSystem?: string[] } = {},
): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: "system", content: options.system ?? "You answer one question about a memory bank." },
    { role: "user", content: question },
  ];
  turns.forEach((turn, i) => {
    const id = `call_${i}_0`;
    const args =
      turn.tool === "done" ? "{}" : JSON.stringify({ reason: "search", query: turn.query ?? options.query ?? "" });
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name: turn.tool, arguments: args } }],
    });
    messages.push({
      role: "tool",
      tool_call_id: id,
      content: typeof turn.result === "string" ? turn.result : JSON.stringify(turn.result),
    });
  });
  for (const text of options.extraSystem ?? []) messages.push({ role: "system", content: text });
  return messages;
}

export const auto = (messages: ChatMessage[], tools = ALL_TOOLS): ModelRequest => ({
  messages,
  tools,
  toolChoice: "auto",
});
export const forcedDone = (messages: ChatMessage[]): ModelRequest => ({
  messages,
  tools: [tool("done")],
  toolChoice: { type: "function", function: { name: "done" } },
});

export const mentalModels = (
  items: { id: string; content: string; name?: string; is_stale?: boolean; refreshed_at?: string }[],
) => ({
  query: "q",
  count: items.length,
  mental_models: items.map((m) => ({ name: m.id, tags: [], is_stale: false, ...m })),
});
export const observations = (
  items: { id: string; text: string; updated_at?: string; tags?: string[]; source_fact_ids?: string[] }[],
) => ({
  query: "q",
  count: items.length,
  observations: items,
  is_stale: false,
  freshness: "up_to_date",
});
export const memories = (
  items: {
    id: string;
    text: string;
    occurred_at?: string;
    tags?: string[];
    speaker?: string;
    session_id?: string;
    position?: number;
  }[],
) => ({
  query: "q",
  count: items.length,
  memories: items,
});

export function onlyCall(response: ModelResponse) {
  expect(response.toolCalls).toHaveLength(1);
  const call = response.toolCalls[0]!;
  return { name: call.function.name, args: JSON.parse(call.function.arguments) as Record<string, unknown> };
}
