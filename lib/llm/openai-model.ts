import OpenAI from "openai";
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionToolChoiceOption } from "openai/resources/chat";
import { ModelCallError } from "@/lib/reflect/errors";
import type {
  FailedModelRequest,
  ModelPort,
  ModelRequest,
  ModelResponse,
  ToolCall,
  ToolChoice,
} from "@/lib/reflect/ports";
import { readBounded } from "@/lib/text/bounded-body";
import type { ForcedToolChoiceMode, OpenAIModelConfig } from "./config";
import { baseUrlHost } from "./provider-status";
import { splitReasoning } from "./reasoning";
import { parseTextToolCalls } from "./text-tool-calls";

const OPENAI_BASE_URL = "https://api.openai.com/v1";
const MAX_DETAIL_CHARS = 240;

/** The downgrade order for servers that reject a named tool choice (docs/engine.md#never-a-misleading-result). */
const DOWNGRADES: readonly ForcedToolChoiceMode[] = ["named", "required", "omit"];

/**
 * The forced tool-choice form that worked, per base URL and model, for the life of the process:
 * once a server has rejected `named`, later runs start with the form it accepts.
 */
const workingForm = new Map<string, ForcedToolChoiceMode>();

/** Forgets the remembered forms (tests start every server fresh). */
export function forgetForcedToolChoiceForms(): void {
  workingForm.clear();
}

/**
 * A model port over any OpenAI-compatible chat-completions server. Retries (429, 408, 409, 5xx,
 * connection errors and timeouts, with backoff) are the SDK's; 400/401/403 fail at once, except a
 * 400 naming `tool_choice` on a forced turn, which downgrades the form and tries again.
 */
export function createOpenAIModel(config: OpenAIModelConfig): ModelPort {
  const host = baseUrlHost(config.baseURL);
  const baseURL = config.baseURL ?? OPENAI_BASE_URL;
  const formKey = `${baseURL} ${config.model}`;
  const client = createOpenAIClient(config);

  /** One model call's requests, as the SDK sends them (its retries included). */
  const create = async (request: ModelRequest, form: ForcedToolChoiceMode, requests: RequestLog) => {
    requests.form = form;
    try {
      return await requests.client.chat.completions.create(buildBody(config, request, form), {
        signal: request.signal,
      });
    } catch (error) {
      throw toModelCallError(error, config, host, request.toolChoice === "auto");
    }
  };

  /** A forced turn: the pinned form, or the remembered one, downgraded on a 400 naming tool_choice. */
  const forced = async (request: ModelRequest, requests: RequestLog) => {
    if (config.forcedToolChoice) {
      return { completion: await create(request, config.forcedToolChoice, requests), form: null };
    }
    let at = DOWNGRADES.indexOf(workingForm.get(formKey) ?? "named");
    for (;;) {
      const form = DOWNGRADES[at]!;
      try {
        const completion = await create(request, form, requests);
        workingForm.set(formKey, form);
        return { completion, form };
      } catch (error) {
        if (!rejectsToolChoice(error) || at === DOWNGRADES.length - 1) throw error;
        at += 1;
      }
    }
  };

  return {
    info: { kind: "openai", name: config.model, baseUrlHost: host },
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const requests = requestLog(client, config, request.signal);
      let sent: Awaited<ReturnType<typeof forced>>;
      try {
        sent =
          request.toolChoice === "auto"
            ? { completion: await create(request, "named", requests), form: null }
            : await forced(request, requests);
      } catch (error) {
        throw withRequests(error, requests, config);
      }
      const { completion, form } = sent;
      const failedRequests = failedBefore(requests.attempts.slice(0, -1), requests.attempts.at(-1));
      const wrongShape = notAChatCompletion(completion);
      if (wrongShape) throw new ModelCallError(`${prefix(config, host)} ${wrongShape}`, config.model);
      const choice = completion.choices?.[0];
      if (!choice) throw new ModelCallError(`${prefix(config, host)} returned no choices`, config.model);
      const message = choice.message ?? {};
      const structured = (message.tool_calls ?? []).flatMap((call, i): ToolCall[] => {
        // Some servers leave out `type`; a call without a function is still a call (the engine
        // answers it with a tool error), never a crash here.
        if (call.type !== undefined && call.type !== "function") return [];
        const fn: { name?: unknown; arguments?: unknown } = ("function" in call && call.function) || {};
        return [
          {
            // Some local servers omit ids; the engine needs one per call to pair tool results.
            id: call.id || `call_${i}`,
            type: "function",
            function: { name: typeof fn.name === "string" ? fn.name : "", arguments: rawArguments(fn.arguments) },
          },
        ];
      });
      const { content, reasoning } = splitReasoning(message);
      // Only a response without structured calls is read for text ones: the text of a structured
      // call's arguments is never parsed for calls.
      const offered = request.tools.map((t) => t.function.name);
      const text = structured.length === 0 && offersTools(request) ? parseTextToolCalls(content, offered) : null;
      const reasoningTokens = completion.usage?.completion_tokens_details?.reasoning_tokens;
      return {
        // The prose beside text-written calls is the response's text, as beside structured calls.
        content: text ? text.prose || null : content,
        toolCalls: text
          ? text.calls.map((c) => ({
              // Empty: the engine gives each call a fresh run-unique id.
              id: "",
              type: "function",
              function: { name: c.name, arguments: c.arguments },
            }))
          : structured,
        finishReason: choice.finish_reason ?? "unknown",
        usage: {
          inputTokens: completion.usage?.prompt_tokens ?? 0,
          outputTokens: completion.usage?.completion_tokens ?? 0,
        },
        ...(reasoning ? { reasoning } : {}),
        ...(typeof reasoningTokens === "number" && reasoningTokens > 0 ? { reasoningTokens } : {}),
        ...(text ? { textToolCall: { format: text.format, calls: text.calls.length } } : {}),
        ...(failedRequests.length > 0 ? { failedRequests } : {}),
        ...(form && form !== "named" ? { warnings: [`forced_tool_choice_downgraded: named → ${form}`] } : {}),
      };
    },
  };
}

