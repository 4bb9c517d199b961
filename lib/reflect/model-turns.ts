/**
 * One model call per iteration: the request as sent (with its request-scoped injections), a
 * replayed or live response raced against the wall clock and the caller's signal, and the
 * response as recorded. Shared by the loop and the done/answer handling (guard retry, halt).
 */
import { withinDeadline } from "./deadline";
import type { ToolName } from "./events";
import type { ModelCall } from "./execute";
import type { ChatMessage, FailedModelRequest, ModelRequest, ModelResponse, ToolCall } from "./ports";
import { buildMessages, type PendingInjection } from "./prompt";
import type { RunContext } from "./run-context";
import { normalizeToolName } from "./tool-names";
import { cutAtCodePoint, TOOL_DEFINITIONS } from "./tools";

/** The most reasoning text one `llm.response` keeps; its full length is recorded beside it. */
export const REASONING_CAP_CHARS = 16_000;

/**
 * Tool calls read from one model response; the rest are ignored, with a warning. Models call a
 * few tools at once; a faulty or hostile one sent 5,000 in one response, and each was a search
 * (all at once), two events and a message in every later request.
 */
export const MAX_CALLS_PER_RESPONSE = 16;

const FORMAT_WORDS = {
  hermes: "Hermes <tool_call> blocks",
  mistral: "Mistral [TOOL_CALLS]",
  bare_json: 'a bare {"name", "arguments"} object',
  harmony: "harmony to=functions.x text",
} as const;

/** The tools one request offers. */
export interface Offer {
  tools: ToolName[];
  /** The named tool of a forced turn, null under auto. */
  forced: ToolName | null;
}

/** The final turn, a guard retry and the synthesis after a halt offer only `done`, forced. */
export function forcedDone(): Offer {
  return { tools: ["done"], forced: "done" };
}

export class ModelTurns {
  private readonly callIds = new WeakMap<ModelResponse, ModelCall[]>();
  /** What the port threw on the current call, as it threw it. */
  private portError: unknown;

  constructor(private readonly run: RunContext) {}

  async call(i: number, offer: Offer, pending: PendingInjection[]): Promise<ModelResponse> {
    const { run } = this;
    const { messages, injections } = buildMessages(run.system, run.req.question, run.conversation, pending);
    run.phase = `llm.request (iteration ${i})`;
    run.iterations = i + 1;
    for (const injection of injections.filter((x) => x.kind === "anchor")) {
      run.flags.add("anchored");
      await run.log.emit(
        "steering.anchor",
        { text: injection.text, every: run.req.anchorEvery, progressText: run.progressText },
        i,
      );
    }
    await run.log.emit(
      "llm.request",
      {
        messages,
        tools: offer.tools,
        toolChoice: offer.forced ? { type: "forced", tool: offer.forced } : { type: "auto" },
        injections,
      },
      i,
    );

    const replay = run.options.replay;
    const replayed = replay && i < replay.forkAt ? replay.responses[i] : undefined;
    if (replayed) {
      run.flags.add("replayed");
      const response = wellFormed(replayed);
      await this.record(i, response, 0, true);
      return response;
    }

    // Flush point: what led to this call (the request above, the tool results in it) is stored
    // before the model is asked, and a run another process ended stops here (db/queries/runs.ts).
    await run.log.flush();
    const started = run.deps.clock.now();
    let response: ModelResponse;
    try {
      response = wellFormed(
        await this.complete({
          messages,
          tools: offer.tools.map((t) => TOOL_DEFINITIONS[t]),
          toolChoice: offer.forced ? { type: "function", function: { name: offer.forced } } : "auto",
        }),
      );
    } catch (e) {
      await this.recordFailedRequests(i, this.portError ?? e);
      throw e;
    }
    await this.recordFailedRequests(i, null, response.failedRequests);
    run.llmCalls += 1;
    for (const warning of response.warnings ?? []) {
      if (run.warn(warning)) await run.log.emit("llm.warning", { message: warning }, i);
    }
    run.usage.inputTokens += response.usage.inputTokens;
    run.usage.outputTokens += response.usage.outputTokens;
    await this.record(i, response, Math.max(0, run.deps.clock.now() - started), false);
    const text = response.textToolCall;
    if (text) {
      await run.log.emit(
        "guard.output",
        {
          pattern: "text_tool_call",
          action: "recovered",
          detail: `read ${text.calls} tool call${text.calls === 1 ? "" : "s"} the model wrote as text (${FORMAT_WORDS[text.format]})`,
          format: text.format,
        },
        i,
      );
    }
    return response;
  }

  /**
   * Every request of this iteration's model call is counted (issue 27): the ones that failed before
   * the answer (SDK retries, tool-choice downgrades), each with its own event, and the last one —
   * answered, or the failure the call ended on.
   */
  private async recordFailedRequests(i: number, error: unknown, before: unknown = undefined): Promise<void> {
    const { run } = this;
    const failed = failedRequestsOf(error === null ? before : (error as { failedRequests?: unknown })?.failedRequests);
    const all = error === null ? failed : [...failed, finalFailure(error)];
    run.modelRequests += failed.length + 1;
    let attempt = 0;
    for (const f of all) {
      attempt += 1;
      await run.log.emit("llm.request_failed", { attempt, kind: f.kind, error: f.error, status: f.status ?? null }, i);
    }
  }

