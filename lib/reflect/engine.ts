/**
 * The reflect loop (docs/engine.md#the-reflect-loop). One iteration = one model call. Forced hierarchical retrieval first,
 * released early by a fresh mental model; the no-progress ladder and the goal anchor steer; the
 * last iteration (or a halt) forces `done`, handled with the answer in done.ts.
 */
import { anchorText, isAnchorIteration } from "./anchor";
import { errorMessage, RunStop, withinDeadline } from "./deadline";
import { NO_EVIDENCE_ANSWER } from "./digest";
import { ITERATIONS_BY_BUDGET, TIER_INFO, TIER_REGISTRY, type Tier, tierForTool } from "./domain";
import { DoneHandler } from "./done";
import { endWithoutEvidence, failRun, stopRun } from "./endings";
import type { EventPayload } from "./events";
import { type ExecutedCall, executeCall, type ModelCall, prepareCall, toolMessage } from "./execute";
import { runFactsMode } from "./facts-mode";
import { decideFreshness } from "./freshness";
import { NO_TOOL_CALL_SIGNATURE, NoProgressLadder, type TurnResult } from "./ladder";
import { assistantMessage, ModelTurns, type Offer } from "./model-turns";
import type { ReflectDeps } from "./ports";
import {
  probeHitsOf,
  sameAsProbeSearch,
  searchKey,
  seenInFull,
  startEarlySearch,
  startQuestionSearches,
} from "./probe";
import { buildSystemPrompt, type PendingInjection } from "./prompt";
import {
  failedRunResult,
  type ReflectRequest,
  ReflectRequest as ReflectRequestSchema,
  type ReflectResult,
} from "./request";
import { type ReflectOptions, RunContext } from "./run-context";
import { RunLog } from "./run-log";
import { clampMaxResults } from "./tools";

export type { ReflectOptions };
export { NO_EVIDENCE_ANSWER };

export const RESPONSE_SCHEMA_WARNING = "responseSchema is deprecated and ignored";

/** The request-scoped hint after prose under auto (docs/engine.md#never-a-misleading-result). */
export const PROSE_HINT =
  "You replied with text and no tool call. Finish with done and the ids you used, or call a search tool if you still need evidence.";

export async function runReflect(
  deps: ReflectDeps,
  request: ReflectRequest,
  options: ReflectOptions = {},
): Promise<ReflectResult> {
  const req = ReflectRequestSchema.parse(request);
  const log = new RunLog(deps, req.runId, { wallClockMs: req.wallClockMs, signal: options.signal });
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
      warnings: [...warnings],
    });
  const run = () =>
    req.mode === "facts"
      ? runFactsMode(deps, req, log, warnings, runStarted, options.signal)
      : new ReflectLoop(new RunContext(deps, req, log, warnings, options)).start(runStarted);
  let result: ReflectResult;
  try {
    result = await run();
  } catch (e) {
    // The error is the news; what was emitted before it is still written when the store allows.
    await log.flush().catch(() => {});
    // The wall clock or a cancel overtook an event write before the run could end itself (a store
    // that hangs on the run's first event): the run still returns, with the reason.
    if (e instanceof RunStop) {
      const stopped = failedRunResult({ message: e.message, phase: e.phase });
      return { ...stopped, status: e.status, warnings: [...warnings] };
    }
    throw e;
  }
  // Flush point: the result is returned (and shown) only once the whole log, `run.finished`
  // included, is stored.
  await log.flush();
  return result;
}

class ReflectLoop {
  private readonly turns: ModelTurns;
  private readonly doneHandler: DoneHandler;
  private readonly ladder = new NoProgressLadder();
  private readonly maxIterations: number;
  private forcedQueue: Tier[] = [];
  private pendingNudge: string | null = null;
  /** The model wrote prose under auto: the next request reminds it how to finish. */
  private pendingProseHint = false;

  constructor(private readonly run: RunContext) {
    this.maxIterations = ITERATIONS_BY_BUDGET[run.req.budget];
    this.turns = new ModelTurns(run);
    this.doneHandler = new DoneHandler(run, this.turns);
  }

