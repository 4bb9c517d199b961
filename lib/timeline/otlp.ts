/**
 * A run's event log as one OTLP/JSON trace, following the OpenTelemetry GenAI semantic
 * conventions (invoke_agent → chat / execute_tool → search_memory → retrieval) with OpenInference span kinds
 * alongside so Phoenix renders it: a view over the run walk (walk.ts). Pure: ids come from a small
 * hash of the run id and event seq, so exporting the same run twice yields the same trace.
 */
import { type Tier, tierForTool } from "@/lib/reflect/domain";
import type { EventPayload, RunEvent, RunEventOf } from "@/lib/reflect/events";
import { TOOL_DEFINITIONS } from "@/lib/reflect/tools";
import { memoryTextFromContent } from "./memory-text";
import { type VerdictEvent, walkRun, walkSteps } from "./walk";

export type OtlpAnyValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: OtlpAnyValue[] } };

export interface OtlpAttribute {
  key: string;
  value: OtlpAnyValue;
}

export interface OtlpEvent {
  timeUnixNano: string;
  name: string;
  attributes: OtlpAttribute[];
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 INTERNAL, 3 CLIENT (OTLP SpanKind enum). */
  kind: 1 | 3;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpAttribute[];
  events: OtlpEvent[];
  /** 0 UNSET, 1 OK, 2 ERROR. */
  status: { code: 0 | 1 | 2; message?: string };
}

export interface OtlpTrace {
  resourceSpans: {
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: { scope: { name: string; version: string }; spans: OtlpSpan[] }[];
  }[];
}

export interface OtlpOptions {
  serviceName?: string;
  /** `telemetry.sdk.version`: the exporting app's version (the server passes package.json's). */
  sdkVersion?: string;
  /** Wall-clock epoch (ms) of the run's `at = 0`, e.g. the run's createdAt. */
  epochMs?: number;
}

export const OTLP_SCOPE = { name: "reflect-inspector", version: "1" } as const;
const AGENT_NAME = "reflect";

/** A tier of a bank is the data source a tier search reads (GenAI `gen_ai.data_source.id`). */
const dataSourceId = (bankId: string, tier: Tier) => `${bankId}/${tier}`;

// ---------- deterministic ids ----------

/** 32-bit FNV-1a over UTF-16 code units, seeded so several lanes give independent words. */
function fnv1a(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // xorshift finalizer: spreads short, similar inputs (seq 1 vs 2) across all bits.
  h ^= h << 13;
  h ^= h >>> 17;
  h ^= h << 5;
  return h >>> 0;
}

function hexId(text: string, words: number): string {
  let out = "";
  for (let i = 0; i < words; i++)
    out += fnv1a(text, i * 0x9e3779b1)
      .toString(16)
      .padStart(8, "0");
  // An all-zero id is invalid in OTLP.
  return /^0+$/.test(out) ? `${out.slice(0, -1)}1` : out;
}

export const traceIdOf = (runId: string) => hexId(`trace:${runId}`, 4);
const spanIdOf = (runId: string, key: string) => hexId(`span:${runId}:${key}`, 2);

// ---------- attributes ----------

/** A number always sent as a double (a score of 1 stays 1.0, not the int 1). */
interface Double {
  double: number;
}
const double = (n: number): Double => ({ double: n });

type AttrValue = string | number | boolean | Double | string[] | null | undefined;

function anyValue(v: string | number | boolean | Double): OtlpAnyValue {
  if (typeof v === "string") return { stringValue: v };
  if (typeof v === "boolean") return { boolValue: v };
  if (typeof v === "object") return { doubleValue: v.double };
  return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
}

/** Null and undefined are left out, as an SDK would not set them. */
function attrs(record: Record<string, AttrValue>): OtlpAttribute[] {
  const out: OtlpAttribute[] = [];
  for (const [key, v] of Object.entries(record)) {
    if (v === null || v === undefined) continue;
    out.push({ key, value: Array.isArray(v) ? { arrayValue: { values: v.map(anyValue) } } : anyValue(v) });
  }
  return out;
}

