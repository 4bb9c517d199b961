/**
 * The reflect loop (SPEC §3). One iteration = one model call. Forced hierarchical retrieval first,
 * released early by a fresh mental model; the no-progress ladder and the goal anchor steer; the
 * last iteration (or a halt) forces `done`; citations and the output guard check the answer.
 */
import { anchorText, isAnchorIteration } from "./anchor";
import { validateCitations } from "./citations";
import { evidenceDigest, NO_EVIDENCE_ANSWER } from "./digest";
import type { Citations, DroppedCitation, RunFlag, RunStatus, Tier } from "./domain";
import { emptyCitations, ITERATIONS_BY_BUDGET, RUN_FLAGS, TIER_INFO, TIER_REGISTRY } from "./domain";
import { type EventPayload, noTierIds, type ToolName } from "./events";
import { Evidence } from "./evidence";
import {
  type ExecutedCall,
  executeCall,
  type ModelCall,
  parseJsonArgs,
  prepareCall,
  toolMessage,
  zodProblem,
} from "./execute";
import { runFactsMode } from "./facts-mode";
import { callSignature } from "./fingerprint";
import { decideFreshness } from "./freshness";
import { NO_TOOL_CALL_SIGNATURE, NoProgressLadder, type TurnResult } from "./ladder";
import { expectsJson, inspectAnswer } from "./output-guard";
import type { ChatMessage, ModelResponse, ReflectDeps } from "./ports";
import { buildMessages, buildSystemPrompt, type PendingInjection } from "./prompt";
import {
  type ParsedReflectRequest,
  type ReflectRequest,
  ReflectRequest as ReflectRequestSchema,
  type ReflectResult,
} from "./request";
import { RunLog } from "./run-log";
import { normalizeToolName } from "./tool-names";
import { DoneArgs, TOOL_DEFINITIONS } from "./tools";

export { NO_EVIDENCE_ANSWER };

export const RESPONSE_SCHEMA_WARNING = "responseSchema is deprecated and ignored";

export interface ReflectOptions {
  signal?: AbortSignal;
  /** Fork: iterations below `forkAt` reuse the parent's responses; later ones call the model live. */
  replay?: { forkAt: number; responses: ModelResponse[] };
}

export async function runReflect(
  deps: ReflectDeps,
  request: ReflectRequest,
  options: ReflectOptions = {},
): Promise<ReflectResult> {
  const req = ReflectRequestSchema.parse(request);
  const log = new RunLog(deps, req.runId);
  const warnings = req.responseSchema === undefined ? [] : [RESPONSE_SCHEMA_WARNING];
  const runStarted = (enabledTiers: Tier[], maxIterations: number) =>
    log.emit("run.started", {
      bankId: req.bankId,
      question: req.question,
      skill: req.skill,
      budget: req.budget,
      mode: req.mode,
      scope: req.scope,
      model: deps.model.info,
      maxIterations,
      anchorEvery: req.anchorEvery,
      enabledTiers,
      toolResultCapChars: req.toolResultCapChars,
      wallClockMs: req.wallClockMs,
      parentRunId: req.parentRunId,
      forkedAtIteration: req.forkedAtIteration,
      warnings,
    });
  if (req.mode === "facts") return runFactsMode(deps, req, log, warnings, runStarted);
  return new ReflectLoop(deps, req, log, warnings, options).run(runStarted);
}

/** Ends the run early with a receipt (model failure, wall clock, interruption). */
class RunStop extends Error {
  constructor(
    readonly status: "failed" | "interrupted",
    message: string,
    readonly phase: string,
  ) {
    super(message);
  }
}

interface Offer {
  tools: ToolName[];
  /** The named tool of a forced turn, null under auto. */
  forced: ToolName | null;
}

type DoneOutcome = { kind: "finished"; result: ReflectResult } | { kind: "rejected"; turn: TurnResult[] };

