/**
 * The `done` call and the answer it carries (docs/engine.md#forced-retrieval-and-the-freshness-short-circuit, §3.5, §3.5b): whether a `done` is accepted
 * or sent back, the output guard with its one corrective retry, citation validation, the answer
 * cap, and the final forced turns (the last iteration, the synthesis after a halt). Every way a run
 * ends with an answer goes through here.
 */

import { capAnswer } from "./answer-limit";
import { callSignature } from "./call-signature";
import { validateCitations } from "./citations";
import { errorMessage, RunStop } from "./deadline";
import { digestCitations, evidenceDigest } from "./digest";
import {
  type Citations,
  citationCount,
  type DroppedCitation,
  ITERATIONS_BY_BUDGET,
  type RunStatus,
  TIER_INFO,
} from "./domain";
import { endWithoutEvidence, finishRun, noDoneMessage, noToolCallMessage, unreadTiers } from "./endings";
import { noTierIds } from "./events";
import { type ModelCall, parseJsonArgs, toolMessage, zodProblem } from "./execute";
import type { TurnResult } from "./ladder";
import { assistantMessage, forcedDone, type ModelTurns } from "./model-turns";
import { type GuardInspection, inspectAnswer } from "./output-guard";
import type { ModelResponse } from "./ports";
import type { PendingInjection } from "./prompt";
import type { ReflectResult } from "./request";
import type { RunContext } from "./run-context";
import { DoneArgs } from "./tools";

export type DoneOutcome = { kind: "finished"; result: ReflectResult } | { kind: "rejected"; turn: TurnResult[] };

/** Why a well-formed `done` is sent back to the model, as recorded in `guard.done_rejected`. */
interface Rejection {
  why: "no_evidence_yet" | "release_miss";
  message: string;
}

const GUARD_RETRY_HINT =
  "Your last answer contained model-internal formatting (channel markers, tool-call text or a JSON envelope). " +
  "Call done again with the answer as plain prose only, and the ids you used.";

export class DoneHandler {
  /** The release-miss guard sends a `done` back at most once per run. */
  private releaseMissUsed = false;

  constructor(
    private readonly run: RunContext,
    private readonly turns: ModelTurns,
  ) {}

  /**
   * A `done` inside the loop (under auto). Accepted, it wins over the other calls of its turn; a
   * malformed one, or one a rejection rule sends back, gets a tool error and the model another turn.
   */
  async handle(i: number, done: ModelCall, calls: ModelCall[]): Promise<DoneOutcome> {
    const { run } = this;
    const { args, rawArgs, problem } = await this.recordCall(i, done);
    if (args && calls.length === 1 && run.evidence.isEmpty && unreadTiers(run).length === 0) {
      // Every enabled tier was searched and came back empty: "nothing found" is the true answer,
      // and the run ends `no_evidence` on the model's own done (issue 27). A done beside searches
      // is sent back: those searches run first.
      await this.dropOtherCalls(i, done, calls);
      await this.emitDoneResult(i, done, rawArgs, null);
      return { kind: "finished", result: await endWithoutEvidence(run) };
    }
    const rejection = args ? this.rejection(args) : null;
    if (!args || rejection) {
      const message = rejection?.message ?? `invalid done arguments: ${problem}`;
      run.conversation.push(toolMessage(done, JSON.stringify({ error: message })));
      if (rejection) await run.log.emit("guard.done_rejected", { callId: done.id, why: rejection.why, message }, i);
      const signature = await this.emitDoneResult(i, done, rawArgs, message);
      return { kind: "rejected", turn: [{ signature, outcome: "error" }] };
    }
    await this.dropOtherCalls(i, done, calls);
    await this.emitDoneResult(i, done, rawArgs, null);
    return { kind: "finished", result: await this.answer(i, done, args, "done") };
  }

  /**
   * A final forced turn (the last iteration, or the synthesis after a halt) always ends the run. A
   * well-formed `done` is answered as usual; anything else (no tool call, another tool, malformed
   * arguments) keeps the evidence: the run ends `degraded` with the evidence digest (docs/engine.md#never-a-misleading-result).
   */
  async finalTurn(i: number, response: ModelResponse, calls: ModelCall[], base: "done" | "halted") {
    const { run } = this;
    if (calls.length > 0) run.conversation.push(assistantMessage(response, calls));
    const done = calls.find((c) => c.name === "done");
    if (!done) {
      const why = calls.length === 0 ? noToolCallMessage(run) : noDoneMessage(run, calls);
      return this.degrade(i, "no_done", why);
    }
    await this.dropOtherCalls(i, done, calls);
    const { args, rawArgs, problem } = await this.recordCall(i, done);
    if (!args) {
      const message = `invalid done arguments: ${problem}`;
      await this.emitDoneResult(i, done, rawArgs, message);
      return this.degrade(i, "malformed_done", `model "${run.deps.model.info.name}" sent ${message}`);
    }
    await this.emitDoneResult(i, done, rawArgs, null);
    return this.answer(i, done, args, base);
  }

