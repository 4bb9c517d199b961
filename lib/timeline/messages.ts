/** Per model call: exactly what was sent (with request-scoped injections marked) and what came back. */
import type { EventPayload, Injection, RunEvent, RunEventOf, ToolName } from "@/lib/reflect/events";

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

function fromRequest(ev: RunEventOf<"llm.request">, number: number): ModelCall {
  const injected = new Map(ev.payload.injections.map((i) => [i.index, i.kind]));
  return {
    number,
    iteration: ev.iteration ?? null,
    requestSeq: ev.seq,
    at: ev.at,
    messages: ev.payload.messages.map((m, i) => toCallMessage(m, i, injected)),
    tools: ev.payload.tools,
    toolChoice: ev.payload.toolChoice,
    response: null,
    responseSeq: null,
  };
}

/** Pairs each llm.request with the next llm.response of the same iteration. */
export function modelCalls(events: readonly RunEvent[]): ModelCall[] {
  const calls: ModelCall[] = [];
  const awaiting = new Map<number | null, ModelCall[]>();
  for (const ev of events) {
    if (ev.type === "llm.request") {
      const call = fromRequest(ev, calls.length + 1);
      calls.push(call);
      const queue = awaiting.get(call.iteration) ?? [];
      queue.push(call);
      awaiting.set(call.iteration, queue);
    } else if (ev.type === "llm.response") {
      const call = awaiting.get(ev.iteration ?? null)?.shift();
      if (call) {
        call.response = ev.payload;
        call.responseSeq = ev.seq;
      } else {
        calls.push({
          number: calls.length + 1,
          iteration: ev.iteration ?? null,
          requestSeq: null,
          at: ev.at,
          messages: [],
          tools: [],
          toolChoice: null,
          response: ev.payload,
          responseSeq: ev.seq,
        });
      }
    }
  }
  return calls;
}
