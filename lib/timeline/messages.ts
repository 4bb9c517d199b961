/** Per model call: exactly what was sent (with request-scoped injections marked) and what came back. */
import type { EventPayload, Injection, RunEvent, ToolName } from "@/lib/reflect/events";
import { type ModelStep, walkRun, walkSteps } from "./walk";

type WireMessage = EventPayload<"llm.request">["messages"][number];

export interface CallMessage {
  index: number;
  role: WireMessage["role"];
  content: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  toolCallId: string | null;
  /** Set when this message was injected for this request only (never persisted). */
  injection: Injection["kind"] | null;
}

export interface ModelCall {
  /** 1-based position among the run's model calls. */
  number: number;
  iteration: number | null;
  /** null for a response logged without its request (a replayed turn). */
  requestSeq: number | null;
  at: number;
  messages: CallMessage[];
  tools: ToolName[];
  toolChoice: EventPayload<"llm.request">["toolChoice"] | null;
  /** null while the response is outstanding. */
  response: EventPayload<"llm.response"> | null;
  responseSeq: number | null;
}

function toCallMessage(m: WireMessage, index: number, injected: Map<number, Injection["kind"]>): CallMessage {
  return {
    index,
    role: m.role,
    content: m.content,
    toolCalls: m.role === "assistant" ? (m.tool_calls ?? []).map((c) => ({ id: c.id, ...c.function })) : [],
    toolCallId: m.role === "tool" ? m.tool_call_id : null,
    injection: injected.get(index) ?? null,
  };
}

/** Every model call of the run in log order, each request with the response that answered it (from the run walk). */
export function modelCalls(events: readonly RunEvent[]): ModelCall[] {
  const steps = walkSteps(walkRun(events))
    .filter((step): step is ModelStep => step.kind === "model")
    .sort((x, y) => x.seq - y.seq);
  return steps.map((step, k) => {
    const { request, response } = step;
    const injected = new Map((request?.payload.injections ?? []).map((i) => [i.index, i.kind]));
    return {
      number: k + 1,
      iteration: step.iteration,
      requestSeq: request?.seq ?? null,
      at: step.at,
      messages: (request?.payload.messages ?? []).map((m, i) => toCallMessage(m, i, injected)),
      tools: request?.payload.tools ?? [],
      toolChoice: request?.payload.toolChoice ?? null,
      response: response?.payload ?? null,
      responseSeq: response?.seq ?? null,
    };
  });
}