class ReflectLoop {
  private readonly conversation: ChatMessage[] = [];
  private readonly evidence = new Evidence();
  private readonly ladder = new NoProgressLadder();
  private readonly flags = new Set<RunFlag>();
  private readonly usage = { inputTokens: 0, outputTokens: 0 };
  private readonly maxIterations: number;
  private enabledTiers: Tier[] = [];
  private forcedQueue: Tier[] = [];
  private system = "";
  private llmCalls = 0;
  /** Tool calls the model made in the whole run; zero after real calls means it cannot call tools. */
  private toolCallsSeen = 0;
  private iterations = 0;
  private pendingNudge: string | null = null;
  private progressText: string | null = null;
  /** Mental models whose freshness released forced retrieval; null while forcing. */
  private released: string[] | null = null;
  private releaseMissUsed = false;
  private phase = "run.started";

  constructor(
    private readonly deps: ReflectDeps,
    private readonly req: ParsedReflectRequest,
    private readonly log: RunLog,
    private readonly warnings: string[],
    private readonly options: ReflectOptions,
  ) {
    this.maxIterations = ITERATIONS_BY_BUDGET[req.budget];
  }

  async run(runStarted: (enabledTiers: Tier[], maxIterations: number) => Promise<void>): Promise<ReflectResult> {
    let inScope: number;
    try {
      this.enabledTiers = await this.resolveEnabledTiers();
      this.forcedQueue = [...this.enabledTiers];
      this.system = buildSystemPrompt(this.req.skill, this.req.scope, this.enabledTiers);
      inScope = await this.deps.memory.countInScope({ bankId: this.req.bankId, scope: this.req.scope });
    } catch (e) {
      await runStarted(this.enabledTiers, this.maxIterations);
      return this.failed(errorMessage(e), "setup (memory counts)");
    }
    await runStarted(this.enabledTiers, this.maxIterations);
    // Nothing the scope can read: answer before any model call.
    if (inScope === 0) return this.noEvidence();
    try {
      return await this.loop();
    } catch (e) {
      if (e instanceof RunStop)
        return this.finish(e.status, "", emptyCitations(), [], { message: e.message, phase: e.phase });
      return this.failed(errorMessage(e), this.phase);
    }
  }

  private async loop(): Promise<ReflectResult> {
    for (let i = 0; i < this.maxIterations; i++) {
      const isFinal = i === this.maxIterations - 1;
      if (isFinal && this.evidence.isEmpty) return this.noEvidence();
      const offer = this.offerFor(isFinal);
      const response = await this.callModel(i, offer, this.injectionsFor(i, isFinal));
      const calls = this.readCalls(response);
      this.toolCallsSeen += calls.length;

      let turn: TurnResult[];
      if (calls.length === 0) {
        if (isFinal) return this.failed(this.noToolCallMessage(), `llm.response (iteration ${i})`);
        this.conversation.push({ role: "assistant", content: response.content ?? "" });
        turn = [{ signature: NO_TOOL_CALL_SIGNATURE, outcome: "error" }];
      } else {
        this.conversation.push(assistantMessage(response, calls));
        const done = calls.find((c) => c.name === "done");
        if (done) {
          const outcome = await this.handleDone(i, done, calls, isFinal ? "done" : null);
          if (outcome.kind === "finished") return outcome.result;
          turn = outcome.turn;
        } else if (isFinal) {
          return this.failed(this.noDoneMessage(calls), `llm.response (iteration ${i})`);
        } else {
          turn = await this.executeTurn(i, calls, offer);
        }
      }

      const verdict = this.ladder.observe(i, turn);
      if (verdict?.kind === "halt") {
        const { kind: _kind, ...payload } = verdict;
        await this.log.emit("steering.halt", payload, i);
        this.flags.add("halted");
        return this.synthesizeAfterHalt(i + 1);
      }
      if (verdict?.kind === "nudge") {
        const { kind: _kind, ...payload } = verdict;
        await this.log.emit("steering.nudge", payload, i);
        this.flags.add("nudged");
        this.pendingNudge = verdict.text;
      }
    }
    // The final iteration always returns; reaching here means maxIterations was 0.
    return this.noEvidence();
  }

