/**
 * `model check`: what the configured endpoint can do, measured with a few tiny requests. Plain
 * chat; a tool under `auto`; the three forced forms the provider can send (named, `required`, no
 * tool choice); whether calls came back as text the provider can read; whether the model returns
 * reasoning. From those: how tools work (structured, as text, not at all) and the
 * `REFLECT_FORCED_TOOL_CHOICE` to set. Never carries the key: every server text is scrubbed.
 */
import type OpenAI from "openai";
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat";
import {
  MODEL_CHECK_PROBES,
  type ModelCheckReport,
  type ProbeName,
  type ProbeResult,
} from "@/lib/contracts/model-check";
import type { ModelConfig, OpenAIModelConfig } from "./config";
import { createOpenAIClient, isTimeout, notAChatCompletion, toModelCallError, withoutKey } from "./openai-model";
import { type ProviderStatus, providerStatus } from "./provider-status";
import { splitReasoning } from "./reasoning";
import { parseTextToolCalls } from "./text-tool-calls";

const LABEL: Record<ProbeName, string> = {
  plain_chat: "plain chat",
  tools_auto: "tools, tool_choice auto",
  named_choice: "named tool choice",
  required_choice: 'tool_choice "required"',
  no_choice: "tools, no tool_choice",
};

const PROBE_TOOL = {
  type: "function" as const,
  function: {
    name: "lookup",
    description: "Look up a word in the memory bank.",
    parameters: {
      type: "object",
      properties: { query: { type: "string", description: "The word to look up" } },
      required: ["query"],
    },
  },
};

const TOOL_MESSAGES = [
  { role: "system" as const, content: "You answer by calling tools. Call the lookup tool; do not answer in text." },
  { role: "user" as const, content: 'Look up the word "ping".' },
];

/** At most this long per probe, whatever the run timeout: a check should answer in seconds. */
const PROBE_TIMEOUT_MS = 30_000;

export interface ModelCheckOptions {
  /** Milliseconds from any origin, for the latency column. */
  now?: () => number;
}

export async function checkModel(config: ModelConfig, options: ModelCheckOptions = {}): Promise<ModelCheckReport> {
  if (config.kind === "offline") return offlineReport();
  const now = options.now ?? (() => performance.now());
  const client = createOpenAIClient({
    ...config,
    timeoutMs: Math.min(config.timeoutMs, PROBE_TIMEOUT_MS),
    maxRetries: 0,
  });
  const probes: ProbeResult[] = [];
  const timeoutMs = Math.min(config.timeoutMs, PROBE_TIMEOUT_MS);
  const plain = await probe(client, config, now, "plain_chat", {
    messages: [
      { role: "system", content: "Reply with the single word: ready." },
      { role: "user", content: "ping" },
    ],
  });
  probes.push(plain.result);
  // A server that let one request time out is not asked again: each probe would wait as long.
  let silent: ProbeName | null = plain.timedOut ? "plain_chat" : null;
  const reachable = plain.result.ok;
  const toolBodies: [ProbeName, Partial<ChatCompletionCreateParamsNonStreaming>][] = [
    ["tools_auto", { tool_choice: "auto" }],
    ["named_choice", { tool_choice: { type: "function", function: { name: PROBE_TOOL.function.name } } }],
    ["required_choice", { tool_choice: "required" }],
    ["no_choice", {}],
  ];
  for (const [name, extra] of toolBodies) {
    if (silent) {
      probes.push(notSent(name, `not sent: the server did not answer the ${LABEL[silent]} request`));
      continue;
    }
    if (!reachable) {
      probes.push(notSent(name, "not sent: plain chat failed"));
      continue;
    }
    const sent = await probe(client, config, now, name, { messages: TOOL_MESSAGES, tools: [PROBE_TOOL], ...extra });
    probes.push(sent.result);
    if (sent.timedOut) silent = name;
  }
  return report(
    providerStatus(config),
    probes,
    silent ? { probe: LABEL[silent], seconds: Math.round(timeoutMs / 100) / 10 } : null,
    // The plain request's answer was not a chat completion: a wrong base URL, not missing tools.
    plain.result.ok || plain.completion === undefined ? null : notAChatCompletion(plain.completion),
  );
}

async function probe(
  client: OpenAI,
  config: OpenAIModelConfig,
  now: () => number,
  name: ProbeName,
  body: Partial<ChatCompletionCreateParamsNonStreaming>,
): Promise<{ result: ProbeResult; timedOut: boolean; completion?: unknown }> {
  const started = now();
  let completion: ChatCompletion;
  try {
    completion = await client.chat.completions.create({
      model: config.model,
      messages: [],
      ...body,
      ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
    } as ChatCompletionCreateParamsNonStreaming);
  } catch (error) {
    const latencyMs = Math.max(0, now() - started);
    return { result: { ...notSent(name, failure(error, config)), latencyMs }, timedOut: isTimeout(error) };
  }
  return { result: read(name, completion, config, Math.max(0, now() - started)), timedOut: false, completion };
}