/** One request the SDK sent for a model call, and how it ended. */
interface Attempt {
  form: ForcedToolChoiceMode;
  ok: boolean;
  status: number | null;
  error: string | null;
  timedOut: boolean;
}

/** The requests of one model call: a client whose fetch records each one (the SDK's retries included). */
interface RequestLog {
  client: OpenAI;
  form: ForcedToolChoiceMode;
  attempts: Attempt[];
  startedAt: number;
}

function requestLog(client: OpenAI, config: OpenAIModelConfig, caller?: AbortSignal): RequestLog {
  const log: RequestLog = { client, form: "named", attempts: [], startedAt: Date.now() };
  const recording: typeof fetch = async (input, init) => {
    const attempt: Attempt = { form: log.form, ok: false, status: null, error: null, timedOut: false };
    log.attempts.push(attempt);
    try {
      // The whole body, under the per-call timeout and the size cap (wholeBodyFetch): a plain
      // fetch here let a server that sends headers and then a byte a second hold a run's call
      // until the run's wall clock.
      const res = await wholeBodyFetch(input, init);
      attempt.ok = res.ok;
      attempt.status = res.status;
      if (!res.ok) attempt.error = await statusLine(res, config.apiKey);
      return res;
    } catch (e) {
      // The SDK aborts a request it timed out; the caller's signal is a cancel.
      attempt.timedOut = init?.signal?.aborted === true && caller?.aborted !== true;
      attempt.error = attempt.timedOut
        ? `timed out after ${config.timeoutMs} ms`
        : caller?.aborted
          ? "request aborted"
          : `connection failed (${withoutKey(connectionCause(e instanceof Error ? e : new Error(String(e))), config.apiKey)})`;
      throw e;
    }
  };
  log.client = client.withOptions({ fetch: recording });
  return log;
}

