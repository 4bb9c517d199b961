/**
 * What a reasoning model thought before it answered, wherever the server put it:
 * `message.reasoning_content` (vLLM's reasoning parsers, DeepSeek), `message.reasoning`
 * (OpenRouter, Ollama) or `<think>…</think>` blocks in `content` (leading, as a rule) (Qwen3 and the R1 distills
 * served without a reasoning parser). Pure.
 */

export interface SplitContent {
  /** The content with any leading reasoning block removed; null when nothing else is left. */
  content: string | null;
  /** The reasoning text; null when the response carried none. */
  reasoning: string | null;
}

const LEADING_THINK = /^\s*<think>([\s\S]*?)<\/think>\s*/i;
/** A response cut off while thinking: the opening tag never closed. */
const UNCLOSED_THINK = /^\s*<think>([\s\S]*)$/i;
/** Templates that put `<think>` in the prompt leave only the closing tag in the content (R1 distills, Qwen3). */
const CLOSE_ONLY = /^([\s\S]*?)<\/think>\s*/i;

export function splitReasoning(message: {
  content?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
}): SplitContent {
  const fields = [message.reasoning_content, message.reasoning].filter(
    (v): v is string => typeof v === "string" && v.trim() !== "",
  );
  const raw = typeof message.content === "string" ? message.content : null;
  const { content, think } = leadingThink(raw);
  // vLLM from late 2025 sends the same text as both `reasoning` and `reasoning_content` (the old
  // name kept for compatibility): one thought, kept once.
  const parts = [...new Set([...fields, ...(think ? [think] : [])].map((p) => p.trim()))];
  return { content, reasoning: parts.length > 0 ? parts.join("\n\n") : null };
}

/** Every further `<think>` block, wherever it sits (and one left open at the end). */
const ANY_THINK = /<think>([\s\S]*?)(?:<\/think>|$)/gi;

/**
 * The leading reasoning block (or the text before a lone `</think>`), then every other `<think>`
 * block in what is left: none of it is content, so none is sent back to the model or answered.
 */
function leadingThink(content: string | null): { content: string | null; think: string | null } {
  const first = firstThink(content);
  if (first.content === null || !/<think>/i.test(first.content)) return first;
  const thoughts = first.think ? [first.think] : [];
  const left = first.content.replace(ANY_THINK, (_, inner: string) => {
    if (inner.trim()) thoughts.push(inner.trim());
    return " ";
  });
  return { content: rest(left), think: thoughts.length > 0 ? thoughts.join("\n\n") : null };
}

function firstThink(content: string | null): { content: string | null; think: string | null } {
  if (content === null) return { content: null, think: null };
  const closed = LEADING_THINK.exec(content);
  if (closed) return { content: rest(content.slice(closed[0].length)), think: closed[1]!.trim() || null };
  const unclosed = UNCLOSED_THINK.exec(content);
  if (unclosed && !/<\/think>/i.test(content)) return { content: null, think: unclosed[1]!.trim() || null };
  if (!/<think>/i.test(content)) {
    const closeOnly = CLOSE_ONLY.exec(content);
    if (closeOnly) return { content: rest(content.slice(closeOnly[0].length)), think: closeOnly[1]!.trim() || null };
  }
  return { content, think: null };
}

function rest(text: string): string | null {
  return text.trim() ? text : null;
}