/** One answered probe: what came back, as a result row. */
function read(name: ProbeName, completion: ChatCompletion, config: OpenAIModelConfig, latencyMs: number): ProbeResult {
  const wrongShape = notAChatCompletion(completion);
  if (wrongShape) return { ...notSent(name, wrongShape), latencyMs };
  const message = completion.choices?.[0]?.message;
  if (!message) {
    return { ...notSent(name, "the response had no choices"), latencyMs };
  }
  const raw = message as unknown as { reasoning_content?: unknown; reasoning?: unknown };
  const { content, reasoning } = splitReasoning(message);
  const source = !reasoning
    ? null
    : typeof raw.reasoning_content === "string" && raw.reasoning_content.trim()
      ? "reasoning_content"
      : typeof raw.reasoning === "string" && raw.reasoning.trim()
        ? "reasoning"
        : "think_block";
  const base = { probe: name, label: LABEL[name], reasoning: source, textFormat: null, latencyMs } as const;
  if (name === "plain_chat") {
    return { ...base, ok: true, call: null, detail: content?.trim() ? "answered" : "answered with no text" };
  }
  const structured = (message.tool_calls ?? []).filter((c) => c.type === undefined || c.type === "function");
  if (structured.length > 0) {
    const named = structured.map((c) => ("function" in c ? c.function?.name : undefined) ?? "?");
    // Tool names are server text too: scrubbed and bounded like an error.
    return { ...base, ok: true, call: "structured", detail: withoutKey(`called ${named.join(", ")}`, config.apiKey) };
  }
  const text = parseTextToolCalls(content);
  if (text) {
    return {
      ...base,
      ok: true,
      call: "text",
      textFormat: text.format,
      detail: withoutKey(`called ${text.calls.map((c) => c.name).join(", ")} as text (${text.format})`, config.apiKey),
    };
  }
  return {
    ...base,
    ok: false,
    call: "none",
    detail: content?.trim() ? "answered in prose, no tool call" : "no tool call and no text",
  };
}

/** The provider's one-line error without its "model … at host" head (the report's header names them). */
function failure(error: unknown, config: OpenAIModelConfig): string {
  const head = `model ${config.model} at @`;
  const message = toModelCallError(error, { ...config, forcedToolChoice: undefined }, "@").message;
  const rest = message.startsWith(head) ? message.slice(head.length) : message;
  return withoutKey(rest.replace(/^:?\s*(failed with |failed: )?/, ""), config.apiKey);
}

function notSent(name: ProbeName, detail: string): ProbeResult {
  return {
    probe: name,
    label: LABEL[name],
    ok: false,
    call: null,
    textFormat: null,
    reasoning: null,
    detail,
    latencyMs: null,
  };
}

function report(
  provider: ProviderStatus,
  probes: ProbeResult[],
  silent: { probe: string; seconds: number } | null,
  wrongShape: string | null,
): ModelCheckReport {
  const byName = new Map(probes.map((p) => [p.probe, p]));
  const calls = probes.filter((p) => p.probe !== "plain_chat" && p.ok);
  const toolCalls = calls.some((p) => p.call === "structured")
    ? "structured"
    : calls.some((p) => p.call === "text")
      ? "text"
      : "none";
  const textForms = [...new Set(calls.flatMap((p) => (p.textFormat ? [p.textFormat] : [])))];
  const reasoning = [...new Set(probes.flatMap((p) => (p.reasoning ? [p.reasoning] : [])))];
  const forms = [
    ["named", "named_choice"],
    ["required", "required_choice"],
    ["omit", "no_choice"],
  ] as const;
  const recommended = forms.find(([, probe]) => byName.get(probe)?.ok)?.[0] ?? null;
  // Every run's free turns go out under `tool_choice: "auto"`: a server that refuses or fails them
  // fails every run after the forced searches, however well the forced forms work.
  const auto = byName.get("tools_auto");
  const autoFails = toolCalls !== "none" && auto?.ok === false && auto.call === null;
  const summary = silent
    ? `The server accepted the connection but did not answer the ${silent.probe} request within ${silent.seconds} s, so the check stopped there: is the model loaded, and is REFLECT_MODEL a model the server serves? (REFLECT_LLM_TIMEOUT_MS sets the wait, at most 30 s here.)`
    : wrongShape
      ? `The server ${wrongShape}.`
      : autoFails
        ? `Tools work only when forced: the request under tool_choice "auto" failed (${auto?.detail}), and every run sends its free turns that way, so runs would fail. Enable automatic tool choice on the server (see the README's table of servers).`
        : toolCalls === "none"
          ? byName.get("plain_chat")?.ok
            ? "This server cannot call tools in any form the app reads: runs would fail. Enable tool calling on the server (see the README's table of servers)."
            : "The server did not answer a plain chat request: check OPENAI_BASE_URL, the key and REFLECT_MODEL."
          : toolCalls === "text"
            ? "Tools work as text only: the app reads the calls from the text and records each recovery in the timeline. Server-side tool parsing is more reliable."
            : "Tools work as structured calls.";
  return {
    provider,
    probes,
    toolCalls,
    textForms,
    reasoning,
    recommendedForcedToolChoice: recommended,
    summary,
    exitCode: toolCalls === "none" || autoFails ? 1 : 0,
  };
}

/** The embedded offline model speaks the engine's own shapes: nothing to probe over a wire. */
function offlineReport(): ModelCheckReport {
  const detail = "embedded offline model: obeys every tool choice";
  return {
    provider: { kind: "offline", model: "offline" },
    probes: MODEL_CHECK_PROBES.map((probe) => ({
      probe,
      label: LABEL[probe],
      ok: true,
      call: probe === "plain_chat" ? null : "structured",
      textFormat: null,
      reasoning: null,
      detail,
      latencyMs: null,
    })),
    toolCalls: "structured",
    textForms: [],
    reasoning: [],
    recommendedForcedToolChoice: "named",
    summary: "The offline model needs no server: fully compatible by construction (no latency to measure).",
    exitCode: 0,
  };
}

export { formatModelCheck } from "./model-check-format";