  /** Normalized calls (the first MAX_CALLS_PER_RESPONSE); ids the model left out are generated once per response. */
  readCalls(response: ModelResponse): ModelCall[] {
    let calls = this.callIds.get(response);
    if (!calls) {
      calls = response.toolCalls.slice(0, MAX_CALLS_PER_RESPONSE).map((c) => {
        // Servers send broken calls (no function, no name, object arguments): each is still one
        // call, answered with a tool error, never a crash.
        const fn: Partial<ToolCall["function"]> = c?.function ?? {};
        const rawName = typeof fn.name === "string" ? fn.name : "";
        const args = fn.arguments;
        return {
          id: typeof c?.id === "string" && c.id.trim() ? c.id : this.run.deps.ids.next("call"),
          name: normalizeToolName(rawName),
          rawName,
          arguments: typeof args === "string" ? args : args === undefined || args === null ? "" : JSON.stringify(args),
        };
      });
      this.callIds.set(response, calls);
    }
    return calls;
  }

  /** Runs `work` (a model call or a turn's tool calls) against the wall-clock deadline and the caller's signal. */
  withinDeadline<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withinDeadline(this.run.deadline, work);
  }

  /** The model call, raced against the wall-clock deadline and the caller's signal. */
  private complete(request: Omit<ModelRequest, "signal">): Promise<ModelResponse> {
    this.portError = undefined;
    return this.withinDeadline(async (signal) => {
      try {
        return await this.run.deps.model.complete({ ...request, signal });
      } catch (e) {
        // The port's own error (its status, the requests it retried) before the deadline wraps it.
        this.portError = e;
        throw e;
      }
    });
  }

  private async record(i: number, response: ModelResponse, latencyMs: number, replayed: boolean): Promise<void> {
    const { run } = this;
    const text = response.content?.trim() ? response.content : null;
    // The anchor restates the latest note written beside tool calls; it stays until a new one.
    if (text && this.readCalls(response).length > 0) run.progressText = text.trim();
    run.phase = `llm.response (iteration ${i})`;
    await run.log.emit(
      "llm.response",
      {
        text: response.content,
        toolCalls: this.readCalls(response).map((c) => ({ ...c })),
        finishReason: response.finishReason,
        tokensIn: replayed ? 0 : response.usage.inputTokens,
        tokensOut: replayed ? 0 : response.usage.outputTokens,
        latencyMs,
        replayed,
        ...reasoningFields(response, replayed),
      },
      i,
    );
    const ignored = response.toolCalls.length - MAX_CALLS_PER_RESPONSE;
    if (ignored > 0) {
      const warning = `the model sent ${response.toolCalls.length} tool calls in one response: the first ${MAX_CALLS_PER_RESPONSE} were read, ${ignored} ignored`;
      if (run.warn(warning)) await run.log.emit("llm.warning", { message: warning }, i);
    }
  }
}

/** A port's failed requests, kept only where well-formed (a port may send anything). */
function failedRequestsOf(value: unknown): FailedModelRequest[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((f): FailedModelRequest[] => {
    if (f === null || typeof f !== "object") return [];
    const { kind, error, status } = f as Record<string, unknown>;
    if ((kind !== "retry" && kind !== "downgrade") || typeof error !== "string") return [];
    return [{ kind, error: firstLineOf(error), status: Number.isInteger(status) ? (status as number) : null }];
  });
}

/** The request a failed model call ended on. */
function finalFailure(error: unknown): { kind: "final"; error: string; status: number | null } {
  const status = (error as { status?: unknown })?.status;
  const message = error instanceof Error ? error.message : String(error);
  return { kind: "final", error: firstLineOf(message), status: Number.isInteger(status) ? (status as number) : null };
}

const firstLineOf = (text: string) => cutAtCodePoint(text.split("\n", 1)[0]!.trim(), 500);

/** The reasoning fields of `llm.response`, present only when the model sent reasoning (golden logs stay as they were). */
function reasoningFields(response: ModelResponse, replayed: boolean) {
  const reasoning = typeof response.reasoning === "string" && response.reasoning ? response.reasoning : null;
  const tokens = replayed ? undefined : response.reasoningTokens;
  return {
    ...(reasoning
      ? { reasoning: cutAtCodePoint(reasoning, REASONING_CAP_CHARS), reasoningChars: reasoning.length }
      : {}),
    ...(typeof tokens === "number" && Number.isInteger(tokens) && tokens > 0 ? { reasoningTokens: tokens } : {}),
  };
}

/** The assistant message a response adds to the conversation. */
export function assistantMessage(response: ModelResponse, calls: ModelCall[]): ChatMessage {
  return {
    role: "assistant",
    content: response.content,
    tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })),
  };
}

/**
 * A response with every field the engine reads: a port that leaves out `toolCalls`, `usage` or
 * `finishReason` gets none, zero and "unknown" instead of crashing the run.
 */
function wellFormed(response: ModelResponse): ModelResponse {
  const r: Partial<ModelResponse> = response ?? {};
  const usage: Partial<ModelResponse["usage"]> = r.usage ?? {};
  const count = (n: unknown) => (typeof n === "number" && Number.isFinite(n) && n >= 0 ? Math.trunc(n) : 0);
  return {
    ...r,
    content: typeof r.content === "string" ? r.content : null,
    toolCalls: Array.isArray(r.toolCalls) ? r.toolCalls : [],
    finishReason: typeof r.finishReason === "string" ? r.finishReason : "unknown",
    usage: { inputTokens: count(usage.inputTokens), outputTokens: count(usage.outputTokens) },
  };
}