function nanos(epochMs: number, at: number): string {
  const ms = epochMs + at;
  const whole = Math.floor(ms);
  // BigInt keeps nanosecond precision that a double would lose at epoch scale.
  return (BigInt(whole) * BigInt(1_000_000) + BigInt(Math.round((ms - whole) * 1_000_000))).toString();
}

// ---------- the view over the run walk ----------

/** A span or root event with the seq of the event that opened it: the export keeps log order. */
interface Placed<T> {
  seq: number;
  item: T;
}

export function runToOtlp(events: readonly RunEvent[], options: OtlpOptions = {}): OtlpTrace {
  const walk = walkRun(events);
  const epochMs = options.epochMs ?? 0;
  const time = (at: number) => nanos(epochMs, at);
  const { started, finished, lastAt } = walk;
  const runId = walk.runId ?? "unknown";
  const traceId = traceIdOf(runId);
  const rootId = spanIdOf(runId, "root");
  const s = started?.payload;
  const modelName = s?.model.name ?? "unknown";
  const provider = s ? (s.model.kind === "openai" ? "openai" : `reflect.${s.model.kind}`) : "unknown";

  const spans: Placed<OtlpSpan>[] = [];
  const rootEvents: Placed<OtlpEvent>[] = [];

  const child = (key: string, name: string, kind: 1 | 3, at: number, parent = rootId): OtlpSpan => ({
    traceId,
    spanId: spanIdOf(runId, key),
    parentSpanId: parent,
    name,
    kind,
    startTimeUnixNano: time(at),
    endTimeUnixNano: time(at),
    attributes: [],
    events: [],
    status: { code: 0 },
  });

  /** A model call as a GenAI chat span; a request still waiting for its response closes at the last event. */
  function chatSpan(request: RunEventOf<"llm.request">, response: RunEventOf<"llm.response"> | null): OtlpSpan {
    const p = request.payload;
    const span = child(`e${request.seq}`, `chat ${modelName}`, 3, request.at);
    span.attributes = attrs({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": provider,
      "gen_ai.request.model": modelName,
      "gen_ai.conversation.id": runId,
      "reflect.iteration": request.iteration,
      "reflect.tool_choice": p.toolChoice.type === "forced" ? p.toolChoice.tool : "auto",
      "reflect.tools_offered": p.tools,
      "reflect.injections": p.injections.map((i) => i.kind),
      "openinference.span.kind": "LLM",
      "llm.model_name": modelName,
      "llm.provider": provider,
      "input.value": JSON.stringify(p.messages),
      "input.mime_type": "application/json",
      ...flattenInputMessages(p.messages),
    });
    if (!response) {
      span.endTimeUnixNano = time(Math.max(lastAt, request.at));
      return span;
    }
    const r = response.payload;
    span.endTimeUnixNano = time(Math.max(response.at, request.at));
    span.attributes.push(
      ...attrs({
        "gen_ai.response.model": modelName,
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
  function toolSpans(call: RunEventOf<"tool.call">, result: RunEventOf<"tool.result"> | null): Placed<OtlpSpan>[] {
    const p = call.payload;
    const span = child(`e${call.seq}`, `execute_tool ${p.tool}`, 1, call.at);
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
      "tool.parameters": toolDefinition(p.tool)
        ? JSON.stringify(toolDefinition(p.tool)?.function.parameters)
        : undefined,
      "input.value": JSON.stringify(p.args ?? null),
      "input.mime_type": "application/json",
    });
    const placed = [{ seq: call.seq, item: span }];
    if (!result) {
      span.endTimeUnixNano = time(Math.max(lastAt, call.at));
      return placed;
    }
    const r = result.payload;
    span.endTimeUnixNano = time(Math.max(result.at, call.at));
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
      const bankId = s?.bankId ?? "unknown";
      // The GenAI memory span (search_memory on the bank) wraps the retrieval span of the tier
      // search: each convention's attributes on the span the convention defines.
      const memory = child(`e${result.seq}:memory`, "search_memory", 3, call.at, span.spanId);
      memory.endTimeUnixNano = span.endTimeUnixNano;
      memory.status = span.status;
      memory.attributes = memorySearchAttributes(r, p.query, bankId, tier);
      const search = child(
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
  function probeSpan(ev: RunEventOf<"probe.finished">): OtlpSpan {
    const p = ev.payload;
    const span = child(`e${ev.seq}`, "reflect.probe", 1, Math.max(0, ev.at - p.durationMs));
    span.endTimeUnixNano = time(ev.at);
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

  for (const step of walkSteps(walk)) {
    switch (step.kind) {
      case "model":
        // A response logged without its request has no span to answer.
        if (step.request) spans.push({ seq: step.request.seq, item: chatSpan(step.request, step.response) });
        break;
      case "tool":
        // A result logged without its call has no span to close.
        if (step.call) spans.push(...toolSpans(step.call, step.result));
        break;
      case "verdict": {
        const { name, record } = verdictEvent(step.event);
        rootEvents.push({ seq: step.seq, item: { timeUnixNano: time(step.at), name, attributes: attrs(record) } });
        break;
      }
      case "probe":
        spans.push({ seq: step.seq, item: probeSpan(step.event) });
        break;
      default: {
        const unknown: never = step;
        throw new Error(`unknown step ${JSON.stringify(unknown)}`);
      }
    }
  }
  const inLogOrder = <T>(placed: Placed<T>[]) => placed.sort((x, y) => x.seq - y.seq).map((p) => p.item);

  const f = finished?.payload;
  const root: OtlpSpan = {
    traceId,
    spanId: rootId,
    name: `invoke_agent ${AGENT_NAME}`,
    kind: 1,
    startTimeUnixNano: time(started?.at ?? 0),
    endTimeUnixNano: time(finished?.at ?? lastAt),
    attributes: attrs({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": AGENT_NAME,
      "gen_ai.agent.id": s ? `${s.bankId}/${s.skill.name}` : undefined,
      "gen_ai.agent.description": s?.skill.mission,
      "gen_ai.provider.name": provider,
      "gen_ai.request.model": modelName,
      "gen_ai.conversation.id": runId,
      // The run's token totals under reflect.* only: Phoenix adds a span's llm.token_count.* to
      // its children's and Langfuse reads gen_ai.usage.* / llm.token_count.* on any span, so
      // usage lives on the chat spans alone (docs/tracing.md#token-usage).
      "reflect.usage.input_tokens": f?.usage.inputTokens,
      "reflect.usage.output_tokens": f?.usage.outputTokens,
      "reflect.run.id": runId,
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
      "session.id": runId,
      "input.value": s?.question,
      "output.value": f?.answer,
    }),
    events: inLogOrder(rootEvents),
    status: !f ? { code: 0 } : f.status === "failed" ? { code: 2, message: f.error?.message ?? "failed" } : { code: 1 },
  };
  if (f?.error) {
    root.attributes.push(...attrs({ "error.type": errorType(f.error.phase), "reflect.error.phase": f.error.phase }));
  } else if (f && f.status !== "done" && root.status.code === 2) {
    root.attributes.push(...attrs({ "error.type": f.status }));
  }

  return {
    resourceSpans: [
      {
        resource: {
          attributes: attrs({
            "service.name": options.serviceName ?? "reflect-inspector",
            "telemetry.sdk.name": "reflect-inspector",
            "telemetry.sdk.language": "nodejs",
            "telemetry.sdk.version": options.sdkVersion ?? "unknown",
          }),
        },
        scopeSpans: [{ scope: { ...OTLP_SCOPE }, spans: [root, ...inLogOrder(spans)] }],
      },
    ],
  };
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
function verdictEvent(ev: VerdictEvent): { name: string; record: Record<string, AttrValue> } {
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