  /** After a halt: one forced `done` over the evidence so far, or no call at all when there is none. */
  async afterHalt(i: number): Promise<ReflectResult> {
    if (this.run.evidence.isEmpty) return endWithoutEvidence(this.run);
    return this.finalCall(i, [], "halted");
  }

  /**
   * The model call of a final forced turn. A model error there (after the provider's own retries)
   * does not throw the evidence away: the run ends `degraded` with the digest, as for a malformed
   * final `done` (docs/engine.md#never-a-misleading-result). The wall clock and an interruption still end the run (docs/engine.md#iterations-and-budget).
   */
  async finalCall(i: number, pending: PendingInjection[], base: "done" | "halted"): Promise<ReflectResult> {
    const { run } = this;
    let response: ModelResponse;
    try {
      response = await this.turns.call(i, forcedDone(), pending);
    } catch (e) {
      if (e instanceof RunStop && (e.status === "interrupted" || e.wallClock)) throw e;
      return this.degrade(i, "model_error", `the final forced done failed: ${errorMessage(e)}`);
    }
    const calls = this.turns.readCalls(response);
    run.toolCallsSeen += calls.length;
    return this.finalTurn(i, response, calls, base);
  }

  // ---------- accepting or sending back ----------

  private async recordCall(i: number, done: ModelCall) {
    const decoded = decodeDone(done);
    await this.run.log.emit(
      "tool.call",
      { callId: done.id, tool: "done", tier: null, query: null, reason: null, args: decoded.rawArgs },
      i,
    );
    return decoded;
  }

  private async dropOtherCalls(i: number, done: ModelCall, calls: ModelCall[]): Promise<void> {
    const others = calls.filter((c) => c !== done);
    if (others.length === 0) return;
    await this.run.log.emit(
      "guard.calls_dropped",
      { reason: "done_wins", calls: others.map((c) => ({ id: c.id, name: c.name })) },
      i,
    );
    for (const c of others) {
      this.run.conversation.push(
        toolMessage(c, JSON.stringify({ error: "not executed: done was called in the same turn" })),
      );
    }
  }

  /** The rules that send a well-formed `done` back, in order. */
  private rejection(args: DoneArgs): Rejection | null {
    if (this.run.evidence.isEmpty) {
      const unread = unreadTiers(this.run).map((t) => `${TIER_INFO[t].label} (${TIER_INFO[t].tool})`);
      const message =
        unread.length === 0
          ? "done rejected: no evidence has been retrieved yet; the searches of this turn run first, then call done again."
          : `done rejected: no evidence has been retrieved yet and ${unread.join(", ")} ${unread.length === 1 ? "was" : "were"} never searched. Search ${unread.length === 1 ? "it" : "them"} first.`;
      return { why: "no_evidence_yet", message };
    }
    if (this.isReleaseMiss(args)) {
      this.releaseMissUsed = true;
      this.run.flags.add("release_miss");
      return {
        why: "release_miss",
        message:
          "done rejected: the answer cites none of the mental models you were given and no other evidence. " +
          `Search ${this.lowerTiers()} for the answer, then call done citing what you used.`,
      };
    }
    return null;
  }

  /** The tiers below mental models this run offers, as the release-miss text names them (never one it refuses). */
  private lowerTiers(): string {
    const lower = this.run.enabledTiers
      .filter((t) => t !== "mental_models")
      .map((t) => `${TIER_INFO[t].label} (${TIER_INFO[t].tool})`);
    return lower.length > 0 ? lower.join(" or ") : `mental models (${TIER_INFO.mental_models.tool})`;
  }

  /**
   * Released on fresh mental models, the answer cites no retrieved evidence at all. Any evidence
   * the run retrieved counts, a mental model the model found itself under auto included.
   */
  private isReleaseMiss(args: DoneArgs): boolean {
    const { released, evidence } = this.run;
    if (released === null || this.releaseMissUsed) return false;
    return citationCount(validateCitations(args, evidence).kept) === 0;
  }

  /** The `done` call's tool.result: accepted, or the error the model got back. Returns its ladder signature. */
  private async emitDoneResult(i: number, done: ModelCall, rawArgs: unknown, error: string | null): Promise<string> {
    const content = JSON.stringify(error === null ? { ok: true } : { error });
    const signature = callSignature("done", rawArgs, error);
    await this.run.log.emit(
      "tool.result",
      {
        callId: done.id,
        tool: "done",
        tier: null,
        outcome: error === null ? "success" : "error",
        ids: noTierIds(),
        count: 0,
        chars: content.length,
        cap: this.run.req.toolResultCapChars,
        truncated: false,
        durationMs: 0,
        error,
        signature,
        content,
      },
      i,
    );
    return signature;
  }

  // ---------- the answer ----------

