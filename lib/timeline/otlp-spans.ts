/**
 * The spans of a run's trace, one builder a kind: the root invoke_agent span, a model call as a
 * GenAI chat span, a tool call as execute_tool (with search_memory → retrieval children for a tier
 * search), the missed-evidence probe as an evaluator span, and a verdict as a root event. Each
 * convention's attributes go on the span the convention defines (docs/tracing.md). Pure.
 */
import { type Tier, tierForTool } from "@/lib/reflect/domain";
import type { EventPayload, RunEventOf } from "@/lib/reflect/events";
import { TOOL_DEFINITIONS } from "@/lib/reflect/tools";
import { memoryTextFromContent } from "./memory-text";
import {
  type AttrValue,
  attrs,
  dataSourceId,
  double,
  type OtlpAttribute,
  type OtlpEvent,
  type OtlpSpan,
  spanIdOf,
} from "./otlp-attributes";
import type { RunWalk, VerdictEvent } from "./walk";

const AGENT_NAME = "reflect";

/** What every span of one run's trace shares: its ids, clock and model. */
export interface SpanScope {
  traceId: string;
  runId: string;
  rootId: string;
  /** A run-relative time (ms) as OTLP nanoseconds since the epoch. */
  time: (at: number) => string;
  /** The last event's time: a span still open at the end of the log closes there. */
  lastAt: number;
  modelName: string;
  provider: string;
  bankId: string;
}

/** A span or root event with the seq of the event that opened it: the export keeps log order. */
export interface Placed<T> {
  seq: number;
  item: T;
}

function child(sc: SpanScope, key: string, name: string, kind: 1 | 3, at: number, parent = sc.rootId): OtlpSpan {
  return {
    traceId: sc.traceId,
    spanId: spanIdOf(sc.runId, key),
    parentSpanId: parent,
    name,
    kind,
    startTimeUnixNano: sc.time(at),
    endTimeUnixNano: sc.time(at),
    attributes: [],
    events: [],
    status: { code: 0 },
  };
}

/** A model call as a GenAI chat span; a request still waiting for its response closes at the last event. */
export function chatSpan(
  sc: SpanScope,
  request: RunEventOf<"llm.request">,
  response: RunEventOf<"llm.response"> | null,
): OtlpSpan {
  const p = request.payload;
  const span = child(sc, `e${request.seq}`, `chat ${sc.modelName}`, 3, request.at);
  span.attributes = attrs({
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": sc.provider,
    "gen_ai.request.model": sc.modelName,
    "gen_ai.conversation.id": sc.runId,
    "reflect.iteration": request.iteration,
    "reflect.tool_choice": p.toolChoice.type === "forced" ? p.toolChoice.tool : "auto",
    "reflect.tools_offered": p.tools,
    "reflect.injections": p.injections.map((i) => i.kind),
    "openinference.span.kind": "LLM",
    "llm.model_name": sc.modelName,
    "llm.provider": sc.provider,
    "input.value": JSON.stringify(p.messages),
    "input.mime_type": "application/json",
    ...flattenInputMessages(p.messages),
  });
  if (!response) {
    span.endTimeUnixNano = sc.time(Math.max(sc.lastAt, request.at));
    return span;
  }
  const r = response.payload;
  span.endTimeUnixNano = sc.time(Math.max(response.at, request.at));
  span.attributes.push(
    ...attrs({
      "gen_ai.response.model": sc.modelName,
      "gen_ai.response.finish_reasons": [r.finishReason],
      "gen_ai.usage.input_tokens": r.tokensIn,
      "gen_ai.usage.output_tokens": r.tokensOut,
      "reflect.latency_ms": r.latencyMs,
      "reflect.replayed": r.replayed,
      "llm.token_count.prompt": r.tokensIn,
      "llm.token_count.completion": r.tokensOut,
      "llm.token_count.total": r.tokensIn + r.tokensOut,
      // Reasoning, only when the model sent some: tokens as the GenAI conventions'
      // `gen_ai.usage.reasoning.output_tokens` (part of the output tokens), the text and its full
      // length as reflect attributes.
      "gen_ai.usage.reasoning.output_tokens": r.reasoningTokens,
      "reflect.reasoning": r.reasoning,
      "reflect.reasoning_chars": r.reasoningChars,
      "output.value": JSON.stringify({ text: r.text, tool_calls: r.toolCalls }),
      "output.mime_type": "application/json",
      "llm.output_messages.0.message.role": "assistant",
      "llm.output_messages.0.message.content": r.text ?? undefined,
      ...Object.fromEntries(
        r.toolCalls.flatMap((c, i) => [
          [`llm.output_messages.0.message.tool_calls.${i}.tool_call.id`, c.id],
          [`llm.output_messages.0.message.tool_calls.${i}.tool_call.function.name`, c.name],
          [`llm.output_messages.0.message.tool_calls.${i}.tool_call.function.arguments`, c.arguments],
        ]),
      ),
    }),
  );
  span.status = { code: 1 };
  return span;
}

