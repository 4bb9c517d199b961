/**
 * Tool calls written as text. A model served without server-side tool parsing (Qwen or Hermes
 * models on llama.cpp or vLLM without `--tool-call-parser`, Mistral models without their parser)
 * writes its calls into `content` instead of `tool_calls`. The common forms are read back here:
 *
 * - Hermes / Qwen: `<tool_call>{"name": …, "arguments": …}</tool_call>`, one or several blocks.
 * - Mistral: `[TOOL_CALLS][{"name": …, "arguments": …}, …]` (tokenizers before v11) and
 *   `[TOOL_CALLS]name{…}` / `[TOOL_CALLS]name[ARGS]{…}` (v11 and later), repeated per call.
 * - A bare JSON object `{"name": …, "arguments": …}` (or `"parameters"`) as the whole content,
 *   optionally inside one ```json fence, naming a tool the request offered.
 * - gpt-oss "harmony": `to=functions.name … {…}` (`<|channel|>commentary to=functions.recall
 *   <|constrain|>json<|message|>{…}<|call|>`, or the same glued together).
 *
 * A block inside a fenced code example in prose (```…```) is an example, never a call.
 * Pure. A block that does not parse makes the whole text stay prose: the engine's output guard
 * then keeps the scaffolding out of any answer.
 */

import type { TextToolCallFormat } from "@/lib/reflect/events";

export interface TextToolCall {
  name: string;
  /** The raw JSON arguments string, as a structured call carries it. */
  arguments: string;
}

export interface TextToolCalls {
  format: TextToolCallFormat;
  calls: TextToolCall[];
  /** The text outside the recognised blocks (paragraphs joined by a blank line): the response's text. */
  prose: string;
}

const HERMES_OPEN = "<tool_call>";
const HERMES_CLOSE = "</tool_call>";
const MISTRAL_MARK = "[TOOL_CALLS]";
const MISTRAL_ARGS = "[ARGS]";
const MISTRAL_CALL_ID = /^\[CALL_ID\][\w-]*/;
const MISTRAL_NAME = /^\s*([A-Za-z_][\w.-]*)\s*/;
const WHOLE_FENCE = /^```(?:json)?\s*\n?([\s\S]*?)\n?```$/i;
const BARE_KEYS = new Set(["name", "arguments", "parameters", "id", "type"]);

/** A `<think>` block anywhere (or one left open at the end): the model's reasoning, never calls. */
const THINK_BLOCK = /<(think|thinking|reasoning)>[\s\S]*?(?:<\/\1>|$)/gi;
/** Fenced code blocks: examples in prose, never calls (unless the fence is the whole content). */
const FENCED_BLOCK = /```[^\n]*\n[\s\S]*?(?:```|$)/g;
/** A harmony call: the recipient, then (past the constrain/message markers) its JSON arguments. */
const HARMONY_CALL = /to=functions\.([A-Za-z_][\w.-]*)/g;

/**
 * The tool calls a response's text holds, or null when it holds none (or a broken one). A call the
 * model merely thought about inside a `<think>` block (a second one, or one mid-text, which the
 * reasoning split leaves in the content) is not a call.
 */
export function parseTextToolCalls(
  content: string | null | undefined,
  /** The tool names the request offered: a bare JSON object naming another is an answer, not a call. */
  offered?: readonly string[],
): TextToolCalls | null {
  const thought = content?.replace(THINK_BLOCK, " ");
  if (!thought?.trim()) return null;
  // A whole-content fence is packaging (bareJson reads it); fences in prose are examples.
  const visible = WHOLE_FENCE.test(thought.trim()) ? thought : thought.replace(FENCED_BLOCK, " ");
  if (!visible.trim()) return null;
  if (visible.includes(HERMES_OPEN)) return hermes(visible);
  if (visible.includes(MISTRAL_MARK)) return mistral(visible);
  if (visible.includes("to=functions.")) return harmony(visible);
  return bareJson(visible, offered);
}

/** gpt-oss harmony calls written as text: `to=functions.name`, then the first JSON object after it. */
function harmony(content: string): TextToolCalls | null {
  const calls: TextToolCall[] = [];
  for (const m of content.matchAll(HARMONY_CALL)) {
    const from = m.index + m[0].length;
    const brace = content.indexOf("{", from);
    // Only markers (and a content type such as "json") may stand between the recipient and its arguments.
    if (brace < 0 || !/^(?:\s|<\|[a-z]+\|>|json|code)*$/i.test(content.slice(from, brace))) return null;
    const end = jsonValueEnd(content, brace);
    if (end < 0) return null;
    const args = parseJson(content.slice(brace, end));
    if (!isObject(args)) return null;
    calls.push({ name: m[1]!, arguments: JSON.stringify(args) });
  }
  // The analysis channel before a harmony call is the model's reasoning, not the response's text.
  return calls.length > 0 ? { format: "harmony", calls, prose: "" } : null;
}