  async start(runStarted: (enabledTiers: Tier[], maxIterations: number) => Promise<void>): Promise<ReflectResult> {
    const { run } = this;
    run.phase = "setup (memory counts)";
    // Setup is inside the wall clock too: a hanging store never holds a run open.
    const setupFailed = (e: unknown) =>
      e instanceof RunStop ? stopRun(run, e) : failRun(run, errorMessage(e), run.phase);
    try {
      run.enabledTiers = await withinDeadline(run.deadline, () => this.resolveEnabledTiers());
      this.forcedQueue = [...run.enabledTiers];
    } catch (e) {
      await runStarted(run.enabledTiers, this.maxIterations);
      return setupFailed(e);
    }
    // Followers see the run start as soon as its tiers are known.
    await runStarted(run.enabledTiers, this.maxIterations);
    let inScope: number;
    try {
      inScope = await withinDeadline(run.deadline, async () => {
        const { bankId, scope } = run.req;
        const permitted = await run.deps.memory.permitsScope({ bankId, scope });
        run.system = buildSystemPrompt(run.req.skill, scope, run.enabledTiers, permitted);
        return run.deps.memory.countInScope({ bankId, scope });
      });
    } catch (e) {
      return setupFailed(e);
    }
    // Nothing the scope can read: answer before any model call.
    if (inScope === 0) return endWithoutEvidence(run, { nothingInScope: true });
    // The probe's searches of the question need nothing the run finds: they run while the model thinks.
    run.questionSearches = startQuestionSearches({
      memory: run.deps.memory,
      bankId: run.req.bankId,
      scope: run.req.scope,
      tags: run.req.skill.retrieval.tags,
      enabledTiers: run.enabledTiers,
      question: run.req.question,
    });
    try {
      return await this.loop();
    } catch (e) {
      if (e instanceof RunStop) return stopRun(run, e);
      return failRun(run, errorMessage(e), run.phase);
    }
  }

  private async loop(): Promise<ReflectResult> {
    const { run } = this;
    for (let i = 0; i < this.maxIterations; i++) {
      const isFinal = i === this.maxIterations - 1;
      if (isFinal && run.evidence.isEmpty) return endWithoutEvidence(run);
      if (isFinal) return this.doneHandler.finalCall(i, this.injectionsFor(i, isFinal, "done"), "done");
      const offer = this.offer();
      const response = await this.turns.call(i, offer, this.injectionsFor(i, isFinal, offer.forced));
      const calls = this.turns.readCalls(response);
      run.toolCallsSeen += calls.length;

      let turn: TurnResult[];
      if (calls.length === 0) {
        run.conversation.push({ role: "assistant", content: response.content ?? "" });
        turn = [{ signature: NO_TOOL_CALL_SIGNATURE, outcome: "error" }];
        if (offer.forced === null) this.pendingProseHint = true;
        else this.keepPending(offer);
      } else {
        run.conversation.push(assistantMessage(response, calls));
        const done = offer.forced === null ? calls.find((c) => c.name === "done") : undefined;
        if (done) {
          const outcome = await this.doneHandler.handle(i, done, calls);
          if (outcome.kind === "finished") return outcome.result;
          // A rejected done does not throw away the searches of its turn.
          const others = calls.filter((c) => c !== done);
          turn = [...outcome.turn, ...(others.length > 0 ? await this.executeTurn(i, others, offer) : [])];
        } else {
          turn = await this.executeTurn(i, calls, offer);
        }
      }

      const verdict = this.ladder.observe(i, turn, { forced: this.nextForced(i + 1) });
      if (verdict?.kind === "halt") {
        const { kind: _kind, ...payload } = verdict;
        await run.log.emit("steering.halt", payload, i);
        run.flags.add("halted");
        return this.doneHandler.afterHalt(i + 1);
      }
      if (verdict?.kind === "nudge") {
        const { kind: _kind, ...payload } = verdict;
        await run.log.emit("steering.nudge", payload, i);
        run.flags.add("nudged");
        this.pendingNudge = verdict.text;
      }
    }
    // The final iteration always returns; reaching here means maxIterations was 0.
    return endWithoutEvidence(run);
  }