/** A tool call as an execute_tool span, with search_memory → retrieval children once a tier search returned. */
export function toolSpans(
  sc: SpanScope,
  call: RunEventOf<"tool.call">,
  result: RunEventOf<"tool.result"> | null,
): Placed<OtlpSpan>[] {
  const p = call.payload;
  const span = child(sc, `e${call.seq}`, `execute_tool ${p.tool}`, 1, call.at);
  span.attributes = attrs({
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": p.tool,
    "gen_ai.tool.type": "function",
    "gen_ai.tool.call.id": p.callId,
    "gen_ai.tool.call.arguments": JSON.stringify(p.args ?? null),
    "reflect.iteration": call.iteration,
    "reflect.tier": p.tier,
    "reflect.reason": p.reason,
    "openinference.span.kind": "TOOL",
    "tool.name": p.tool,
    // OpenInference: the tool's parameter schema (JSON Schema); the call's arguments are the input.
    "tool.description": toolDefinition(p.tool)?.function.description,
    "tool.parameters": toolDefinition(p.tool) ? JSON.stringify(toolDefinition(p.tool)?.function.parameters) : undefined,
    "input.value": JSON.stringify(p.args ?? null),
    "input.mime_type": "application/json",
  });
  const placed = [{ seq: call.seq, item: span }];
  if (!result) {
    span.endTimeUnixNano = sc.time(Math.max(sc.lastAt, call.at));
    return placed;
  }
  const r = result.payload;
  span.endTimeUnixNano = sc.time(Math.max(result.at, call.at));
  span.attributes.push(
    ...attrs({
      "gen_ai.tool.call.result": r.content,
      "reflect.outcome": r.outcome,
      "reflect.result.count": r.count,
      "reflect.result.chars": r.chars,
      "reflect.result.cap": r.cap,
      "reflect.result.truncated": r.truncated,
      "reflect.signature": r.signature,
      "output.value": r.content,
      "output.mime_type": "application/json",
    }),
  );
  const failed = searchFailed(r);
  span.status = failed ? { code: 2, message: r.error ?? r.outcome } : { code: 1 };
  if (failed) span.attributes.push(...attrs({ "error.type": r.outcome }));
  const tier = r.tier ?? tierForTool(r.tool);
  if (tier) {
    const bankId = sc.bankId;
    // The GenAI memory span (search_memory on the bank) wraps the retrieval span of the tier
    // search: each convention's attributes on the span the convention defines.
    const memory = child(sc, `e${result.seq}:memory`, "search_memory", 3, call.at, span.spanId);
    memory.endTimeUnixNano = span.endTimeUnixNano;
    memory.status = span.status;
    memory.attributes = memorySearchAttributes(r, p.query, bankId, tier);
    const search = child(
      sc,
      `e${result.seq}:search`,
      `retrieval ${dataSourceId(bankId, tier)}`,
      3,
      call.at,
      memory.spanId,
    );
    search.endTimeUnixNano = span.endTimeUnixNano;
    search.status = span.status;
    search.attributes = tierSearchAttributes(tier, r, p.query, bankId);
    placed.push({ seq: result.seq, item: memory }, { seq: result.seq, item: search });
  }
  return placed;
}