function hermes(content: string): TextToolCalls | null {
  const calls: TextToolCall[] = [];
  const prose: string[] = [];
  let at = 0;
  for (;;) {
    const open = content.indexOf(HERMES_OPEN, at);
    if (open < 0) break;
    prose.push(content.slice(at, open));
    const bodyStart = open + HERMES_OPEN.length;
    const close = content.indexOf(HERMES_CLOSE, bodyStart);
    // A response cut at the end (or a template that stops before the close tag) leaves the last block open.
    const body = content.slice(bodyStart, close < 0 ? undefined : close);
    const call = callFrom(parseJson(body.trim()));
    if (!call) return null;
    calls.push(call);
    at = close < 0 ? content.length : close + HERMES_CLOSE.length;
  }
  prose.push(content.slice(at));
  return calls.length > 0 ? { format: "hermes", calls, prose: joinProse(prose) } : null;
}

function mistral(content: string): TextToolCalls | null {
  const first = content.indexOf(MISTRAL_MARK);
  const calls: TextToolCall[] = [];
  let rest = content.slice(first + MISTRAL_MARK.length).trimStart();
  const prose = [content.slice(0, first)];
  while (rest) {
    if (rest.startsWith("[") || rest.startsWith("{")) {
      // Before v11: one JSON list (or object) of {name, arguments}.
      const end = jsonValueEnd(rest, 0);
      if (end < 0) return null;
      const value = parseJson(rest.slice(0, end));
      const items = Array.isArray(value) ? value : [value];
      if (items.length === 0) return null;
      for (const item of items) {
        const call = callFrom(item);
        if (!call) return null;
        calls.push(call);
      }
      rest = rest.slice(end);
    } else {
      // v11 and later: name, optional [CALL_ID]id, optional [ARGS], then the arguments object.
      const name = MISTRAL_NAME.exec(rest);
      if (!name) return null;
      rest = rest.slice(name[0].length).replace(MISTRAL_CALL_ID, "").trimStart();
      if (rest.startsWith(MISTRAL_ARGS)) rest = rest.slice(MISTRAL_ARGS.length).trimStart();
      const end = rest.startsWith("{") ? jsonValueEnd(rest, 0) : -1;
      if (end < 0) return null;
      const args = parseJson(rest.slice(0, end));
      if (!isObject(args)) return null;
      calls.push({ name: name[1]!, arguments: JSON.stringify(args) });
      rest = rest.slice(end);
    }
    rest = rest.trimStart();
    if (rest.startsWith(MISTRAL_MARK)) rest = rest.slice(MISTRAL_MARK.length).trimStart();
    else {
      prose.push(rest);
      break;
    }
  }
  return calls.length > 0 ? { format: "mistral", calls, prose: joinProse(prose) } : null;
}

function bareJson(content: string, offered?: readonly string[]): TextToolCalls | null {
  const trimmed = content.trim();
  const inner = (WHOLE_FENCE.exec(trimmed)?.[1] ?? trimmed).trim();
  if (!inner.startsWith("{") || !inner.endsWith("}")) return null;
  const value = parseJson(inner);
  // Only an object that is nothing but a call: an answer envelope or other JSON stays text. A call
  // carries its arguments: `{"name": "Atlas", "id": "f1"}` is a JSON answer, not a call to "Atlas".
  if (!isObject(value) || !Object.keys(value).every((k) => BARE_KEYS.has(k))) return null;
  if (!("arguments" in value || "parameters" in value)) return null;
  const call = callFrom(value);
  // `{"name": "Atlas", "arguments": …}` in an answer names no tool of this request: it is text.
  if (call && offered && !offered.includes(call.name)) return null;
  return call ? { format: "bare_json", calls: [call], prose: "" } : null;
}

function joinProse(parts: readonly string[]): string {
  return parts
    .map((p) => p.trim())
    .filter(Boolean)
    .join("\n\n");
}

/** `{"name", "arguments"|"parameters"}` with arguments as an object or a JSON string. */
function callFrom(value: unknown): TextToolCall | null {
  if (!isObject(value)) return null;
  const name = value.name;
  if (typeof name !== "string" || !name.trim()) return null;
  const args = "arguments" in value ? value.arguments : value.parameters;
  if (args === undefined || args === null) return { name: name.trim(), arguments: "{}" };
  if (typeof args === "string") return { name: name.trim(), arguments: args };
  if (!isObject(args)) return null;
  return { name: name.trim(), arguments: JSON.stringify(args) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const BROKEN = Symbol("broken");

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return BROKEN;
  }
}

/** The index just past the JSON object or array starting at `start`, or -1 when it never closes. */
function jsonValueEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}
