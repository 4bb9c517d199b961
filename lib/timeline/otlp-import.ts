/**
 * OTLP traces in, imported runs out (docs/tracing.md#receiving-traces): the reverse of otlp.ts. Pure.
 *
 * 1. `spansFromOtlpJson` reads an ExportTraceServiceRequest in the OTLP/JSON shape (the protobuf
 *    decoder in lib/server/http/otlp-decode.ts yields the same shape), keeping every span it can read and
 *    naming why it rejected the others (OTLP's partial success).
 * 2. `traceToRun` turns the spans of one trace into the engine's run events (lib/reflect/events.ts),
 *    so the one timeline fold, compare and export read an imported run like a native one. Spans map
 *    by the OpenTelemetry GenAI conventions, OpenInference span kinds, OpenLLMetry's attributes and
 *    Hindsight's reflect spans; a span that maps to nothing is a generic tool row, never dropped.
 *    Nothing a trace lacks is invented: no freshness verdict, steering or guard row unless the spans
 *    carry one; what the run header needs and the trace does not say is listed in its warnings.
 *
 * A tolerant reader: this project's own export (otlp.ts) round-trips through its `reflect.*`
 * attributes, and both its current and newer span details are accepted (usage on chat spans only,
 * retriever spans with `output.value`, `tool.parameters` as a schema, `error.type`).
 */
import {
  Budget,
  type Citations,
  citationCount,
  type DroppedCitation,
  emptyCitations,
  RUN_FLAGS,
  RunFlag,
  RunMode,
  RunStatus,
  Scope,
  type SkillSnapshot,
  TIER_INFO,
  TIER_REGISTRY,
  TIERS,
  type Tier,
  tierForTool,
} from "@/lib/reflect/domain";
import { type EventPayload, noTierIds, OutcomeClass, RunEvent, ToolName } from "@/lib/reflect/events";
import { ProbeResult } from "@/lib/reflect/request";

// ---------- the wire, read tolerantly ----------

export type AttrValue = string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue };
export type Attrs = Record<string, AttrValue>;

export interface ImportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** OTLP SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  /** Unix nanoseconds, as decimal strings (a double would lose them). */
  startNs: string;
  endNs: string;
  attributes: Attrs;
  events: { name: string; timeNs: string; attributes: Attrs }[];
  status: { code: 0 | 1 | 2; message: string | null };
  resource: Attrs;
  scope: { name: string; version: string | null };
}

export interface SpanBatch {
  spans: ImportedSpan[];
  /** Spans that could not be read, each with why (OTLP partial success). */
  rejected: number;
  reasons: string[];
}

/** Nesting of attribute values (arrays in key-value lists in arrays …) deeper than this is refused. */
export const MAX_VALUE_DEPTH = 8;
const MAX_REASONS = 10;
/** An imported run's question, at most: a native question's limit (docs/tracing.md#receiving-traces). */
export const MAX_QUESTION_CHARS = 4000;

const HEX_TRACE = /^[0-9a-f]{32}$/;
const HEX_SPAN = /^[0-9a-f]{16}$/;
const ZEROES = /^0+$/;
const MAX_U64 = (1n << 64n) - 1n;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

class SpanProblem extends Error {}

/** An id as OTLP/JSON writes it (hex), or as a protobuf JSON mapping would (base64 of the bytes). */
function readId(v: unknown, bytes: 8 | 16, what: string, optional: boolean): string | null {
  if (v === undefined || v === null || v === "") {
    if (optional) return null;
    throw new SpanProblem(`${what} is missing`);
  }
  if (typeof v !== "string") throw new SpanProblem(`${what} is not a string`);
  let hex = v.toLowerCase();
  const pattern = bytes === 16 ? HEX_TRACE : HEX_SPAN;
  if (!pattern.test(hex) && /^[A-Za-z0-9+/]+={0,2}$/.test(v)) {
    try {
      const binary = atob(v);
      if (binary.length === bytes) {
        hex = [...binary].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("");
      }
    } catch {
      // not base64 after all: judged as hex below
    }
  }
  if (!pattern.test(hex)) throw new SpanProblem(`${what} must be ${bytes * 2} hex digits`);
  if (ZEROES.test(hex)) {
    if (optional) return null;
    throw new SpanProblem(`${what} is all zeroes (invalid in OTLP)`);
  }
  return hex;
}

function readNanos(v: unknown, what: string): string {
  const text = typeof v === "number" && Number.isSafeInteger(v) ? String(v) : v;
  if (typeof text !== "string" || !/^\d{1,20}$/.test(text))
    throw new SpanProblem(`${what} is not unsigned nanoseconds`);
  const n = BigInt(text);
  if (n > MAX_U64) throw new SpanProblem(`${what} is out of range`);
  return n.toString();
}

/** An OTLP AnyValue as a plain value; unknown shapes read as null, too deep a nesting is refused. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what is replaced
const NOT_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A trace's string as valid text (SECURITY.md: stored text has no NUL and no lone surrogate): each
 * becomes U+FFFD. SQLite would cut a string at a NUL, and the page would not hydrate (HTML drops a
 * NUL and cannot encode a lone surrogate, so the server's text and the browser's differ).
 */
export const textOf = (s: string): string => s.replace(NOT_TEXT, "\ufffd");

/** Every string in a JSON value (keys included) through `textOf`. */
export function textOfDeep<T>(v: T): T {
  if (typeof v === "string") return textOf(v) as T;
  if (Array.isArray(v)) return v.map(textOfDeep) as T;
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [textOf(k), textOfDeep(x)])) as T;
  }
  return v;
}

function readValue(v: unknown, depth: number): AttrValue {
  if (depth > MAX_VALUE_DEPTH) throw new SpanProblem(`an attribute value is nested deeper than ${MAX_VALUE_DEPTH}`);
  if (!isRecord(v)) return null;
  if (typeof v.stringValue === "string") return textOf(v.stringValue);
  if (typeof v.boolValue === "boolean") return v.boolValue;
  if (v.intValue !== undefined) {
    const n = Number(v.intValue);
    return Number.isFinite(n) ? n : null;
  }
  if (v.doubleValue !== undefined) {
    const n = Number(v.doubleValue);
    return Number.isFinite(n) ? n : null;
  }
  if (isRecord(v.arrayValue)) {
    const values = Array.isArray(v.arrayValue.values) ? v.arrayValue.values : [];
    return values.map((x) => readValue(x, depth + 1));
  }
  if (isRecord(v.kvlistValue)) return readAttrs(v.kvlistValue.values, depth + 1);
  if (typeof v.bytesValue === "string") return v.bytesValue;
  return null;
}