/** The missed-evidence probe as an internal span that ends when its event was logged. */
export function probeSpan(sc: SpanScope, ev: RunEventOf<"probe.finished">): OtlpSpan {
  const p = ev.payload;
  const span = child(sc, `e${ev.seq}`, "reflect.probe", 1, Math.max(0, ev.at - p.durationMs));
  span.endTimeUnixNano = sc.time(ev.at);
  span.attributes = attrs({
    // OpenInference: the probe judges a finished run's answer against the memories it read.
    "openinference.span.kind": "EVALUATOR",
    "input.value": p.queries.join("\n"),
    "output.value": JSON.stringify(p.hits.map((h) => ({ id: h.id, tier: h.tier, score: h.score, strong: h.strong }))),
    "output.mime_type": "application/json",
    "reflect.probe.queries": p.queries,
    "reflect.probe.skipped_queries": p.skippedQueries,
    "reflect.probe.strong": p.strong,
    "reflect.probe.duration_ms": p.durationMs,
    "reflect.probe.hit_ids": p.hits.map((h) => h.id),
    "reflect.probe.hit_tiers": p.hits.map((h) => h.tier),
    "reflect.probe.hit_best_ranks": p.hits.map((h) => String(h.bestRank)),
    "reflect.probe.hit_scores": p.hits.map((h) => String(h.score)),
    "reflect.probe.hit_queries": p.hits.map((h) => h.query),
    "reflect.probe.hit_strong": p.hits.map((h) => String(h.strong)),
    "reflect.probe.errors": p.errors.length > 0 ? p.errors : undefined,
  });
  span.status = p.errors.length > 0 ? { code: 2, message: p.errors.join("; ") } : { code: 1 };
  if (p.errors.length > 0) span.attributes.push(...attrs({ "error.type": "probe_search_failed" }));
  return span;
}

/** The run as the root invoke_agent span: what it was asked and answered, its totals, and how it ended. */
export function rootSpan(sc: SpanScope, walk: RunWalk, events: OtlpEvent[]): OtlpSpan {
  const s = walk.started?.payload;
  const f = walk.finished?.payload;
  /** A run that failed, or ended without finishing (interrupted): the root span is in error (status ERROR, `error.type`). */
  const errored = !!f && (f.status === "failed" || f.error != null);
  const root: OtlpSpan = {
    traceId: sc.traceId,
    spanId: sc.rootId,
    name: `invoke_agent ${AGENT_NAME}`,
    kind: 1,
    startTimeUnixNano: sc.time(walk.started?.at ?? 0),
    endTimeUnixNano: sc.time(walk.finished?.at ?? sc.lastAt),
    attributes: attrs({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": AGENT_NAME,
      "gen_ai.agent.id": s ? `${s.bankId}/${s.skill.name}` : undefined,
      "gen_ai.agent.description": s?.skill.mission,
      "gen_ai.provider.name": sc.provider,
      "gen_ai.request.model": sc.modelName,
      "gen_ai.conversation.id": sc.runId,
      // The run's token totals under reflect.* only: Phoenix adds a span's llm.token_count.* to
      // its children's and Langfuse reads gen_ai.usage.* / llm.token_count.* on any span, so
      // usage lives on the chat spans alone (docs/tracing.md#token-usage).
      "reflect.usage.input_tokens": f?.usage.inputTokens,
      "reflect.usage.output_tokens": f?.usage.outputTokens,
      "reflect.run.id": sc.runId,
      "reflect.bank.id": s?.bankId,
      "reflect.skill.name": s?.skill.name,
      "reflect.skill.version": s?.skill.version,
      "reflect.budget": s?.budget,
      "reflect.mode": s?.mode,
      "reflect.scope": s?.scope,
      "reflect.parent_run_id": s?.parentRunId,
      "reflect.status": f?.status ?? "running",
      "reflect.flags": f?.flags,
      "reflect.llm_calls": f?.llmCalls,
      "reflect.iterations": f?.iterations,
      "reflect.citations.memory_ids": f?.citations.memory_ids,
      "reflect.citations.observation_ids": f?.citations.observation_ids,
      "reflect.citations.mental_model_ids": f?.citations.mental_model_ids,
      "reflect.citations.dropped_ids": f?.dropped.map((d) => d.id),
      "openinference.span.kind": "AGENT",
      "session.id": sc.runId,
      "input.value": s?.question,
      "output.value": f?.answer,
    }),
    events,
    status: !f ? { code: 0 } : errored ? { code: 2, message: f.error?.message ?? f.status } : { code: 1 },
  };
  // OTel: `error.type` goes with an ERROR status, never with OK (docs/tracing.md).
  if (errored && f.error) {
    root.attributes.push(...attrs({ "error.type": errorType(f.error.phase), "reflect.error.phase": f.error.phase }));
  } else if (errored) {
    root.attributes.push(...attrs({ "error.type": f.status }));
  }
  return root;
}