  // ---------- enabled tiers and offers ----------

  private async resolveEnabledTiers(): Promise<Tier[]> {
    const { types } = this.req.skill.retrieval;
    const hasMentalModels = (await this.deps.memory.countMentalModels(this.req.bankId)) > 0;
    return TIER_REGISTRY.filter((t) => (t.retrievalType === null ? hasMentalModels : types.includes(t.retrievalType)))
      .map((t) => t.id)
      .filter((t) => !this.req.excludeTiers.includes(t));
  }

  private offerFor(isFinal: boolean): Offer {
    if (isFinal) return { tools: ["done"], forced: "done" };
    const next = this.released === null ? this.forcedQueue.shift() : undefined;
    if (next) return { tools: [TIER_INFO[next].tool], forced: TIER_INFO[next].tool };
    return { tools: [...this.enabledTiers.map((t) => TIER_INFO[t].tool), "done"], forced: null };
  }

  private injectionsFor(i: number, isFinal: boolean): PendingInjection[] {
    const pending: PendingInjection[] = [];
    if (this.pendingNudge) pending.push({ kind: "nudge", text: this.pendingNudge });
    this.pendingNudge = null;
    if (isAnchorIteration(i, this.req.anchorEvery, isFinal)) {
      pending.push({ kind: "anchor", text: anchorText(this.req.question, this.progressText) });
    }
    return pending;
  }

  // ---------- the model call ----------

  private async callModel(i: number, offer: Offer, pending: PendingInjection[]): Promise<ModelResponse> {
    const { messages, injections } = buildMessages(this.system, this.req.question, this.conversation, pending);
    this.phase = `llm.request (iteration ${i})`;
    this.iterations = i + 1;
    for (const injection of injections.filter((x) => x.kind === "anchor")) {
      this.flags.add("anchored");
      await this.log.emit(
        "steering.anchor",
        { text: injection.text, every: this.req.anchorEvery, progressText: this.progressText },
        i,
      );
    }
    await this.log.emit(
      "llm.request",
      {
        messages,
        tools: offer.tools,
        toolChoice: offer.forced ? { type: "forced", tool: offer.forced } : { type: "auto" },
        injections,
      },
      i,
    );

    const replay = this.options.replay;
    const replayed = replay && i < replay.forkAt ? replay.responses[i] : undefined;
    if (replayed) {
      this.flags.add("replayed");
      await this.recordResponse(i, replayed, 0, true);
      return replayed;
    }

    const started = this.deps.clock.now();
    const response = await this.completeWithDeadline({
      messages,
      tools: offer.tools.map((t) => TOOL_DEFINITIONS[t]),
      toolChoice: offer.forced ? { type: "function", function: { name: offer.forced } } : "auto",
    });
    this.llmCalls += 1;
    this.usage.inputTokens += response.usage.inputTokens;
    this.usage.outputTokens += response.usage.outputTokens;
    await this.recordResponse(i, response, Math.max(0, this.deps.clock.now() - started), false);
    return response;
  }

  /** The model call, raced against the wall-clock deadline and the caller's signal. */
  private completeWithDeadline(request: Omit<Parameters<ReflectDeps["model"]["complete"]>[0], "signal">) {
    return this.withinDeadline((signal) => this.deps.model.complete({ ...request, signal }));
  }