  /** Output guard (with one retry), citation validation, the answer cap, run.finished. */
  private async answer(i: number, done: ModelCall, args: DoneArgs, base: "done" | "halted"): Promise<ReflectResult> {
    const { run } = this;
    const jsonExpected = run.req.skill.answerFormat === "json";
    let finalArgs = args;
    let inspection: GuardInspection = inspectAnswer(args.answer, { jsonExpected });
    if (inspection.kind === "leak") {
      // The retry is one more model call: never past the iteration budget (docs/engine.md#iterations-and-budget).
      if (i + 1 >= ITERATIONS_BY_BUDGET[run.req.budget]) {
        return this.degrade(
          i,
          inspection.pattern,
          `the answer leaked (${inspection.detail}) on the last iteration, which leaves no iteration for the corrective retry`,
        );
      }
      await run.log.emit(
        "guard.output",
        { pattern: inspection.pattern, action: "retry", detail: inspection.detail },
        i,
      );
      const retry = await this.guardRetry(i + 1, done);
      if ("failed" in retry) return this.degrade(i + 1, inspection.pattern, retry.failed);
      finalArgs = retry.args;
      inspection = inspectAnswer(retry.args.answer, { jsonExpected });
    }
    if (inspection.kind === "leak") {
      return this.degrade(i + 1, inspection.pattern, "the answer still leaked after the corrective retry");
    }
    if (inspection.kind === "recovered" || inspection.kind === "unwrapped") {
      await run.log.emit(
        "guard.output",
        { pattern: inspection.pattern, action: inspection.kind, detail: inspection.detail },
        run.iterations - 1,
      );
    }
    const check = validateCitations(finalArgs, run.evidence, inspection.text, run.req.question);
    await run.log.emit("citations.validated", check, run.iterations - 1);
    if (check.ungrounded) run.flags.add("ungrounded");
    return this.finish(base, inspection.text, check.kept, check.dropped);
  }

  /**
   * The answer could not be used: the evidence digest replaces it, status `degraded`. The digest
   * quotes its memories by id, and exactly those ids are its citations: valid, from the evidence.
   */
  private async degrade(i: number, pattern: string, detail: string): Promise<ReflectResult> {
    const { run } = this;
    await run.log.emit(
      "guard.output",
      { pattern, action: "degraded", detail: `${detail}; answer replaced by a digest of the retrieved memories` },
      i,
    );
    run.flags.add("degraded");
    const capped = capAnswer(evidenceDigest(run.req.question, run.evidence));
    if (capped.truncated) run.flags.add("truncated");
    const kept = digestCitations(capped.text, run.evidence);
    await run.log.emit("citations.validated", { kept, dropped: [], ungrounded: false }, run.iterations - 1);
    return this.finish("degraded", capped.text, kept, []);
  }

  private finish(status: RunStatus, answer: string, kept: Citations, dropped: DroppedCitation[]) {
    const capped = capAnswer(answer);
    if (capped.truncated) this.run.flags.add("truncated");
    return finishRun(this.run, status, capped.text, kept, dropped, null);
  }

  /**
   * The one corrective retry after a leaked answer: a forced `done` with a request-scoped hint. Its
   * arguments, when valid, replace the leaked ones. A retry that brings no usable `done` (model
   * error, another tool, malformed arguments) says which; the wall clock and an interruption still
   * end the run (docs/engine.md#iterations-and-budget).
   */
  private async guardRetry(i: number, done: ModelCall): Promise<{ args: DoneArgs } | { failed: string }> {
    const { run } = this;
    run.conversation.push(toolMessage(done, JSON.stringify({ error: GUARD_RETRY_HINT })));
    let retry: ModelResponse;
    try {
      retry = await this.turns.call(i, forcedDone(), [{ kind: "guard_retry", text: GUARD_RETRY_HINT }]);
    } catch (e) {
      if (e instanceof RunStop && (e.status === "interrupted" || e.wallClock)) throw e;
      return { failed: `the corrective retry failed: ${errorMessage(e)}` };
    }
    const calls = this.turns.readCalls(retry);
    run.toolCallsSeen += calls.length;
    if (calls.length > 0) run.conversation.push(assistantMessage(retry, calls));
    const retryDone = calls.find((c) => c.name === "done");
    if (!retryDone) {
      const why = calls.length === 0 ? noToolCallMessage(run) : noDoneMessage(run, calls);
      return { failed: `the corrective retry brought no done: ${why}` };
    }
    const { args, rawArgs, problem } = await this.recordCall(i, retryDone);
    const error = args ? null : `invalid done arguments: ${problem}`;
    await this.emitDoneResult(i, retryDone, rawArgs, error);
    return args ? { args } : { failed: `the corrective retry sent ${error}` };
  }
}

function decodeDone(call: ModelCall): { args: DoneArgs | null; rawArgs: unknown; problem: string } {
  const json = parseJsonArgs(call.arguments);
  if (!json.ok) return { args: null, rawArgs: call.arguments, problem: json.message };
  const parsed = DoneArgs.safeParse(json.value);
  return parsed.success
    ? { args: parsed.data, rawArgs: json.value, problem: "" }
    : { args: null, rawArgs: json.value, problem: zodProblem(parsed.error) };
}