/** "HTTP 503: overloaded": the status and the server's own explanation, key-free, one line. */
async function statusLine(res: Response, apiKey: string): Promise<string> {
  let detail = "";
  try {
    const text = await res.clone().text();
    try {
      const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
      const fromError = typeof body.error === "object" ? body.error?.message : body.error;
      detail = String(fromError ?? body.message ?? "");
    } catch {
      detail = text;
    }
  } catch {
    // The body could not be read: the status alone.
  }
  const shown = detail.trim() ? `: ${withoutKey(detail, apiKey)}` : "";
  return `HTTP ${res.status}${shown}`;
}

/** The failed requests before `last`: a request re-sent with another tool-choice form is a downgrade. */
function failedBefore(attempts: Attempt[], last: Attempt | undefined): FailedModelRequest[] {
  return attempts.map((a, k) => {
    const next = attempts[k + 1] ?? last;
    return {
      kind: next && next.form !== a.form ? ("downgrade" as const) : ("retry" as const),
      error: a.error ?? (a.status ? `HTTP ${a.status}` : "failed"),
      status: a.status,
    };
  });
}

/**
 * The call's error with the requests it made: the ones before the last as `failedRequests`, and a
 * time-out reported after retries says so (1,000 ms per request is not 4.9 s in all).
 */
function withRequests(error: unknown, log: RequestLog, config: OpenAIModelConfig): unknown {
  if (!(error instanceof ModelCallError)) return error;
  const attempts = log.attempts;
  if (attempts.length <= 1) return error;
  const last = attempts.at(-1)!;
  const failed = failedBefore(attempts.slice(0, -1), last);
  const seconds = ((Date.now() - log.startedAt) / 1000).toFixed(1);
  const message = last.timedOut
    ? `${error.message} per request; ${attempts.length} requests took ${seconds} s in all (the SDK retried ${attempts.length - 1} time${attempts.length === 2 ? "" : "s"})`
    : `${error.message} (after ${attempts.length} requests in ${seconds} s)`;
  return new ModelCallError(message, config.model, error.status, failed);
}

/** The SDK client for a configuration, reading vLLM-shaped error bodies (see BodyReadingOpenAI). */
export function createOpenAIClient(config: OpenAIModelConfig): OpenAI {
  return new BodyReadingOpenAI({
    apiKey: config.apiKey,
    // Explicit, so the SDK never falls back to reading OPENAI_BASE_URL itself.
    baseURL: config.baseURL ?? OPENAI_BASE_URL,
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    fetch: wholeBodyFetch,
  });
}

/**
 * The most a model server's response body may hold, unpacked. A chat completion is kilobytes (a
 * reasoning model's a few MB); a faulty or hostile server sending 100 MB would be held in memory,
 * stored in the run's events, packed on the server's one thread and drawn on the run page.
 */
export const MAX_MODEL_RESPONSE_BYTES = 32 * 1024 * 1024;

/** A response body past MAX_MODEL_RESPONSE_BYTES: refused, read no further. */
export class ModelResponseTooLargeError extends Error {
  constructor() {
    super(`the response is larger than ${MAX_MODEL_RESPONSE_BYTES / 1024 / 1024} MiB: refused, read no further`);
    this.name = "ModelResponseTooLargeError";
  }
}

/**
 * The SDK's timeout stops at the response headers: a server that sends them and then one byte a
 * second held a call (and `model check`) for minutes. Reading the whole body inside `fetch` puts it
 * under the same per-call timeout (the SDK aborts this fetch, body included, when it runs out).
 * No call here streams, so nothing is lost by reading the body at once.
 */