  /**
   * Runs `work` (a model call or a turn's tool calls) against the wall-clock deadline and the
   * caller's signal; `work` gets an AbortSignal that fires when either ends the run.
   */
  private async withinDeadline<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const remaining = this.req.wallClockMs - this.log.elapsed();
    if (remaining <= 0) throw this.wallClockStop();
    const outer = this.options.signal;
    if (outer?.aborted) throw new RunStop("interrupted", "run interrupted", this.phase);
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(this.wallClockStop());
      }, remaining);
      onAbort = () => {
        controller.abort();
        reject(new RunStop("interrupted", "run interrupted", this.phase));
      };
      outer?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([work(controller.signal), stop]);
    } catch (e) {
      if (e instanceof RunStop) throw e;
      throw new RunStop("failed", errorMessage(e), this.phase);
    } finally {
      clearTimeout(timer);
      if (onAbort) outer?.removeEventListener("abort", onAbort);
    }
  }

  private wallClockStop(): RunStop {
    return new RunStop("failed", `wall-clock limit of ${this.req.wallClockMs} ms reached`, this.phase);
  }

  private async recordResponse(i: number, response: ModelResponse, latencyMs: number, replayed: boolean) {
    const text = response.content?.trim() ? response.content : null;
    // The anchor restates the latest note written beside tool calls; it stays until a new one.
    if (text && this.readCalls(response).length > 0) this.progressText = text.trim();
    this.phase = `llm.response (iteration ${i})`;
    await this.log.emit(
      "llm.response",
      {
        text: response.content,
        toolCalls: this.readCalls(response).map((c) => ({ ...c })),
        finishReason: response.finishReason,
        tokensIn: replayed ? 0 : response.usage.inputTokens,
        tokensOut: replayed ? 0 : response.usage.outputTokens,
        latencyMs,
        replayed,
      },
      i,
    );
  }

  private readonly callIds = new WeakMap<ModelResponse, ModelCall[]>();

  /** Normalized calls; ids the model left out are generated once per response. */
  private readCalls(response: ModelResponse): ModelCall[] {
    let calls = this.callIds.get(response);
    if (!calls) {
      calls = response.toolCalls.map((c) => ({
        id: c.id?.trim() ? c.id : this.deps.ids.next("call"),
        name: normalizeToolName(c.function.name),
        rawName: c.function.name,
        arguments: c.function.arguments ?? "",
      }));
      this.callIds.set(response, calls);
    }
    return calls;
  }

  // ---------- tool turns ----------

  private async executeTurn(i: number, calls: ModelCall[], offer: Offer): Promise<TurnResult[]> {
    const available = this.enabledTiers.map((t) => TIER_INFO[t].tool);
    const prepared = calls.map((c) => prepareCall(c, available));
    this.phase = `tool.call (iteration ${i})`;
    for (const p of prepared) {
      await this.log.emit(
        "tool.call",
        { callId: p.call.id, tool: p.call.name, tier: p.tier, query: p.query, reason: p.reason, args: p.args },
        i,
      );
    }
    const ctx = {
      memory: this.deps.memory,
      clock: this.deps.clock,
      bankId: this.req.bankId,
      scope: this.req.scope,
      tags: this.req.skill.retrieval.tags,
      cap: this.req.toolResultCapChars,
      available,
    };
    const executed = await this.withinDeadline(() => Promise.all(prepared.map((p) => executeCall(ctx, p))));
    this.phase = `tool.result (iteration ${i})`;
    for (const r of executed) {
      this.conversation.push(toolMessage(r.prepared.call, r.content));
      await this.recordResult(i, r);
    }
    if (offer.forced === "search_mental_models" && this.released === null) {
      const searches = executed.filter((r) => r.prepared.call.name === "search_mental_models");
      if (searches.length > 0) await this.checkFreshness(i, searches);
    }
    return executed.map((r) => ({ signature: r.signature, outcome: r.outcome }));
  }

  private async recordResult(i: number, r: ExecutedCall): Promise<void> {
    if (r.retrieved) this.evidence.add(r.retrieved);
    const payload: EventPayload<"tool.result"> = {
      callId: r.prepared.call.id,
      tool: r.prepared.call.name,
      tier: r.prepared.tier,
      outcome: r.outcome,
      ids: r.ids,
      count: r.count,
      chars: r.chars,
      cap: this.req.toolResultCapChars,
      truncated: r.truncated,
      durationMs: r.durationMs,
      error: r.error,
      signature: r.signature,
      content: r.content,
    };
    if (r.retrieved?.tier === "mental_models") {
      payload.mentalModels = r.retrieved.hits.map((m) => ({ id: m.id, version: m.version, isStale: m.isStale }));
    }
    if (r.observationFreshness) {
      const { pending, freshness, isStale } = r.observationFreshness;
      payload.observationFreshness = { pending, freshness, isStale };
    }
    await this.log.emit("tool.result", payload, i);
  }

  /** One verdict per forced turn, over every model its searches returned; a failed search keeps forcing. */
  private async checkFreshness(i: number, searches: ExecutedCall[]): Promise<void> {
    const modelsOf = (r: ExecutedCall) => (r.retrieved?.tier === "mental_models" ? r.retrieved.hits : null);
    const byId = new Map(searches.flatMap((r) => modelsOf(r) ?? []).map((m) => [m.id, m]));
    const failed = searches.find((r) => !modelsOf(r));
    const judged = decideFreshness(this.req.budget, [...byId.values()]);
    const decision = failed
      ? {
          ...judged,
          verdict: "keep_forcing" as const,
          why: `the mental-model search failed: ${failed.error ?? "error"}`,
        }
      : judged;
    await this.log.emit(
      "freshness.check",
      { budget: this.req.budget, models: decision.models, verdict: decision.verdict, why: decision.why },
      i,
    );
    if (decision.verdict === "release") {
      this.released = decision.models.map((m) => m.id);
      this.forcedQueue = [];
      this.flags.add("short_circuited");
    }
  }

  // ---------- done ----------

  /**
   * `done` wins over the other calls of its turn. Rejected (with a tool error) when no evidence
   * exists yet or on a release miss; `finalStatus` set means it cannot be rejected any more.
   */
  private async handleDone(
    i: number,
    done: ModelCall,
    calls: ModelCall[],
    finalStatus: "done" | "halted" | null,
  ): Promise<DoneOutcome> {
    const others = calls.filter((c) => c !== done);
    if (others.length > 0) {
      await this.log.emit(
        "guard.calls_dropped",
        { reason: "done_wins", calls: others.map((c) => ({ id: c.id, name: c.name })) },
        i,
      );
      for (const c of others) {
        this.conversation.push(
          toolMessage(c, JSON.stringify({ error: "not executed: done was called in the same turn" })),
        );
      }
    }
    const { args, rawArgs, problem } = decodeDone(done);
    await this.log.emit(
      "tool.call",
      { callId: done.id, tool: "done", tier: null, query: null, reason: null, args: rawArgs },
      i,
    );

    const rejection = args
      ? this.doneRejection(args, finalStatus)
      : { message: `invalid done arguments: ${problem}`, why: null };
    if (!args || rejection) {
      const { message, why } = rejection ?? { message: "invalid done arguments", why: null };
      const content = JSON.stringify({ error: message });
      this.conversation.push(toolMessage(done, content));
      if (why) await this.log.emit("guard.done_rejected", { callId: done.id, why, message }, i);
      const signature = callSignature("done", rawArgs, message);
      await this.emitDoneResult(i, done, "error", message, signature, content);
      if (finalStatus === null) return { kind: "rejected", turn: [{ signature, outcome: "error" }] };
      const failed = await this.failed(`model "${this.deps.model.info.name}" ${message}`, `done (iteration ${i})`);
      return { kind: "finished", result: failed };
    }

    const accepted = JSON.stringify({ ok: true });
    await this.emitDoneResult(i, done, "success", null, callSignature("done", rawArgs, null), accepted);
    return { kind: "finished", result: await this.complete(i, done, args, finalStatus ?? "done") };
  }

  /** Why a well-formed `done` is sent back; never on a final turn (`finalStatus` set). */
  private doneRejection(
    args: DoneArgs,
    finalStatus: "done" | "halted" | null,
  ): { message: string; why: "no_evidence_yet" | "release_miss" } | null {
    if (finalStatus !== null) return null;
    if (this.evidence.isEmpty) {
      return {
        message: "done rejected: no evidence has been retrieved yet. Search the memory tiers first.",
        why: "no_evidence_yet",
      };
    }
    if (!this.isReleaseMiss(args)) return null;
    this.releaseMissUsed = true;
    this.flags.add("release_miss");
    return {
      message:
        "done rejected: the answer cites none of the mental models you were given and no other evidence. " +
        "Search observations (search_observations) or raw facts (recall) for the answer, then call done citing what you used.",
      why: "release_miss",
    };
  }

  private isReleaseMiss(args: DoneArgs): boolean {
    if (this.released === null || this.releaseMissUsed) return false;
    const released = this.released;
    const citesReleased = args.mental_model_ids.some((id) => released.includes(id));
    const citesLower =
      args.observation_ids.some((id) => this.evidence.has("observations", id)) ||
      args.memory_ids.some((id) => this.evidence.has("raw_facts", id));
    return !citesReleased && !citesLower;
  }

  private async emitDoneResult(
    i: number,
    done: ModelCall,
    outcome: "success" | "error",
    error: string | null,
    signature: string,
    content: string,
  ) {
    await this.log.emit(
      "tool.result",
      {
        callId: done.id,
        tool: "done",
        tier: null,
        outcome,
        ids: noTierIds(),
        count: 0,
        chars: content.length,
        cap: this.req.toolResultCapChars,
        truncated: false,
        durationMs: 0,
        error,
        signature,
        content,
      },
      i,
    );
  }

  /** Output guard (with one retry), citation validation, run.finished. */
  private async complete(i: number, done: ModelCall, args: DoneArgs, base: "done" | "halted"): Promise<ReflectResult> {
    const jsonExpected = expectsJson(this.req.skill.outputFormat);
    let finalArgs = args;
    let answer: string | null = null;
    let status: RunStatus = base;
    let inspection = inspectAnswer(args.answer, { jsonExpected });
    if (inspection.kind === "leak") {
      await this.log.emit(
        "guard.output",
        { pattern: inspection.pattern, action: "retry", detail: inspection.detail },
        i,
      );
      const hint =
        "Your last answer contained model-internal formatting (channel markers, tool-call text or a JSON envelope). " +
        "Call done again with the answer as plain prose only, and the ids you used.";
      this.conversation.push(toolMessage(done, JSON.stringify({ error: hint })));
      // A retry that fails outright (model error, deadline) degrades like a retry that leaks again.
      const retry = await this.callModel(i + 1, { tools: ["done"], forced: "done" }, [
        { kind: "guard_retry", text: hint },
      ]).catch((e: unknown) => {
        if (e instanceof RunStop && e.status === "interrupted") throw e;
        return null;
      });
      const retryCalls = retry ? this.readCalls(retry) : [];
      const retryDone = retryCalls.find((c) => c.name === "done");
      const retryArgs = retryDone ? await this.recordRetryDone(i + 1, retryDone) : null;
      if (retryArgs) {
        finalArgs = retryArgs;
        inspection = inspectAnswer(retryArgs.answer, { jsonExpected });
      }
      if (inspection.kind === "leak") {
        await this.log.emit(
          "guard.output",
          {
            pattern: inspection.pattern,
            action: "degraded",
            detail: "answer replaced by a digest of the retrieved memories",
          },
          i + 1,
        );
        answer = evidenceDigest(this.req.question, this.evidence);
        status = "degraded";
        this.flags.add("degraded");
      }
    }
    if (inspection.kind === "recovered" || inspection.kind === "unwrapped") {
      await this.log.emit(
        "guard.output",
        { pattern: inspection.pattern, action: inspection.kind, detail: inspection.detail },
        this.iterations - 1,
      );
    }
    if (answer === null && inspection.kind !== "leak") answer = inspection.text;

    const check = validateCitations(finalArgs, this.evidence);
    await this.log.emit("citations.validated", check, this.iterations - 1);
    if (check.ungrounded) this.flags.add("ungrounded");
    return this.finish(
      status,
      answer ?? evidenceDigest(this.req.question, this.evidence),
      check.kept,
      check.dropped,
      null,
    );
  }

  /** The guard retry's `done`: recorded like any tool call; its arguments, when valid, replace the leaked ones. */
  private async recordRetryDone(i: number, call: ModelCall): Promise<DoneArgs | null> {
    const { args, rawArgs, problem } = decodeDone(call);
    await this.log.emit(
      "tool.call",
      { callId: call.id, tool: "done", tier: null, query: null, reason: null, args: rawArgs },
      i,
    );
    const error = args ? null : `invalid done arguments: ${problem}`;
    const content = JSON.stringify(args ? { ok: true } : { error });
    await this.emitDoneResult(
      i,
      call,
      args ? "success" : "error",
      error,
      callSignature("done", rawArgs, error),
      content,
    );
    return args;
  }

  /** After a halt: one forced `done` over the evidence so far, or no call at all when there is none. */
  private async synthesizeAfterHalt(i: number): Promise<ReflectResult> {
    if (this.evidence.isEmpty) return this.noEvidence();
    const response = await this.callModel(i, { tools: ["done"], forced: "done" }, []);
    const calls = this.readCalls(response);
    const done = calls.find((c) => c.name === "done");
    if (!done) {
      const message = calls.length === 0 ? this.noToolCallMessage() : this.noDoneMessage(calls);
      return this.failed(message, `llm.response (iteration ${i})`);
    }
    this.conversation.push(assistantMessage(response, calls));
    const outcome = await this.handleDone(i, done, calls, "halted");
    if (outcome.kind === "finished") return outcome.result;
    return this.failed("done rejected after halt", this.phase);
  }

  // ---------- endings ----------

  private noToolCallMessage(): string {
    return `model "${this.deps.model.info.name}" returned no tool call on the forced final turn`;
  }

  private noDoneMessage(calls: ModelCall[]): string {
    return `model "${this.deps.model.info.name}" did not call done on the forced final turn (called ${calls.map((c) => c.name).join(", ")})`;
  }

  private noEvidence(): Promise<ReflectResult> {
    // A model that ignored every forced tool choice found nothing because it never searched:
    // that is a model problem to report, not an empty bank.
    if (this.llmCalls > 0 && this.toolCallsSeen === 0) {
      return this.failed(
        `model "${this.deps.model.info.name}" never called a tool in ${this.llmCalls} call(s); it may not support function calling (try REFLECT_FORCED_TOOL_CHOICE=required or omit)`,
        this.phase,
      );
    }
    return this.finish("no_evidence", NO_EVIDENCE_ANSWER, emptyCitations(), [], null);
  }

  private failed(message: string, phase: string): Promise<ReflectResult> {
    return this.finish("failed", "", emptyCitations(), [], { message, phase });
  }

  private async finish(
    status: RunStatus,
    answer: string,
    citations: Citations,
    dropped: DroppedCitation[],
    error: { message: string; phase: string } | null,
  ): Promise<ReflectResult> {
    const result: ReflectResult = {
      status,
      answer,
      citations,
      dropped,
      flags: RUN_FLAGS.filter((f) => this.flags.has(f)),
      usage: { ...this.usage },
      llmCalls: this.llmCalls,
      iterations: this.iterations,
      warnings: this.warnings,
      error,
    };
    await this.log.emit("run.finished", result);
    return result;
  }
}

function assistantMessage(response: ModelResponse, calls: ModelCall[]): ChatMessage {
  return {
    role: "assistant",
    content: response.content,
    tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })),
  };
}

function decodeDone(call: ModelCall): { args: DoneArgs | null; rawArgs: unknown; problem: string } {
  const json = parseJsonArgs(call.arguments);
  if (!json.ok) return { args: null, rawArgs: call.arguments, problem: json.message };
  const parsed = DoneArgs.safeParse(json.value);
  return parsed.success
    ? { args: parsed.data, rawArgs: json.value, problem: "" }
    : { args: null, rawArgs: json.value, problem: zodProblem(parsed.error) };
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
