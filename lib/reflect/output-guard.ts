/**
 * The output guard (docs/engine.md#grounding-citations-and-the-output-guard): gpt-oss "harmony" scaffolding, <think> reasoning, chat-template
 * tokens, tool calls written as text and bare JSON envelopes must never become a stored answer. Safe cases are recovered here; the engine retries or degrades the rest.
 */

export type GuardInspection =
  | { kind: "clean"; text: string }
  | { kind: "recovered" | "unwrapped"; text: string; pattern: string; detail: string }
  | { kind: "leak"; pattern: string; detail: string };

const HARMONY_TOKEN = /<\|(channel|message|start|end|return|call|constrain)\|>/;
// No word boundary: the leak is often glued ("assistantcommentaryto=functions.recall").
const TO_FUNCTIONS = /to=functions\.[\w.-]*/;
const GLUED_FINAL = /assistantfinal/;
/**
 * "analysisThe user asks…" — the analysis channel name glued to its text (prose "analysis of" has
 * a space; a possessive "analysis's" is prose too).
 */
const GLUED_ANALYSIS = /^\s*(?:<\|[a-z]+\|>)?analysis(?=[A-Za-z"*]|'(?!s\b))/;
const FINAL_CHANNEL = /<\|channel\|>\s*final\s*(?:<\|constrain\|>[^<]*)?<\|message\|>/g;
const END_OF_MESSAGE = /<\|(end|return|call|start)\|>/;
const ENVELOPE_KEYS = new Set(["answer", "final_answer", "response"]);
/** Reasoning models (DeepSeek-R1, Qwen3) think inside <think>…</think> before the answer. */
const LEADING_THINK = /^\s*<think>[\s\S]*?<\/think>\s*/i;
/**
 * A leaked thought: an answer that opens with `<think>`, or holds a closing `</think>`. An answer
 * that only mentions the opening tag ("wraps its reasoning in <think> tags") is prose.
 */
const THINK_TAG = /^\s*<think>|<\/think>/i;
/** ChatML / Llama chat-template tokens: scaffolding, never answer text. */
const CHAT_TEMPLATE_TOKEN = /<\|(?:im_start|im_end|im_sep|endoftext|eot_id|start_header_id|end_header_id)\|>/;
/** Tool calls written as text (Hermes/Qwen blocks, Mistral's marker): scaffolding, never answer text. */
const TEXT_TOOL_CALL = /<\/?tool_call>|\[TOOL_CALLS\]|\w\[ARGS\]\s*[{[]/;
/** The tokens that end a turn: what comes before the first one can be the answer. */
const END_OF_TURN = /<\|(?:im_end|endoftext|eot_id)\|>/;
/** An envelope behind a lead-in label ("Answer: {…}") or inside a one-element list ("[{…}]"). */
const LABELLED_ENVELOPE = /^\s*(?:final\s+)?answer\s*:\s*(\{[\s\S]*\})\s*$/i;
const LISTED_ENVELOPE = /^\s*\[\s*(\{[\s\S]*\})\s*\]\s*$/;

/**
 * Harmony scaffolding anywhere in the text, code fences included: a model that wraps its channel
 * markers in a fence is leaking all the same (docs/engine.md#never-a-misleading-result).
 */
export function harmonyLeak(text: string): { pattern: string; detail: string } | null {
  const token = HARMONY_TOKEN.exec(text);
  if (token) return { pattern: "harmony_token", detail: `found ${token[0]}` };
  const to = TO_FUNCTIONS.exec(text);
  if (to) return { pattern: "to_functions", detail: `found ${to[0]}` };
  if (GLUED_FINAL.test(text)) return { pattern: "glued_assistantfinal", detail: "found assistantfinal" };
  if (GLUED_ANALYSIS.test(text)) return { pattern: "glued_analysis", detail: "text starts with the analysis channel" };
  return null;
}

/** The final channel's text, when the framing marks one. */
function finalChannelText(text: string): string | null {
  let last: RegExpExecArray | null = null;
  for (const m of text.matchAll(FINAL_CHANNEL)) last = m as RegExpExecArray;
  if (last)
    return text
      .slice(last.index + last[0].length)
      .split(END_OF_MESSAGE, 1)[0]!
      .trim();
  const glued = text.lastIndexOf("assistantfinal");
  if (glued >= 0)
    return text
      .slice(glued + "assistantfinal".length)
      .split(END_OF_MESSAGE, 1)[0]!
      .trim();
  return null;
}

/** A whole answer wrapped in one fenced block (```json … ```): the fence is packaging, not content. */
const WHOLE_FENCE = /^```[\w-]*\s*\n([\s\S]*?)\n?```$/;

function envelope(text: string): { answer: string | null; keys: string[] } | null {
  const outer = text.trim();
  const unfenced = (WHOLE_FENCE.exec(outer)?.[1] ?? outer).trim();
  const trimmed = (LABELLED_ENVELOPE.exec(unfenced)?.[1] ?? LISTED_ENVELOPE.exec(unfenced)?.[1] ?? unfenced).trim();
  if (!trimmed.startsWith("{") || !trimmed.endsWith("}")) return null;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return null;
    const entries = Object.entries(parsed);
    const only = entries.length === 1 ? entries[0]! : null;
    const answer = only && ENVELOPE_KEYS.has(only[0]) && typeof only[1] === "string" ? only[1] : null;
    return { answer, keys: entries.map(([k]) => k) };
  } catch {
    return null;
  }
}

export interface GuardOptions {
  /** The skill's `answerFormat` is `json`: a JSON answer is then the expected shape. Nothing else switches it on. */
  jsonExpected: boolean;
}

/** A JSON answer wrapped in one fenced block: the JSON, when the block parses as JSON. */
function fencedJson(text: string): string | null {
  const inner = WHOLE_FENCE.exec(text.trim())?.[1]?.trim();
  if (!inner) return null;
  try {
    JSON.parse(inner);
    return inner;
  } catch {
    return null;
  }
}

/**
 * Reasoning blocks and chat-template tokens: a leading <think> block or a trailing end-of-turn
 * token is dropped when what remains is a clean answer; anywhere else they are a leak.
 */
function inspectScaffolding(text: string, options: GuardOptions): GuardInspection | null {
  const think = LEADING_THINK.exec(text);
  if (think) {
    return recoveredOrLeak(text.slice(think[0].length), options, "think_block", "dropped the leading <think> block");
  }
  const tag = THINK_TAG.exec(text);
  if (tag) return { kind: "leak", pattern: "think_block", detail: `found ${tag[0]}` };
  const call = TEXT_TOOL_CALL.exec(text);
  if (call) return { kind: "leak", pattern: "text_tool_call", detail: `found ${call[0]}` };
  const token = CHAT_TEMPLATE_TOKEN.exec(text);
  if (!token) return null;
  const end = END_OF_TURN.exec(text);
  if (end && end.index === token.index && end.index > 0) {
    return recoveredOrLeak(text.slice(0, end.index), options, "chat_template_token", `cut at ${end[0]}`);
  }
  return { kind: "leak", pattern: "chat_template_token", detail: `found ${token[0]}` };
}

function recoveredOrLeak(rest: string, options: GuardOptions, pattern: string, detail: string): GuardInspection {
  const inner = inspectAnswer(rest, options);
  if (inner.kind === "clean") return { kind: "recovered", text: inner.text, pattern, detail };
  if (inner.kind === "leak") return { kind: "leak", pattern: `${pattern}+${inner.pattern}`, detail: inner.detail };
  return { ...inner, pattern: `${pattern}+${inner.pattern}` };
}

export function inspectAnswer(text: string, options: GuardOptions): GuardInspection {
  const scaffolding = inspectScaffolding(text, options);
  if (scaffolding) return scaffolding;
  const harmony = harmonyLeak(text);
  if (harmony) {
    const final = finalChannelText(text);
    if (final) {
      const inner = inspectAnswer(final, options);
      if (inner.kind === "clean") {
        return { kind: "recovered", text: inner.text, pattern: harmony.pattern, detail: "kept the final channel only" };
      }
      if (inner.kind === "unwrapped") return { ...inner, pattern: `${harmony.pattern}+${inner.pattern}` };
    }
    return { kind: "leak", ...harmony };
  }
  if (!options.jsonExpected) {
    const env = envelope(text);
    if (env?.answer?.trim()) {
      const inner = inspectAnswer(env.answer, options);
      if (inner.kind === "clean") {
        return {
          kind: "unwrapped",
          text: inner.text,
          pattern: "json_envelope",
          detail: `unwrapped {"${env.keys[0]}"}`,
        };
      }
      return inner.kind === "leak" ? inner : { ...inner, pattern: `json_envelope+${inner.pattern}` };
    }
    if (env) return { kind: "leak", pattern: "json_envelope", detail: `bare JSON with keys ${env.keys.join(", ")}` };
  }
  if (options.jsonExpected) {
    const json = fencedJson(text);
    if (json !== null)
      return { kind: "unwrapped", text: json, pattern: "json_fence", detail: "unwrapped the fenced JSON" };
  }
  if (!text.trim()) return { kind: "leak", pattern: "empty_answer", detail: "the answer is blank" };
  return { kind: "clean", text };
}