export async function wholeBodyFetch(url: string | URL | Request, init?: RequestInit): Promise<Response> {
  const res = await fetch(url, init);
  // The body's bytes (as fetch unpacked them), refused past the cap without reading on.
  const body = await readBounded(res.body, MAX_MODEL_RESPONSE_BYTES, () => new ModelResponseTooLargeError());
  return new Response(res.status === 204 || res.status === 304 ? null : body, {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
}

/**
 * The SDK reads a failed response's explanation only from `body.error`. vLLM and other
 * OpenAI-compatible servers answer with a top-level `{"object":"error","message":…}`, which the
 * SDK would report as "400 status code (no body)". Such a body is handed on as the error itself, so
 * the server's own message reaches the user and the tool-choice downgrade can read it.
 */
class BodyReadingOpenAI extends OpenAI {
  protected override makeStatusError(
    status: number,
    body: object,
    message: string | undefined,
    headers: Headers,
  ): InstanceType<typeof OpenAI.APIError> {
    const wrapped = body && typeof body === "object" && !("error" in body) ? { error: body } : body;
    return super.makeStatusError(status, wrapped, message, headers);
  }
}

const CHECK_BASE_URL = "check OPENAI_BASE_URL (an OpenAI-compatible server's usually ends in /v1)";

/**
 * What a 200 answer is when it is not a chat completion, or null when it is one. The SDK hands a
 * body that is not JSON back as a string: a web page at a wrong base URL (a missing `/v1`) would
 * otherwise be reported only as "no choices".
 */
export function notAChatCompletion(body: unknown): string | null {
  if (typeof body === "string") {
    return /^\s*</.test(body)
      ? `answered with an HTML page, not the chat-completions format: ${CHECK_BASE_URL}`
      : `answered with text that is not the chat-completions JSON: ${CHECK_BASE_URL}`;
  }
  if (typeof body !== "object" || body === null || !Array.isArray((body as { choices?: unknown }).choices)) {
    return `answered JSON without \`choices\`, not the chat-completions format: ${CHECK_BASE_URL}`;
  }
  return null;
}

/** A request the server accepted and never answered within the time-out. */
export function isTimeout(error: unknown): boolean {
  return error instanceof OpenAI.APIConnectionTimeoutError;
}

function offersTools(request: ModelRequest): boolean {
  return request.tools.length > 0;
}

function rejectsToolChoice(error: unknown): boolean {
  return error instanceof ModelCallError && error.status === 400 && /tool_choice/i.test(error.message);
}

function buildBody(
  config: OpenAIModelConfig,
  request: ModelRequest,
  form: ForcedToolChoiceMode,
): ChatCompletionCreateParamsNonStreaming {
  const forced = request.toolChoice === "auto" ? null : request.toolChoice.function.name;
  // A forced turn offers only the forced tool, so `required` and an omitted choice still force it.
  const tools = forced ? request.tools.filter((t) => t.function.name === forced) : request.tools;
  const toolChoice = tools.length > 0 ? wireToolChoice(request.toolChoice, form) : undefined;
  return {
    model: config.model,
    messages: request.messages,
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
  };
}

function wireToolChoice(choice: ToolChoice, mode: ForcedToolChoiceMode): ChatCompletionToolChoiceOption | undefined {
  if (choice === "auto") return "auto";
  if (mode === "named") return { type: "function", function: { name: choice.function.name } };
  if (mode === "required") return "required";
  return undefined;
}

// Non-conforming servers sometimes send arguments as an object; the engine expects the raw string.
function rawArguments(args: unknown): string {
  return typeof args === "string" ? args : JSON.stringify(args ?? {});
}

function prefix(config: OpenAIModelConfig, host: string): string {
  return `model ${config.model} at ${host}`;
}

/** A failed SDK call as the one-line, key-free error the rest of the app reports. */
export function toModelCallError(
  error: unknown,
  config: OpenAIModelConfig,
  host: string,
  /** The request was a free turn under `tool_choice: "auto"`. */
  autoTurn = false,
): ModelCallError {
  const head = prefix(config, host);
  if (error instanceof OpenAI.APIUserAbortError) return new ModelCallError(`${head}: request aborted`, config.model);
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new ModelCallError(`${head}: timed out after ${config.timeoutMs} ms`, config.model);
  }
  if (
    error instanceof OpenAI.APIConnectionError &&
    causesOf(error).some((e) => e instanceof ModelResponseTooLargeError)
  ) {
    return new ModelCallError(`${head}: ${new ModelResponseTooLargeError().message}`, config.model);
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return new ModelCallError(
      `${head}: connection failed (${withoutKey(connectionCause(error), config.apiKey)})`,
      config.model,
    );
  }
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    // The SDK's message starts with the status; keep only the server's explanation.
    const reason = withoutKey(error.message.replace(/^\d{3}\s*/, ""), config.apiKey);
    // A pinned named form is the user's choice: say how to change it.
    const refusesAuto = autoTurn && error.status === 400 && /tool[ _]choice/i.test(reason);
    const hint = refusesAuto
      ? " (the server refuses tool_choice \"auto\", which every run's free turns send; there is no other form to fall back to: enable automatic tool choice on the server, e.g. vLLM's --enable-auto-tool-choice --tool-call-parser; `model check` tests this)"
      : error.status === 400 && /tool_choice/i.test(reason) && config.forcedToolChoice === "named"
        ? " (set REFLECT_FORCED_TOOL_CHOICE=required or omit, or unset it to downgrade automatically)"
        : "";
    return new ModelCallError(`${head} failed with HTTP ${error.status}: ${reason}${hint}`, config.model, error.status);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelCallError(`${head} failed: ${withoutKey(message, config.apiKey)}`, config.model);
}

function causesOf(error: Error): unknown[] {
  const out: unknown[] = [];
  for (let at: unknown = error; at instanceof Error && out.length < 6; at = at.cause) out.push(at);
  return out;
}

/**
 * Why a connection failed: fetch wraps the socket's error ("connect ECONNREFUSED 127.0.0.1:8000",
 * "getaddrinfo ENOTFOUND host") in a bare "fetch failed"; the innermost message is the useful one.
 */
function connectionCause(error: Error): string {
  let message = error.message;
  let at: unknown = error.cause;
  for (let depth = 0; at instanceof Error && depth < 5; depth++) {
    message = at.message || message;
    at = at.cause;
  }
  return message;
}

/**
 * Keys that local servers accept whatever they are (their docs' examples): not secrets, and words
 * a message holds for other reasons ("model ollama/llama3 not found"), so never redacted.
 */
const PLACEHOLDER_KEYS = new Set([
  "ollama",
  "lm-studio",
  "lmstudio",
  "vllm",
  "empty",
  "none",
  "dummy",
  "placeholder",
  "not-needed",
  "no-key",
  "sk-no-key-required",
  "local",
  "key",
  "test",
]);
/** A key this long is a random credential: any text holding it leaks it. */
const LONG_KEY_CHARS = 16;

/**
 * The key as a credential in text: a long key wherever it appears; a short one only where it stands
 * as a token of its own (after "Bearer ", in `?key=…`, between quotes), so a word that merely holds
 * it stays readable; a well-known placeholder not at all.
 */
function redactKey(text: string, apiKey: string): string {
  if (PLACEHOLDER_KEYS.has(apiKey.toLowerCase()) || apiKey.length < 4) return text;
  if (apiKey.length >= LONG_KEY_CHARS) return text.split(apiKey).join("[redacted]");
  const escaped = apiKey.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return text.replace(new RegExp(`(?<![\\w.-])${escaped}(?![\\w-])`, "g"), "[redacted]");
}

/** One line, bounded, and never the key (servers echo it back, e.g. "Incorrect API key provided: sk-…"). */
export function withoutKey(text: string, apiKey: string): string {
  const scrubbed = redactKey(text, apiKey)
    .replace(/\bsk-[A-Za-z0-9_*-]{6,}/g, "[redacted]")
    .replace(/\s+/g, " ")
    .trim();
  return scrubbed.length > MAX_DETAIL_CHARS ? `${scrubbed.slice(0, MAX_DETAIL_CHARS)}…` : scrubbed || "no details";
}