/**
 * The run's failure as a low-cardinality `error.type`: the phase it failed in without its
 * iteration ("tool.result (iteration 2)" → "tool.result"), or `_OTHER` (the conventions' fallback).
 */
export function errorType(phase: string): string {
  const name = phase.replace(/\s*\(.*\)\s*$/, "").trim();
  return /^[a-z][a-z_]*(\.[a-zA-Z_]+)*$/.test(name) && name.length <= 40 ? name : "_OTHER";
}

const toolDefinition = (tool: string) =>
  Object.hasOwn(TOOL_DEFINITIONS, tool) ? TOOL_DEFINITIONS[tool as keyof typeof TOOL_DEFINITIONS] : undefined;

/** A verdict as an event on the root span. */
export function verdictEvent(ev: VerdictEvent): { name: string; record: Record<string, AttrValue> } {
  switch (ev.type) {
    case "freshness.check":
      return {
        name: "reflect.freshness_check",
        record: {
          "reflect.iteration": ev.iteration,
          "reflect.verdict": ev.payload.verdict,
          "reflect.why": ev.payload.why,
          "reflect.budget": ev.payload.budget,
          "reflect.mental_models.ids": ev.payload.models.map((m) => m.id),
          "reflect.mental_models.stale": ev.payload.models.map((m) => String(m.isStale)),
          "reflect.mental_models.reasons": ev.payload.models.map((m) => m.reason),
          "reflect.mental_models.usable": ev.payload.models.map((m) => String(m.usable)),
          "reflect.mental_models.versions": ev.payload.models.map((m) => (m.version === null ? "" : String(m.version))),
        },
      };
    case "steering.nudge":
    case "steering.halt":
      return {
        name: `reflect.${ev.type.replace(".", "_")}`,
        record: {
          "reflect.iteration": ev.iteration,
          "reflect.trigger": ev.payload.trigger,
          "reflect.signature": ev.payload.signature,
          "reflect.count": ev.payload.count,
          "reflect.since_iteration": ev.payload.sinceIteration,
          "reflect.text": ev.type === "steering.nudge" ? ev.payload.text : ev.payload.reason,
        },
      };
    case "steering.anchor":
      return {
        name: "reflect.steering_anchor",
        record: {
          "reflect.iteration": ev.iteration,
          "reflect.every": ev.payload.every,
          "reflect.text": ev.payload.text,
        },
      };
    case "guard.output":
      return {
        name: "reflect.guard_output",
        record: {
          "reflect.iteration": ev.iteration,
          "reflect.pattern": ev.payload.pattern,
          "reflect.action": ev.payload.action,
          "reflect.detail": ev.payload.detail,
          "reflect.format": ev.payload.format,
        },
      };
    case "guard.done_rejected":
      return {
        name: "reflect.guard_done_rejected",
        record: {
          "reflect.iteration": ev.iteration,
          "reflect.why": ev.payload.why,
          "reflect.text": ev.payload.message,
        },
      };
    case "guard.calls_dropped":
      return {
        name: "reflect.guard_calls_dropped",
        record: { "reflect.iteration": ev.iteration, "reflect.dropped_tools": ev.payload.calls.map((c) => c.name) },
      };
    case "llm.warning":
      return {
        name: "reflect.llm_warning",
        record: { "reflect.iteration": ev.iteration, "reflect.text": ev.payload.message },
      };
    case "llm.request_failed":
      return {
        name: "reflect.llm_request_failed",
        record: {
          "reflect.iteration": ev.iteration,
          "reflect.attempt": ev.payload.attempt,
          "reflect.kind": ev.payload.kind,
          "reflect.text": ev.payload.error,
        },
      };
    case "citations.validated":
      return {
        name: "reflect.citations_validated",
        record: {
          "reflect.citations.memory_ids": ev.payload.kept.memory_ids,
          "reflect.citations.observation_ids": ev.payload.kept.observation_ids,
          "reflect.citations.mental_model_ids": ev.payload.kept.mental_model_ids,
          "reflect.citations.dropped_ids": ev.payload.dropped.map((d) => d.id),
          "reflect.citations.dropped_reasons": ev.payload.dropped.map((d) => d.reason),
          "reflect.citations.dropped_tiers": ev.payload.dropped.map((d) => d.claimedTier),
          "reflect.ungrounded": ev.payload.ungrounded,
          ...(ev.payload.declined ? { "reflect.declined": true } : {}),
        },
      };
    default: {
      const unknown: never = ev;
      throw new Error(`unknown verdict ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * A tier search as a GenAI `retrieval` (gen_ai.retrieval.*) and an OpenInference RETRIEVER, each
 * document with its score. The stores rank rather than score, so the score is the reciprocal rank
 * the tier search reports as relevance (1.0 for the best hit, 0.5 for the next, …), always a double.
 */
function tierSearchAttributes(
  tier: Tier,
  result: EventPayload<"tool.result">,
  query: string | null,
  bankId: string,
): OtlpAttribute[] {
  const docs = result.ids[tier].map((id, rank) => ({
    id,
    score: 1 / (rank + 1),
    content: memoryTextFromContent(result.content, tier, id) ?? null,
  }));
  return attrs({
    "gen_ai.operation.name": "retrieval",
    "gen_ai.data_source.id": dataSourceId(bankId, tier),
    "gen_ai.retrieval.query.text": query,
    "gen_ai.retrieval.documents": JSON.stringify(docs.map(({ id, score }) => ({ id, score }))),
    "error.type": searchFailed(result) ? result.outcome : undefined,
    "reflect.bank.id": bankId,
    "reflect.tier": tier,
    "reflect.outcome": result.outcome,
    "reflect.duration_ms": result.durationMs,
    "reflect.observations.freshness": result.observationFreshness?.freshness,
    "reflect.observations.pending": result.observationFreshness?.pending,
    "reflect.mental_models.stale_ids": result.mentalModels?.filter((m) => m.isStale).map((m) => m.id),
    "openinference.span.kind": "RETRIEVER",
    "input.value": query,
    // Langfuse shows output.value as the observation's output (Phoenix reads the documents below).
    "output.value": JSON.stringify(docs),
    "output.mime_type": "application/json",
    ...Object.fromEntries(
      docs.flatMap((d, i) => [
        [`retrieval.documents.${i}.document.id`, d.id],
        [`retrieval.documents.${i}.document.score`, double(d.score)],
        [`retrieval.documents.${i}.document.content`, d.content ?? undefined],
      ]),
    ),
  });
}

const searchFailed = (result: EventPayload<"tool.result">) =>
  result.outcome === "error" || result.outcome === "policy_reject" || result.outcome === "unknown_tool";

/**
 * The GenAI conventions' memory span (`search_memory`): the store is the bank, never the tier;
 * the count is the records the search returned.
 */
function memorySearchAttributes(
  result: EventPayload<"tool.result">,
  query: string | null,
  bankId: string,
  tier: Tier,
): OtlpAttribute[] {
  return attrs({
    "gen_ai.operation.name": "search_memory",
    "gen_ai.memory.store.id": bankId,
    "gen_ai.memory.query.text": query,
    "gen_ai.memory.record.count": result.ids[tier].length,
    "error.type": searchFailed(result) ? result.outcome : undefined,
    "openinference.span.kind": "CHAIN",
    "input.value": query,
    "reflect.tier": tier,
  });
}

type Message = EventPayload<"llm.request">["messages"][number];

/** OpenInference's flattened message list, which Phoenix renders as a chat transcript. */
function flattenInputMessages(messages: Message[]): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  messages.forEach((m, i) => {
    const prefix = `llm.input_messages.${i}.message`;
    out[`${prefix}.role`] = m.role;
    if (m.content !== null) out[`${prefix}.content`] = m.content;
    if (m.role === "tool") out[`${prefix}.tool_call_id`] = m.tool_call_id;
    if (m.role === "assistant") {
      m.tool_calls?.forEach((c, j) => {
        out[`${prefix}.tool_calls.${j}.tool_call.id`] = c.id;
        out[`${prefix}.tool_calls.${j}.tool_call.function.name`] = c.function.name;
        out[`${prefix}.tool_calls.${j}.tool_call.function.arguments`] = c.function.arguments;
      });
    }
  });
  return out;
}