  // ---------- enabled tiers, offers and injections ----------

  private async resolveEnabledTiers(): Promise<Tier[]> {
    const { req, deps } = this.run;
    const { types } = req.skill.retrieval;
    const hasMentalModels = (await deps.memory.countMentalModels(req.bankId)) > 0;
    return TIER_REGISTRY.filter((t) => (t.retrievalType === null ? hasMentalModels : types.includes(t.retrievalType)))
      .map((t) => t.id)
      .filter((t) => !req.excludeTiers.includes(t));
  }

  /** The next forced tier while forcing; then every enabled tier and `done` under auto. */
  private offer(): Offer {
    const next = this.run.released === null ? this.forcedQueue.shift() : undefined;
    if (next) return { tools: [TIER_INFO[next].tool], forced: TIER_INFO[next].tool };
    return { tools: [...this.run.enabledTiers.map((t) => TIER_INFO[t].tool), "done"], forced: null };
  }

  /** The tool iteration `next` will force (null under auto), without taking it from the queue. */
  private nextForced(next: number): string | null {
    if (next >= this.maxIterations - 1) return "done";
    const tier = this.run.released === null ? this.forcedQueue[0] : undefined;
    return tier ? TIER_INFO[tier].tool : null;
  }

  /** A forced tier whose tool never reached the store this turn is forced again next iteration. */
  private keepPending(offer: Offer): void {
    const tier = offer.forced ? tierForTool(offer.forced) : null;
    if (tier && this.run.released === null) this.forcedQueue.unshift(tier);
  }

  /** `forced`: the tool this request forces (null under auto); steering never contradicts it. */
  private injectionsFor(i: number, isFinal: boolean, forced: string | null): PendingInjection[] {
    const pending: PendingInjection[] = [];
    if (this.pendingNudge) pending.push({ kind: "nudge", text: this.pendingNudge });
    this.pendingNudge = null;
    if (this.pendingProseHint && !isFinal) pending.push({ kind: "prose_hint", text: PROSE_HINT });
    this.pendingProseHint = false;
    if (isAnchorIteration(i, this.run.req.anchorEvery, isFinal)) {
      pending.push({ kind: "anchor", text: anchorText(this.run.req.question, this.run.progressText, forced) });
    }
    return pending;
  }

  // ---------- tool turns ----------

  private async executeTurn(i: number, calls: ModelCall[], offer: Offer): Promise<TurnResult[]> {
    const available = this.run.enabledTiers.map((t) => TIER_INFO[t].tool);
    const prepared = calls.map((c) => prepareCall(c, available, offer.forced));
    this.run.phase = `tool.call (iteration ${i})`;
    for (const p of prepared) {
      if (p.query?.trim()) this.run.modelQueries.push(p.query);
      await this.run.log.emit(
        "tool.call",
        { callId: p.call.id, tool: p.call.name, tier: p.tier, query: p.query, reason: p.reason, args: p.args },
        i,
      );
    }
    const ctx = {
      memory: this.run.deps.memory,
      clock: this.run.deps.clock,
      bankId: this.run.req.bankId,
      scope: this.run.req.scope,
      tags: this.run.req.skill.retrieval.tags,
      cap: this.run.req.toolResultCapChars,
      available,
    };
    const executed = await this.turns.withinDeadline(() => Promise.all(prepared.map((p) => executeCall(ctx, p))));
    this.run.phase = `tool.result (iteration ${i})`;
    for (const r of executed) {
      this.run.conversation.push(toolMessage(r.prepared.call, r.content));
      await this.recordResult(i, r);
    }
    // A forced tool that reached the store and failed is not forced again (the model may retry it
    // under auto); the tier counts as unsearched until a search of it completes (endings.ts).
    if (offer.forced && !executed.some((r) => r.searched && r.prepared.call.name === offer.forced)) {
      this.keepPending(offer);
    }
    if (offer.forced === "search_mental_models" && this.run.released === null) {
      const searches = executed.filter((r) => r.searched && r.prepared.call.name === "search_mental_models");
      if (searches.length > 0) await this.checkFreshness(i, searches);
    }
    return executed.map((r) => ({ signature: r.signature, outcome: r.outcome }));
  }