function readAttrs(list: unknown, depth = 0): Attrs {
  const out: Attrs = {};
  if (!Array.isArray(list)) return out;
  for (const kv of list) {
    if (!isRecord(kv) || typeof kv.key !== "string") continue;
    // A key named like an Object.prototype member must stay data.
    Object.defineProperty(out, textOf(kv.key), {
      value: readValue(kv.value, depth),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function readStatus(v: unknown): ImportedSpan["status"] {
  if (!isRecord(v)) return { code: 0, message: null };
  const raw = v.code;
  const code = raw === 1 || raw === "STATUS_CODE_OK" ? 1 : raw === 2 || raw === "STATUS_CODE_ERROR" ? 2 : (0 as const);
  return { code, message: typeof v.message === "string" && v.message !== "" ? textOf(v.message) : null };
}

const SPAN_KINDS: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};

function readSpan(s: unknown, resource: Attrs, scope: ImportedSpan["scope"]): ImportedSpan {
  if (!isRecord(s)) throw new SpanProblem("is not an object");
  const traceId = readId(s.traceId, 16, "traceId", false) as string;
  const spanId = readId(s.spanId, 8, "spanId", false) as string;
  const parentSpanId = readId(s.parentSpanId, 8, "parentSpanId", true);
  if (typeof s.name !== "string" || s.name.trim() === "") throw new SpanProblem("has no name");
  const startNs = readNanos(s.startTimeUnixNano, "startTimeUnixNano");
  const endNs = readNanos(s.endTimeUnixNano, "endTimeUnixNano");
  if (BigInt(endNs) < BigInt(startNs)) throw new SpanProblem("ends before it starts");
  const kind = typeof s.kind === "number" ? s.kind : typeof s.kind === "string" ? (SPAN_KINDS[s.kind] ?? 0) : 0;
  const events = (Array.isArray(s.events) ? s.events : []).flatMap((e) => {
    if (!isRecord(e) || typeof e.name !== "string") return [];
    let timeNs: string;
    try {
      timeNs = readNanos(e.timeUnixNano, "event time");
    } catch {
      timeNs = startNs;
    }
    return [{ name: textOf(e.name), timeNs, attributes: readAttrs(e.attributes) }];
  });
  return {
    traceId,
    spanId,
    parentSpanId,
    name: textOf(s.name),
    kind,
    startNs,
    endNs,
    attributes: readAttrs(s.attributes),
    events,
    status: readStatus(s.status),
    resource,
    scope,
  };
}

/**
 * The spans of an ExportTraceServiceRequest (OTLP/JSON shape). Throws only when the body is not
 * such a request at all; a span it cannot read is counted in `rejected` with its reason.
 */
export function spansFromOtlpJson(body: unknown): SpanBatch {
  if (!isRecord(body)) throw new Error("the body is not an ExportTraceServiceRequest object");
  const resourceSpans = body.resourceSpans ?? [];
  if (!Array.isArray(resourceSpans)) throw new Error("resourceSpans is not a list");
  const batch: SpanBatch = { spans: [], rejected: 0, reasons: [] };
  resourceSpans.forEach((rs, i) => {
    if (!isRecord(rs)) return;
    const resource = readAttrs(isRecord(rs.resource) ? rs.resource.attributes : undefined);
    const scopeSpans = Array.isArray(rs.scopeSpans) ? rs.scopeSpans : [];
    scopeSpans.forEach((ss, j) => {
      if (!isRecord(ss)) return;
      const sc = isRecord(ss.scope) ? ss.scope : {};
      const scope = {
        name: typeof sc.name === "string" ? textOf(sc.name) : "",
        version: typeof sc.version === "string" ? textOf(sc.version) : null,
      };
      const spans = Array.isArray(ss.spans) ? ss.spans : [];
      spans.forEach((s, k) => {
        try {
          batch.spans.push(readSpan(s, resource, scope));
        } catch (err) {
          if (!(err instanceof SpanProblem)) throw err;
          batch.rejected++;
          if (batch.reasons.length < MAX_REASONS) {
            const name = isRecord(s) && typeof s.name === "string" ? ` "${s.name.slice(0, 80)}"` : "";
            batch.reasons.push(`resourceSpans[${i}].scopeSpans[${j}].spans[${k}]${name}: ${err.message}`);
          }
        }
      });
    });
  });
  return batch;
}

/** Spans grouped by trace, in the order each trace first appears. */
export function groupByTrace(spans: readonly ImportedSpan[]): Map<string, ImportedSpan[]> {
  const traces = new Map<string, ImportedSpan[]>();
  for (const s of spans) {
    const list = traces.get(s.traceId);
    if (list) list.push(s);
    else traces.set(s.traceId, [s]);
  }
  return traces;
}

// ---------- attribute reading ----------

function str(a: Attrs, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = Object.hasOwn(a, k) ? a[k] : undefined;
    if (typeof v === "string") return v;
  }
  return undefined;
}

function num(a: Attrs, ...keys: string[]): number | undefined {
  for (const k of keys) {
    const v = Object.hasOwn(a, k) ? a[k] : undefined;
    if (typeof v === "number" && Number.isFinite(v)) return v;
    if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  }
  return undefined;
}

function bool(a: Attrs, key: string): boolean | undefined {
  const v = Object.hasOwn(a, key) ? a[key] : undefined;
  if (typeof v === "boolean") return v;
  if (v === "true" || v === "false") return v === "true";
  return undefined;
}

/** A string list: an array attribute or a JSON array in a string (as Python SDKs often send). */
function list(a: Attrs, key: string): string[] | undefined {
  const v = Object.hasOwn(a, key) ? a[key] : undefined;
  const arr = Array.isArray(v) ? v : typeof v === "string" && v.startsWith("[") ? parseJson(v) : undefined;
  return Array.isArray(arr) ? arr.map((x) => (typeof x === "string" ? x : JSON.stringify(x))) : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A JSON-ish attribute as a value: parsed when it is JSON text, as is otherwise. */
function jsonValue(v: AttrValue | undefined): unknown {
  if (typeof v !== "string") return v ?? undefined;
  const parsed = parseJson(v);
  return parsed === undefined ? v : parsed;
}

const asText = (v: unknown): string =>
  typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v);

/** `prefix.{i}.rest` attributes (OpenInference and OpenLLMetry flatten lists this way), by index. */
function indexed(a: Attrs, prefix: string): Map<number, Attrs> {
  const out = new Map<number, Attrs>();
  const head = `${prefix}.`;
  for (const [key, value] of Object.entries(a)) {
    if (!key.startsWith(head)) continue;
    const rest = key.slice(head.length);
    const dot = rest.indexOf(".");
    const i = Number(dot < 0 ? rest : rest.slice(0, dot));
    if (!Number.isInteger(i) || i < 0 || dot < 0) continue;
    const item = out.get(i) ?? (Object.create(null) as Attrs);
    item[rest.slice(dot + 1)] = value;
    out.set(i, item);
  }
  return new Map([...out].sort((x, y) => x[0] - y[0]));
}

// ---------- what each span is ----------

type Role = "agent" | "chat" | "tool" | "retrieval" | "other";

const HINDSIGHT_TOOL_SPAN = "hindsight.reflect_tool_exec.";

function roleOf(s: ImportedSpan): Role {
  const a = s.attributes;
  if (s.name.startsWith(HINDSIGHT_TOOL_SPAN) || str(a, "hindsight.tool.name")) return "tool";
  const op = str(a, "gen_ai.operation.name")?.toLowerCase();
  const oi = str(a, "openinference.span.kind")?.toUpperCase();
  const tl = str(a, "traceloop.span.kind")?.toLowerCase();
  if (op === "invoke_agent" || op === "create_agent" || oi === "AGENT" || tl === "agent") return "agent";
  if (op === "chat" || op === "text_completion" || op === "generate_content" || oi === "LLM") return "chat";
  const llmType = str(a, "llm.request.type")?.toLowerCase();
  if (llmType === "chat" || llmType === "completion") return "chat";
  if (op === "execute_tool" || oi === "TOOL" || tl === "tool") return "tool";
  if (op === "retrieval" || op === "search_memory" || oi === "RETRIEVER") return "retrieval";
  return "other";
}

/** The tier a tool, retriever or data source name points at; null for anything else. */
export function tierFromName(name: string | undefined): Tier | null {
  if (!name) return null;
  const direct = tierForTool(name);
  if (direct) return direct;
  const lower = name.toLowerCase();
  const last = lower.split("/").pop() ?? lower;
  const byId = TIERS.find((t) => t === last);
  if (byId) return byId;
  if (/mental[_ .-]?model/.test(lower)) return "mental_models";
  if (/observation/.test(lower)) return "observations";
  if (/raw[_ .-]?fact|(^|[^a-z])recall([^a-z]|$)/.test(lower)) return "raw_facts";
  return null;
}

const TIER_SET = new Set<string>(TIERS);
const asTier = (v: string | undefined): Tier | null => (v && TIER_SET.has(v) ? (v as Tier) : null);

// ---------- messages ----------

type Message = EventPayload<"llm.request">["messages"][number];
type ToolCall = EventPayload<"llm.response">["toolCalls"][number];

function roleName(r: unknown): Message["role"] | null {
  const role = typeof r === "string" ? r.toLowerCase() : "";
  if (role === "system" || role === "developer") return "system";
  if (role === "user" || role === "human") return "user";
  if (role === "assistant" || role === "model" || role === "ai") return "assistant";
  if (role === "tool" || role === "function" || role === "tool_result") return "tool";
  return null;
}

function message(
  role: Message["role"],
  content: string | null,
  toolCalls: ToolCall[],
  toolCallId: string | null,
): Message {
  if (role === "assistant") {
    return {
      role,
      content,
      ...(toolCalls.length > 0
        ? {
            tool_calls: toolCalls.map((c) => ({
              id: c.id,
              type: "function" as const,
              function: { name: c.name, arguments: c.arguments },
            })),
          }
        : {}),
    };
  }
  if (role === "tool") return { role, tool_call_id: toolCallId ?? "", content: content ?? "" };
  return { role, content: content ?? "" };
}

/** OpenInference `…message.tool_calls.{j}.tool_call.*`. */
function oiToolCalls(m: Attrs): ToolCall[] {
  return [...indexed(m, "message.tool_calls").values()].map((c, j) => {
    const name = str(c, "tool_call.function.name") ?? "unknown";
    return {
      id: str(c, "tool_call.id") ?? `call_${j}`,
      name,
      rawName: name,
      arguments: asText(jsonValue(c["tool_call.function.arguments"] ?? "")),
    };
  });
}

/** GenAI `gen_ai.input.messages` / `gen_ai.output.messages`: `[{role, parts: [...]}]`. */
function genAiMessages(v: unknown): {
  role: Message["role"];
  content: string | null;
  toolCalls: ToolCall[];
  toolCallId: string | null;
  finish?: string;
}[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((m) => {
    if (!isRecord(m)) return [];
    const role = roleName(m.role);
    if (!role) return [];
    const parts = Array.isArray(m.parts) ? m.parts.filter(isRecord) : [];
    const texts: string[] = [];
    const toolCalls: ToolCall[] = [];
    let toolCallId: string | null = null;
    for (const p of parts) {
      if (p.type === "text" || p.type === "reasoning") texts.push(asText(p.content));
      else if (p.type === "tool_call") {
        const name = typeof p.name === "string" ? p.name : "unknown";
        toolCalls.push({
          id: typeof p.id === "string" ? p.id : `call_${toolCalls.length}`,
          name,
          rawName: name,
          arguments: asText(p.arguments ?? {}),
        });
      } else if (p.type === "tool_call_response") {
        toolCallId = typeof p.id === "string" ? p.id : null;
        texts.push(asText(p.response ?? p.result));
      }
    }
    if (parts.length === 0 && m.content !== undefined) texts.push(asText(m.content));
    const isTool = toolCallId !== null && role !== "assistant";
    return [
      {
        role: isTool ? ("tool" as const) : role,
        content: texts.length > 0 ? texts.join("\n") : null,
        toolCalls,
        toolCallId,
        finish: typeof m.finish_reason === "string" ? m.finish_reason : undefined,
      },
    ];
  });
}

/** A list that is exactly the engine's message shape (this project's own `input.value`). */
function engineMessages(v: unknown): Message[] | null {
  if (!Array.isArray(v) || v.length === 0) return null;
  const probe = RunEvent.safeParse({
    runId: "x",
    seq: 0,
    at: 0,
    type: "llm.request",
    payload: { messages: v, tools: [], toolChoice: { type: "auto" }, injections: [] },
  });
  return probe.success && probe.data.type === "llm.request" ? probe.data.payload.messages : null;
}

function requestMessages(a: Attrs): Message[] {
  const own = engineMessages(jsonValue(a["input.value"]));
  if (own) return own;
  const oi = indexed(a, "llm.input_messages");
  if (oi.size > 0) {
    return [...oi.values()].flatMap((m) => {
      const role = roleName(m["message.role"]);
      if (!role) return [];
      const content = Object.hasOwn(m, "message.content") ? asText(m["message.content"]) : null;
      return [message(role, content, oiToolCalls(m), str(m, "message.tool_call_id") ?? null)];
    });
  }
  const genAi = genAiMessages(jsonValue(a["gen_ai.input.messages"]));
  const system = jsonValue(a["gen_ai.system_instructions"]);
  const systemText = Array.isArray(system)
    ? system.map((p) => (isRecord(p) ? asText(p.content) : asText(p))).join("\n")
    : undefined;
  if (genAi.length > 0) {
    return [
      ...(systemText ? [message("system", systemText, [], null)] : []),
      ...genAi.map((m) => message(m.role, m.content, m.toolCalls, m.toolCallId)),
    ];
  }
  // OpenLLMetry's flattened prompt.
  const prompt = indexed(a, "gen_ai.prompt");
  if (prompt.size > 0) {
    return [...prompt.values()].flatMap((m) => {
      const role = roleName(m.role);
      return role ? [message(role, asText(m.content), [], str(m, "tool_call_id") ?? null)] : [];
    });
  }
  const input = a["input.value"];
  return typeof input === "string" && input !== "" ? [message("user", input, [], null)] : [];
}

interface ResponseRead {
  text: string | null;
  toolCalls: ToolCall[];
  finish: string | null;
}

function responseOf(a: Attrs): ResponseRead {
  const own = jsonValue(a["output.value"]);
  if (isRecord(own) && "tool_calls" in own && Array.isArray(own.tool_calls)) {
    const toolCalls = own.tool_calls.filter(isRecord).map((c, j) => ({
      id: typeof c.id === "string" ? c.id : `call_${j}`,
      name: typeof c.name === "string" ? c.name : "unknown",
      rawName: typeof c.rawName === "string" ? c.rawName : typeof c.name === "string" ? c.name : "unknown",
      arguments: asText(c.arguments),
    }));
    return { text: typeof own.text === "string" ? own.text : null, toolCalls, finish: null };
  }
  const oi = indexed(a, "llm.output_messages").get(0);
  if (oi) {
    const content = Object.hasOwn(oi, "message.content") ? asText(oi["message.content"]) : null;
    return { text: content, toolCalls: oiToolCalls(oi), finish: null };
  }
  const genAi = genAiMessages(jsonValue(a["gen_ai.output.messages"]));
  if (genAi.length > 0) {
    const m = genAi[genAi.length - 1] as (typeof genAi)[number];
    return { text: m.content, toolCalls: m.toolCalls, finish: m.finish ?? null };
  }
  const completion = indexed(a, "gen_ai.completion").get(0);
  if (completion) {
    const calls = [...indexed(completion, "tool_calls").values()].map((c, j) => {
      const name = str(c, "name") ?? "unknown";
      return { id: str(c, "id") ?? `call_${j}`, name, rawName: name, arguments: asText(jsonValue(c.arguments ?? "")) };
    });
    return {
      text: Object.hasOwn(completion, "content") ? asText(completion.content) : null,
      toolCalls: calls,
      finish: str(completion, "finish_reason") ?? null,
    };
  }
  const out = a["output.value"];
  return { text: typeof out === "string" ? out : null, toolCalls: [], finish: null };
}

/**
 * A model call's attributes with those its events carry: some instrumentations (Hindsight's among
 * them) put `gen_ai.input.messages` / `gen_ai.output.messages` on a
 * `gen_ai.client.inference.operation.details` event instead of the span. The span's own win.
 */
function chatAttributes(s: ImportedSpan): Attrs {
  const fromEvents = s.events.filter((e) => e.name === "gen_ai.client.inference.operation.details");
  if (fromEvents.length === 0) return s.attributes;
  let merged: Attrs = {};
  // Spread defines own properties: a `__proto__` key stays data.
  for (const e of fromEvents) merged = { ...merged, ...e.attributes };
  return { ...merged, ...s.attributes };
}

/** Tool calls logged as `gen_ai.tool_call.{i}` events (`tool.name`, `tool.id`, `tool.arguments`), as Hindsight does. */
function toolCallEvents(s: ImportedSpan): ToolCall[] {
  return s.events
    .filter((e) => /^gen_ai\.tool_call\.\d+$/.test(e.name))
    .map((e, j) => {
      const name = str(e.attributes, "tool.name") ?? "unknown";
      return {
        id: str(e.attributes, "tool.id") || `call_${j}`,
        name,
        rawName: name,
        arguments: asText(jsonValue(e.attributes["tool.arguments"] ?? "")),
      };
    });
}

// ---------- the run ----------

export interface ImportedRunSource {
  serviceName: string | null;
  sdkName: string | null;
  sdkLanguage: string | null;
  sdkVersion: string | null;
  scope: string | null;
  traceId: string;
  /** Spans the run was built from. */
  spans: number;
}

export interface ImportedRun {
  runId: string;
  bankId: string;
  question: string;
  /** Wall-clock ms of `at = 0` (the run's root span start). */
  epochMs: number;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  skill: SkillSnapshot;
  budget: Budget;
  mode: RunMode;
  scope: string;
  modelName: string;
  source: ImportedRunSource;
  events: RunEvent[];
  result: EventPayload<"run.finished">;
}

/** The run id of an imported trace: stable, so a resent or later batch of the trace lands on the same run. */
export const importedRunId = (traceId: string) => `otlp_${traceId}`;

/** A decimal nanosecond string as a sort key. */
const ns = (s: string) => BigInt(s);

interface Item {
  time: bigint;
  /** At equal times: results and responses (0), verdicts (1), calls and requests (2), a zero-length span's end (3). */
  phase: number;
  order: number;
  event: Omit<RunEvent, "seq" | "runId" | "at"> & { iteration?: number };
}

const DONE = "done";

function doneLists(args: unknown): Partial<Citations> {
  if (!isRecord(args)) return {};
  const out: Partial<Citations> = {};
  for (const t of TIER_REGISTRY) {
    const v = args[t.citationKey];
    if (Array.isArray(v)) out[t.citationKey] = v.filter((x): x is string => typeof x === "string");
  }
  return out;
}

/** Documents a retrieval span lists: GenAI's JSON list or OpenInference's flattened one. */
function documentsOf(a: Attrs): { id: string; content: string | null }[] | null {
  const oi = indexed(a, "retrieval.documents");
  if (oi.size > 0) {
    return [...oi.values()].flatMap((d) => {
      const id = str(d, "document.id") ?? (typeof d["document.id"] === "number" ? String(d["document.id"]) : undefined);
      return id === undefined ? [] : [{ id, content: str(d, "document.content") ?? null }];
    });
  }
  const genAi = jsonValue(a["gen_ai.retrieval.documents"]);
  if (Array.isArray(genAi)) {
    return genAi.flatMap((d) =>
      isRecord(d) && (typeof d.id === "string" || typeof d.id === "number")
        ? [{ id: String(d.id), content: typeof d.content === "string" ? d.content : null }]
        : [],
    );
  }
  return null;
}

/** Hits in the engine's result shape, so the timeline can show each memory's text. */
function contentFor(tier: Tier, docs: { id: string; content: string | null }[]): string {
  const info = TIER_INFO[tier];
  return JSON.stringify({
    [info.resultKey]: docs.map((d) => (d.content === null ? { id: d.id } : { id: d.id, [info.textKey]: d.content })),
  });
}

/** A count as the event schema takes it: a whole number in [min, 1e12]. */
const clampInt = (n: number, min: number) => Math.min(1e12, Math.max(min, Math.round(n)));

const durationMs = (s: ImportedSpan) => Number(ns(s.endNs) - ns(s.startNs)) / 1e6;

function isOwnExport(s: ImportedSpan): boolean {
  return s.scope.name === "reflect-inspector" || str(s.resource, "telemetry.sdk.name") === "reflect-inspector";
}

/**
 * One trace's spans as an imported run. `spans` must all share a trace id; none is dropped: a span
 * that maps to nothing becomes a generic tool row named after it.
 */
export function traceToRun(spans: readonly ImportedSpan[]): ImportedRun {
  const first = spans[0];
  if (!first) throw new Error("a trace without spans");
  const traceId = first.traceId;
  const runId = importedRunId(traceId);
  // Time order, document order on ties (an exporter writes a trace in the order it logged it).
  // Start times parsed once: BigInt work inside the comparator was most of a 5k-span import.
  const sorted = spans
    .map((s, i) => ({ s, i, t: ns(s.startNs) }))
    .sort((x, y) => (x.t < y.t ? -1 : x.t > y.t ? 1 : x.i - y.i))
    .map((x) => x.s);
  const byId = new Map(sorted.map((s) => [s.spanId, s]));
  const roles = new Map(sorted.map((s) => [s.spanId, roleOf(s)]));
  const roots = sorted.filter((s) => !s.parentSpanId || !byId.has(s.parentSpanId));
  const root = sorted.find((s) => roles.get(s.spanId) === "agent") ?? roots[0] ?? (sorted[0] as ImportedSpan);
  const ra = root.attributes;
  const rootIsAgent = roles.get(root.spanId) === "agent";
  // A batch without the trace's root (it ends last, so it often comes last) may leave a model call
  // or a tool as the earliest span: it is still a step of the run, not the run itself.
  const rootIsRun = rootIsAgent || roles.get(root.spanId) === "other";
  // `at = 0` is the earliest span's start (the root's, in any well-formed trace).
  const epoch = ns((sorted[0] as ImportedSpan).startNs);
  const at = (t: string) => Math.max(0, Number(ns(t) - epoch) / 1e6);
  const own = isOwnExport(root);

  const chats = sorted.filter((s) => (s !== root || !rootIsRun) && roles.get(s.spanId) === "chat");
  const chatIteration = new Map<string, number>();
  chats.forEach((c, i) => {
    // Only this app's own export numbers its iterations; elsewhere each model call starts one.
    chatIteration.set(c.spanId, own ? (num(c.attributes, "reflect.iteration") ?? i) : i);
  });
  /**
   * The iteration of a non-chat span: its own `reflect.iteration`, else the last model call that
   * started before it (`chatCursor` walks the model calls as the spans are visited in start order).
   */
  let chatCursor = 0;
  let currentIteration = 0;
  function iterationOf(s: ImportedSpan): number | undefined {
    if (own) return num(s.attributes, "reflect.iteration");
    const start = ns(s.startNs);
    while (chatCursor < chats.length && ns((chats[chatCursor] as ImportedSpan).startNs) <= start) {
      currentIteration = chatIteration.get((chats[chatCursor] as ImportedSpan).spanId) ?? currentIteration;
      chatCursor++;
    }
    return currentIteration;
  }

  const items: Item[] = [];
  let order = 0;
  const push = (time: string, phase: number, event: Item["event"]) => {
    items.push({ time: ns(time), phase, order: order++, event });
  };
  const endPhase = (s: ImportedSpan) => (s.startNs === s.endNs ? 3 : 0);

  // Retrieval spans under a tool span are that tool's result.
  const retrievalOf = new Map<string, ImportedSpan>();
  for (const s of sorted) {
    if (roles.get(s.spanId) !== "retrieval" || !s.parentSpanId) continue;
    const parent = byId.get(s.parentSpanId);
    if (parent && roles.get(parent.spanId) === "tool" && !retrievalOf.has(parent.spanId)) {
      retrievalOf.set(parent.spanId, s);
    }
  }
  // A memory span (`search_memory`) wrapping the tier's retrieval span: the inner span holds the
  // documents and is the result; the wrapper is absorbed with it.
  const wrappers = new Set<string>();
  for (const s of sorted) {
    if (roles.get(s.spanId) !== "retrieval" || !s.parentSpanId) continue;
    const wrapper = byId.get(s.parentSpanId);
    if (!wrapper?.parentSpanId || roles.get(wrapper.spanId) !== "retrieval") continue;
    if (retrievalOf.get(wrapper.parentSpanId) === wrapper) {
      retrievalOf.set(wrapper.parentSpanId, s);
      wrappers.add(wrapper.spanId);
    }
  }
  const absorbed = new Set([...[...retrievalOf.values()].map((s) => s.spanId), ...wrappers]);

  let doneArgs: unknown;
  let lastText: string | null = null;
  let tokensIn = 0;
  let tokensOut = 0;
  const tiersSeen = new Set<Tier>();
  let modelName = str(ra, "gen_ai.request.model", "llm.model_name");
  let probe: EventPayload<"probe.finished"> | null = null;

  for (const s of sorted) {
    if ((s === root && rootIsRun) || absorbed.has(s.spanId)) continue;
    const role = roles.get(s.spanId);
    const a = role === "chat" ? chatAttributes(s) : s.attributes;
    if (role === "chat") {
      const iteration = chatIteration.get(s.spanId);
      modelName ??= str(a, "gen_ai.request.model", "gen_ai.response.model", "llm.model_name");
      const offered = (list(a, "reflect.tools_offered") ?? []).filter((t) => ToolName.safeParse(t).success);
      const choice = str(a, "reflect.tool_choice");
      const forced = choice && choice !== "auto" && ToolName.safeParse(choice).success ? choice : null;
      push(s.startNs, 2, {
        type: "llm.request",
        iteration,
        payload: {
          messages: requestMessages(a),
          tools: offered as EventPayload<"llm.request">["tools"],
          toolChoice: forced ? { type: "forced", tool: forced as ToolName } : { type: "auto" },
          injections: [],
        },
      });
      // This project's export leaves a request still waiting for its response without status or output.
      const answered = !own || s.status.code !== 0 || a["output.value"] !== undefined;
      if (!answered) continue;
      const r = responseOf(a);
      if (r.toolCalls.length === 0) r.toolCalls = toolCallEvents(s);
      const tIn = num(a, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt") ?? 0;
      const tOut =
        num(a, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion") ?? 0;
      tokensIn += tIn;
      tokensOut += tOut;
      if (r.text) lastText = r.text;
      const reasoning = str(a, "reflect.reasoning");
      const reasoningChars = num(a, "reflect.reasoning_chars");
      const reasoningTokens = num(a, "gen_ai.usage.reasoning.output_tokens");
      push(s.endNs, endPhase(s), {
        type: "llm.response",
        iteration,
        payload: {
          text: r.text,
          toolCalls: r.toolCalls,
          finishReason:
            list(a, "gen_ai.response.finish_reasons")?.[0] ?? r.finish ?? (s.status.code === 2 ? "error" : "unknown"),
          tokensIn: clampInt(tIn, 0),
          tokensOut: clampInt(tOut, 0),
          latencyMs: Math.max(0, num(a, "reflect.latency_ms") ?? durationMs(s)),
          replayed: bool(a, "reflect.replayed") ?? false,
          ...(reasoning !== undefined ? { reasoning } : {}),
          ...(reasoningChars !== undefined ? { reasoningChars: Math.max(0, Math.round(reasoningChars)) } : {}),
          ...(reasoningTokens !== undefined ? { reasoningTokens: Math.max(0, Math.round(reasoningTokens)) } : {}),
        },
      });
      continue;
    }
    if (s.name === "reflect.probe" && own) {
      const p = probeOf(a, s);
      if (p) {
        probe = p;
        push(s.endNs, 1, { type: "probe.finished", payload: p });
        continue;
      }
    }
    // A tool call, a retrieval of its own, or anything else: a row.
    const child = retrievalOf.get(s.spanId);
    const isRetrieval = role === "retrieval";
    const tool =
      role === "tool"
        ? (str(a, "hindsight.tool.name", "gen_ai.tool.name", "tool.name") ??
          (s.name.startsWith(HINDSIGHT_TOOL_SPAN) ? s.name.slice(HINDSIGHT_TOOL_SPAN.length) : undefined) ??
          s.name.replace(/^execute_tool /, ""))
        : isRetrieval
          ? (str(a, "gen_ai.data_source.id", "reflect.tier") ?? s.name.replace(/^retrieval /, ""))
          : s.name;
    const ca = child?.attributes ?? {};
    const tier =
      asTier(str(a, "reflect.tier")) ??
      asTier(str(ca, "reflect.tier")) ??
      (role === "other"
        ? null
        : (tierFromName(tool) ?? tierFromName(str(ca, "gen_ai.data_source.id")) ?? tierFromName(s.name)));
    if (tier) tiersSeen.add(tier);
    const rawArgs =
      role === "other"
        ? a
        : (a["gen_ai.tool.call.arguments"] ?? a["hindsight.tool.arguments"] ?? a["input.value"] ?? a["tool.arguments"]);
    const args = role === "other" ? rawArgs : (jsonValue(rawArgs as AttrValue | undefined) ?? null);
    if (tool === DONE) doneArgs = args;
    const argQuery = isRecord(args) && typeof args.query === "string" ? args.query : null;
    const retrievalQuery =
      str(ca, "gen_ai.retrieval.query.text", "gen_ai.memory.query.text") ??
      (child ? str(ca, "input.value") : undefined);
    const query = own
      ? (retrievalQuery ?? (tier ? argQuery : null))
      : isRetrieval
        ? (str(a, "gen_ai.retrieval.query.text", "gen_ai.memory.query.text", "input.value") ?? null)
        : (argQuery ?? retrievalQuery ?? null);
    const reason = str(a, "reflect.reason") ?? (isRecord(args) && typeof args.reason === "string" ? args.reason : null);
    const callId = str(a, "gen_ai.tool.call.id", "hindsight.tool.id", "tool_call.id") ?? `span_${s.spanId}`;
    const iteration = iterationOf(s);
    push(s.startNs, 2, {
      type: "tool.call",
      iteration,
      payload: { callId, tool, tier, query, reason, args: args ?? null },
    });
    const resolved = !own || s.status.code !== 0 || a["reflect.outcome"] !== undefined;
    if (!resolved) continue;
    const docs = documentsOf(ca) ?? documentsOf(a);
    const ids = noTierIds();
    let content = asText(
      jsonValue(a["gen_ai.tool.call.result"] ?? a["output.value"] ?? (child ? ca["output.value"] : undefined)),
    );
    if (role === "other" && content === "") content = "";
    if (tier && docs) {
      ids[tier] = docs.map((d) => d.id);
      if (content === "" && docs.length > 0) content = contentFor(tier, docs);
    } else if (tier && content) {
      const parsed = parseJson(content);
      const hits = isRecord(parsed) ? parsed[TIER_INFO[tier].resultKey] : undefined;
      if (Array.isArray(hits)) {
        ids[tier] = hits.flatMap((h) => (isRecord(h) && typeof h.id === "string" ? [h.id] : []));
      }
    }
    const count = ids[tier ?? "raw_facts"].length;
    const failed = s.status.code === 2;
    const outcomeAttr = OutcomeClass.safeParse(str(a, "reflect.outcome")).data;
    const outcome: OutcomeClass =
      outcomeAttr ?? (failed ? "error" : tier && docs !== null && count === 0 ? "empty" : "success");
    const errorText = failed ? (s.status.message ?? str(a, "error.type") ?? "error") : null;
    const chars = Math.round(num(a, "reflect.result.chars") ?? content.length);
    const cap = Math.round(num(a, "reflect.result.cap") ?? Math.max(1, content.length));
    push(s.endNs, endPhase(s), {
      type: "tool.result",
      iteration,
      payload: {
        callId,
        tool,
        tier,
        outcome,
        ids,
        count: clampInt(num(a, "reflect.result.count") ?? count, 0),
        chars: clampInt(chars, 0),
        cap: clampInt(cap, 1),
        truncated: bool(a, "reflect.result.truncated") ?? false,
        durationMs: Math.max(
          0,
          num(ca, "reflect.duration_ms") ?? num(a, "hindsight.tool.duration_ms") ?? durationMs(s),
        ),
        error: own && errorText === outcome ? null : errorText,
        signature: str(a, "reflect.signature") ?? `${tool}:${asText(args ?? null)}:`,
        content,
      },
    });
  }

  // This project's verdicts travel as events on the root span.
  const verdicts = own
    ? root.events.flatMap((e) => verdictOf(e.name, e.attributes, doneArgs).map((ev) => ({ e, ev })))
    : [];
  for (const { e, ev } of verdicts) push(e.timeNs, 1, ev);

  items.sort((x, y) => (x.time < y.time ? -1 : x.time > y.time ? 1 : x.phase - y.phase || x.order - y.order));

  // ---------- header and result ----------
  const serviceName = str(root.resource, "service.name")?.slice(0, 200) ?? null;
  const agentName = str(ra, "gen_ai.agent.name") ?? (rootIsAgent ? root.name : null);
  const unknown: string[] = [];
  /** A header field the trace does not carry: the default the run record needs, named in the warnings. */
  function orDefault<T>(value: T | undefined, fallback: T, field: string): T {
    if (value !== undefined) return value;
    unknown.push(field);
    return fallback;
  }
  const budget = orDefault(Budget.safeParse(str(ra, "reflect.budget")).data, "mid", "budget");
  const mode = orDefault(RunMode.safeParse(str(ra, "reflect.mode")).data, "synthesize", "mode");
  const scope = orDefault(Scope.safeParse(str(ra, "reflect.scope")).data, "personal", "scope");
  const skillName = str(ra, "reflect.skill.name") ?? agentName ?? serviceName ?? "imported";
  const skillVersion = num(ra, "reflect.skill.version");
  if (!str(ra, "reflect.skill.name")) unknown.push("skill");
  const skill: SkillSnapshot = {
    id: `otlp:${skillName}`.slice(0, 200),
    name: skillName.slice(0, 200) || "imported",
    version: skillVersion !== undefined && Number.isInteger(skillVersion) && skillVersion > 0 ? skillVersion : 1,
    mission: str(ra, "gen_ai.agent.description") ?? "",
    disposition: [],
    retrieval: { tags: [], types: ["observation", "episodic"], scope },
    budget,
    anchorEvery: 1,
    outputFormat: "",
    answerFormat: "prose",
  };
  const firstUser = (() => {
    for (const it of items) {
      if (it.event.type !== "llm.request") continue;
      const m = (it.event.payload as EventPayload<"llm.request">).messages.find((x) => x.role === "user");
      if (m) return m.content as string;
    }
    return undefined;
  })();
  const rootInput = jsonValue(ra["input.value"]);
  const fullQuestion =
    (typeof rootInput === "string"
      ? rootInput
      : isRecord(rootInput) && typeof rootInput.query === "string"
        ? rootInput.query
        : undefined) ??
    str(ra, "hindsight.query", "gen_ai.prompt") ??
    genAiMessages(jsonValue(ra["gen_ai.input.messages"])).find((m) => m.role === "user")?.content ??
    firstUser ??
    "";
  // Cut to a native question's length: the runs list shows every row's question, and one trace's
  // 9 MB prompt must not make each visit of the list that heavy (the whole text is in its model calls).
  const question =
    fullQuestion.length > MAX_QUESTION_CHARS ? `${fullQuestion.slice(0, MAX_QUESTION_CHARS)}…` : fullQuestion;
  const bankId = (
    str(ra, "reflect.bank.id", "hindsight.bank_id", "gen_ai.memory.store.id") ?? `otlp:${serviceName ?? "unknown"}`
  ).slice(0, 200);
  modelName = (modelName ?? "unknown").slice(0, 200);
  const sdk = [
    str(root.resource, "telemetry.sdk.name"),
    str(root.resource, "telemetry.sdk.language"),
    str(root.resource, "telemetry.sdk.version"),
  ]
    .filter(Boolean)
    .join(" ");
  const warnings = [
    `Imported over OTLP from ${serviceName ? `service "${serviceName}"` : "an unnamed service"}${sdk ? ` (SDK ${sdk})` : ""}, trace ${traceId}: read-only.`,
    ...(unknown.length > 0 ? [`Not in the trace, shown with defaults: ${unknown.join(", ")}.`] : []),
    ...(question !== fullQuestion
      ? [
          `The question is ${fullQuestion.length.toLocaleString("en-US")} characters; the first ${MAX_QUESTION_CHARS.toLocaleString("en-US")} are shown.`,
        ]
      : []),
  ];

  const answer =
    (own ? str(ra, "output.value") : undefined) ??
    (isRecord(doneArgs) && typeof doneArgs.answer === "string" ? doneArgs.answer : undefined) ??
    (typeof jsonValue(ra["output.value"]) === "string" ? (ra["output.value"] as string) : undefined) ??
    genAiMessages(jsonValue(ra["gen_ai.output.messages"])).at(-1)?.content ??
    lastText ??
    "";
  const fromDone = doneLists(doneArgs);
  const citations: Citations = emptyCitations();
  for (const t of TIER_REGISTRY) {
    citations[t.citationKey] = list(ra, `reflect.citations.${t.citationKey}`) ?? fromDone[t.citationKey] ?? [];
  }
  const validated = items.filter((i) => i.event.type === "citations.validated").at(-1)?.event.payload as
    | EventPayload<"citations.validated">
    | undefined;
  const flags = new Set<RunFlag>((list(ra, "reflect.flags") ?? []).flatMap((f) => RunFlag.safeParse(f).data ?? []));
  flags.add("imported");
  const statusAttr = RunStatus.safeParse(str(ra, "reflect.status")).data;
  const status: RunStatus =
    statusAttr && statusAttr !== "running"
      ? statusAttr
      : statusAttr === "running"
        ? "interrupted"
        : root.status.code === 2
          ? "failed"
          : "done";
  if (statusAttr === "running") warnings.push("The trace ended before the run finished.");
  const iterations = new Set(items.flatMap((i) => (i.event.iteration === undefined ? [] : [i.event.iteration])));
  const result: EventPayload<"run.finished"> = {
    status,
    answer,
    citations,
    dropped: validated?.dropped ?? [],
    flags: RUN_FLAGS.filter((f) => flags.has(f)),
    usage: {
      inputTokens: clampInt(num(ra, "gen_ai.usage.input_tokens", "llm.token_count.prompt") ?? tokensIn, 0),
      outputTokens: clampInt(num(ra, "gen_ai.usage.output_tokens", "llm.token_count.completion") ?? tokensOut, 0),
    },
    llmCalls: clampInt(num(ra, "reflect.llm_calls") ?? chats.length, 0),
    iterations: clampInt(num(ra, "reflect.iterations") ?? iterations.size, 0),
    warnings: [],
    error:
      status === "failed" || (status === "interrupted" && root.status.code === 2)
        ? {
            message: root.status.message ?? status,
            phase: str(ra, "reflect.error.phase") ?? str(ra, "error.type") ?? "imported",
          }
        : null,
    probe,
  };

  let lastTime = ns(root.endNs);
  for (const i of items) if (i.time > lastTime) lastTime = i.time;
  const started: RunEvent = {
    runId,
    seq: 0,
    at: 0,
    type: "run.started",
    payload: {
      bankId,
      question,
      skill,
      budget,
      mode,
      scope,
      model: { kind: "imported", name: modelName },
      maxIterations: 0,
      anchorEvery: 0,
      enabledTiers: TIERS.filter((t) => tiersSeen.has(t)),
      toolResultCapChars: 0,
      wallClockMs: 0,
      parentRunId: null,
      forkedAtIteration: null,
      warnings,
    },
  };
  const events: RunEvent[] = [started];
  // Iterations renumbered densely in order: a trace's own numbers (`reflect.iteration`) may be
  // anything, and the timeline lays iterations out by index.
  const dense = new Map(
    [...new Set(items.flatMap((i) => (i.event.iteration === undefined ? [] : [i.event.iteration])))]
      .sort((x, y) => x - y)
      .map((n, i) => [n, i]),
  );
  let unreadable = 0;
  for (const it of items) {
    const { iteration, ...rest } = it.event;
    const candidate = {
      ...rest,
      runId,
      seq: events.length,
      at: at(it.time.toString()),
      ...(iteration !== undefined ? { iteration: dense.get(iteration) ?? 0 } : {}),
    };
    const parsed = RunEvent.safeParse(candidate);
    if (parsed.success) events.push(parsed.data);
    else unreadable++;
  }
  // The warnings list is the one run.started carries.
  if (unreadable > 0) warnings.push(`${unreadable} span events had values this app cannot show and were left out.`);
  events.push({ runId, seq: events.length, at: at(lastTime.toString()), type: "run.finished", payload: result });

  const epochMs = Number(epoch / 1_000_000n);
  const endMs = Number(lastTime / 1_000_000n);
  return {
    runId,
    bankId,
    question,
    epochMs,
    startedAt: new Date(epochMs).toISOString(),
    finishedAt: new Date(endMs).toISOString(),
    durationMs: Math.max(0, endMs - epochMs),
    skill,
    budget,
    mode,
    scope,
    modelName,
    source: {
      serviceName,
      sdkName: str(root.resource, "telemetry.sdk.name") ?? null,
      sdkLanguage: str(root.resource, "telemetry.sdk.language") ?? null,
      sdkVersion: str(root.resource, "telemetry.sdk.version") ?? null,
      scope: root.scope.name || null,
      traceId,
      spans: spans.length,
    },
    events,
    result,
  };
}

/** This project's missed-evidence probe span, when its attributes hold a whole probe result. */
function probeOf(a: Attrs, s: ImportedSpan): EventPayload<"probe.finished"> | null {
  const ids = list(a, "reflect.probe.hit_ids") ?? [];
  const tiers = list(a, "reflect.probe.hit_tiers") ?? [];
  const ranks = list(a, "reflect.probe.hit_best_ranks") ?? [];
  const scores = list(a, "reflect.probe.hit_scores") ?? [];
  const queries = list(a, "reflect.probe.hit_queries") ?? [];
  const strong = list(a, "reflect.probe.hit_strong") ?? [];
  const parsed = ProbeResult.safeParse({
    queries: list(a, "reflect.probe.queries") ?? [],
    skippedQueries: num(a, "reflect.probe.skipped_queries") ?? 0,
    hits: ids.map((id, i) => ({
      id,
      tier: tiers[i],
      rank: i + 1,
      bestRank: Number(ranks[i]),
      score: Number(scores[i]),
      searchScore: null,
      query: queries[i] ?? "",
      preview: "",
      strong: strong[i] === "true",
    })),
    strong: bool(a, "reflect.probe.strong") ?? false,
    durationMs: num(a, "reflect.probe.duration_ms") ?? durationMs(s),
    errors: list(a, "reflect.probe.errors") ?? [],
  });
  return parsed.success ? parsed.data : null;
}

/** A root-span event of this project's export back as the verdict it was; anything else, none. */
function verdictOf(name: string, a: Attrs, doneArgs: unknown): Item["event"][] {
  const iteration = num(a, "reflect.iteration");
  const it = iteration === undefined ? {} : { iteration };
  const signature = str(a, "reflect.signature") ?? null;
  switch (name) {
    case "reflect.freshness_check": {
      const ids = list(a, "reflect.mental_models.ids") ?? [];
      const stale = list(a, "reflect.mental_models.stale") ?? [];
      const reasons = list(a, "reflect.mental_models.reasons") ?? [];
      // Exports before these two were added carry neither: a model then reads as usable when fresh.
      const usable = list(a, "reflect.mental_models.usable");
      const versions = list(a, "reflect.mental_models.versions");
      return [
        {
          type: "freshness.check",
          ...it,
          payload: {
            budget: str(a, "reflect.budget"),
            models: ids.map((id, i) => ({
              id,
              name: id,
              version: versions?.[i] ? Number(versions[i]) : null,
              isStale: stale[i] === "true",
              reason: reasons[i] ?? "",
              usable: usable ? usable[i] === "true" : stale[i] !== "true",
            })),
            verdict: str(a, "reflect.verdict"),
            why: str(a, "reflect.why") ?? "",
          },
        } as Item["event"],
      ];
    }
    case "reflect.steering_nudge":
    case "reflect.steering_halt": {
      const nudge = name === "reflect.steering_nudge";
      return [
        {
          type: nudge ? "steering.nudge" : "steering.halt",
          ...it,
          payload: {
            [nudge ? "text" : "reason"]: str(a, "reflect.text") ?? "",
            trigger: str(a, "reflect.trigger"),
            signature,
            count: num(a, "reflect.count") ?? 0,
            sinceIteration: num(a, "reflect.since_iteration") ?? 0,
          },
        } as Item["event"],
      ];
    }
    case "reflect.steering_anchor":
      return [
        {
          type: "steering.anchor",
          ...it,
          payload: { text: str(a, "reflect.text") ?? "", every: num(a, "reflect.every") ?? 1, progressText: null },
        } as Item["event"],
      ];
    case "reflect.guard_output": {
      const format = str(a, "reflect.format");
      return [
        {
          type: "guard.output",
          ...it,
          payload: {
            pattern: str(a, "reflect.pattern") ?? "",
            action: str(a, "reflect.action"),
            detail: str(a, "reflect.detail") ?? "",
            ...(format ? { format } : {}),
          },
        } as Item["event"],
      ];
    }
    case "reflect.guard_done_rejected":
      return [
        {
          type: "guard.done_rejected",
          ...it,
          payload: { callId: "", why: str(a, "reflect.why"), message: str(a, "reflect.text") ?? "" },
        } as Item["event"],
      ];
    case "reflect.guard_calls_dropped":
      return [
        {
          type: "guard.calls_dropped",
          ...it,
          payload: {
            reason: "done_wins",
            calls: (list(a, "reflect.dropped_tools") ?? []).map((n) => ({ id: "", name: n })),
          },
        } as Item["event"],
      ];
    case "reflect.llm_warning":
      return [{ type: "llm.warning", ...it, payload: { message: str(a, "reflect.text") ?? "" } } as Item["event"]];
    case "reflect.citations_validated": {
      const kept = emptyCitations();
      for (const t of TIER_REGISTRY) kept[t.citationKey] = list(a, `reflect.citations.${t.citationKey}`) ?? [];
      const claimed = doneLists(doneArgs);
      const reasons = list(a, "reflect.citations.dropped_reasons") ?? [];
      const tiers = list(a, "reflect.citations.dropped_tiers") ?? [];
      const dropped: DroppedCitation[] = (list(a, "reflect.citations.dropped_ids") ?? []).flatMap((id, i) => {
        // The claimed tier as exported; from an older export, the `done` list that named the id.
        const tier = asTier(tiers[i]) ?? TIER_REGISTRY.find((t) => claimed[t.citationKey]?.includes(id))?.id;
        const reason = reasons[i];
        return tier && (reason === "never_retrieved" || reason === "wrong_tier")
          ? [{ id, claimedTier: tier, reason }]
          : [];
      });
      const ungrounded = bool(a, "reflect.ungrounded") ?? false;
      // A decline cites nothing and is not ungrounded: a span that says otherwise is not read as one.
      const declined = bool(a, "reflect.declined") === true && !ungrounded && citationCount(kept) === 0;
      return [
        {
          type: "citations.validated",
          ...it,
          payload: { kept, dropped, ungrounded, ...(declined ? { declined: true as const } : {}) },
        } as Item["event"],
      ];
    }
    default:
      return [];
  }
}