  private async recordResult(i: number, r: ExecutedCall): Promise<void> {
    if (r.retrieved) this.run.evidence.add(r.retrieved);
    const { tier, search } = r.prepared;
    if (tier && search && r.returned) {
      const limit = clampMaxResults(tier, search.max_results);
      const returned = r.returned.hits.length;
      const key = searchKey(tier, search.query);
      if (r.retrieved && seenInFull({ limit, returned, seen: r.retrieved.hits.length })) {
        this.run.seenInFull.add(key);
      } else if (sameAsProbeSearch({ limit, returned })) {
        // The cap hid some of them: the probe reads this answer instead of asking the store again.
        this.run.runSearches.set(key, probeHitsOf(r.returned));
      } else if (!this.run.seenInFull.has(key) && !this.run.runSearches.has(key)) {
        // The probe must search this query itself: it starts now and runs while the model thinks.
        startEarlySearch(
          {
            memory: this.run.deps.memory,
            bankId: this.run.req.bankId,
            scope: this.run.req.scope,
            tags: this.run.req.skill.retrieval.tags,
            question: this.run.req.question,
            modelQueries: this.run.modelQueries,
          },
          { tier, query: search.query },
          this.run.questionSearches,
        );
      }
    }
    if (r.answered) {
      this.run.searchesCompleted += 1;
      if (tier) {
        this.run.failedSearches.delete(tier);
        this.run.searchedTiers.add(tier);
      }
    } else if (r.searched && r.error) {
      this.run.lastSearchError = r.error;
      if (tier) this.run.failedSearches.set(tier, r.error);
    }
    const payload: EventPayload<"tool.result"> = {
      callId: r.prepared.call.id,
      tool: r.prepared.call.name,
      tier: r.prepared.tier,
      outcome: r.outcome,
      ids: r.ids,
      count: r.count,
      chars: r.chars,
      cap: this.run.req.toolResultCapChars,
      truncated: r.truncated,
      durationMs: r.durationMs,
      error: r.error,
      signature: r.signature,
      content: r.content,
    };
    if (r.retrieved?.tier === "mental_models") {
      // A hit without an isStale flag counts as stale, as everywhere else (docs/engine.md#forced-retrieval-and-the-freshness-short-circuit).
      payload.mentalModels = r.retrieved.hits.map((m) => ({
        id: m.id,
        version: m.version,
        isStale: m.isStale !== false,
      }));
    }
    if (r.observationFreshness) {
      const { pending, freshness, isStale } = r.observationFreshness;
      payload.observationFreshness = { pending, freshness, isStale };
    }
    await this.run.log.emit("tool.result", payload, i);
  }

  /** One verdict per forced turn, over every model its searches returned; a failed search keeps forcing. */
  private async checkFreshness(i: number, searches: ExecutedCall[]): Promise<void> {
    // Every model the store returned is judged, also one the tool-result cap hid (docs/engine.md#forced-retrieval-and-the-freshness-short-circuit).
    const modelsOf = (r: ExecutedCall) => (r.returned?.tier === "mental_models" ? r.returned.hits : []);
    const byId = new Map(searches.flatMap(modelsOf).map((m) => [m.id, m]));
    const failed = searches.find((r) => !r.answered);
    const judged = decideFreshness(this.run.req.budget, [...byId.values()]);
    const decision = failed
      ? {
          ...judged,
          verdict: "keep_forcing" as const,
          why: `the mental-model search failed: ${failed.error ?? "error"}`,
        }
      : judged;
    await this.run.log.emit(
      "freshness.check",
      { budget: this.run.req.budget, models: decision.models, verdict: decision.verdict, why: decision.why },
      i,
    );
    if (decision.verdict === "release") {
      this.run.released = decision.models.map((m) => m.id);
      this.forcedQueue = [];
      this.run.flags.add("short_circuited");
    }
  }
}
