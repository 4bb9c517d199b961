/**
 * The `done` call and the answer it carries (SPEC §3.3, §3.5): whether a `done` is accepted or sent
 * back, the output guard with its one corrective retry, citation validation, and the forced `done`
 * after a halt. Every way a run ends with an answer goes through here.
 */

import { callSignature } from "./call-signature";
import { validateCitations } from "./citations";
import { evidenceDigest } from "./digest";
import type { RunStatus } from "./domain";
import { endWithoutEvidence, failRun, finishRun, noDoneMessage, noToolCallMessage, RunStop } from "./endings";
import { noTierIds } from "./events";
import { type ModelCall, parseJsonArgs, toolMessage, zodProblem } from "./execute";
import type { TurnResult } from "./ladder";
import { assistantMessage, forcedDone, type ModelTurns } from "./model-turns";
import { expectsJson, type GuardInspection, inspectAnswer } from "./output-guard";
import type { ReflectResult } from "./request";
import type { RunContext } from "./run-context";
import { DoneArgs } from "./tools";

/**
 * Where a `done` arrived. Inside the loop it may be sent back (the model gets another turn); on a
 * final forced turn (the last iteration, or the synthesis after a halt) it must end the run.
 */
export type DoneTurn = { kind: "loop" } | { kind: "final"; status: "done" | "halted" };

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
   * `done` wins over the other calls of its turn. A malformed `done`, or one a rejection rule sends
   * back, gets a tool error; on a final turn that ends the run as failed instead.
   */
  async handle(i: number, done: ModelCall, calls: ModelCall[], turn: DoneTurn): Promise<DoneOutcome> {
    const { run } = this;
    await this.dropOtherCalls(i, done, calls);
    const { args, rawArgs, problem } = decodeDone(done);
    await run.log.emit(
      "tool.call",
      { callId: done.id, tool: "done", tier: null, query: null, reason: null, args: rawArgs },
      i,
    );

    const rejection = args ? this.rejection(args, turn) : null;
    if (!args || rejection) {
      const message = rejection?.message ?? `invalid done arguments: ${problem}`;
      const content = JSON.stringify({ error: message });
      run.conversation.push(toolMessage(done, content));
      if (rejection) await run.log.emit("guard.done_rejected", { callId: done.id, why: rejection.why, message }, i);
      const signature = callSignature("done", rawArgs, message);
      await this.emitDoneResult(i, done, "error", message, signature, content);
      if (turn.kind === "loop") return { kind: "rejected", turn: [{ signature, outcome: "error" }] };
      const failed = await failRun(run, `model "${run.deps.model.info.name}" ${message}`, `done (iteration ${i})`);
      return { kind: "finished", result: failed };
    }

    const accepted = JSON.stringify({ ok: true });
    await this.emitDoneResult(i, done, "success", null, callSignature("done", rawArgs, null), accepted);
    const status = turn.kind === "final" ? turn.status : "done";
    return { kind: "finished", result: await this.answer(i, done, args, status) };
  }

  /** After a halt: one forced `done` over the evidence so far, or no call at all when there is none. */
  async afterHalt(i: number): Promise<ReflectResult> {
    const { run } = this;
    if (run.evidence.isEmpty) return endWithoutEvidence(run);
    const response = await this.turns.call(i, forcedDone(), []);
    const calls = this.turns.readCalls(response);
    const done = calls.find((c) => c.name === "done");
    if (!done) {
      const message = calls.length === 0 ? noToolCallMessage(run) : noDoneMessage(run, calls);
      return failRun(run, message, `llm.response (iteration ${i})`);
    }
    run.conversation.push(assistantMessage(response, calls));
    const outcome = await this.handle(i, done, calls, { kind: "final", status: "halted" });
    if (outcome.kind === "finished") return outcome.result;
    return failRun(run, "done rejected after halt", run.phase);
  }

  // ---------- accepting or sending back ----------

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

  /** The rules that send a well-formed `done` back, in order; none applies on a final turn. */
  private rejection(args: DoneArgs, turn: DoneTurn): Rejection | null {
    if (turn.kind === "final") return null;
    if (this.run.evidence.isEmpty) {
      return {
        why: "no_evidence_yet",
        message: "done rejected: no evidence has been retrieved yet. Search the memory tiers first.",
      };
    }
    if (this.isReleaseMiss(args)) {
      this.releaseMissUsed = true;
      this.run.flags.add("release_miss");
      return {
        why: "release_miss",
        message:
          "done rejected: the answer cites none of the mental models you were given and no other evidence. " +
          "Search observations (search_observations) or raw facts (recall) for the answer, then call done citing what you used.",
      };
    }
    return null;
  }

  /** Released on fresh mental models, the answer cites none of them and no lower-tier evidence. */
  private isReleaseMiss(args: DoneArgs): boolean {
    const { released, evidence } = this.run;
    if (released === null || this.releaseMissUsed) return false;
    const citesReleased = args.mental_model_ids.some((id) => released.includes(id));
    const citesLower =
      args.observation_ids.some((id) => evidence.has("observations", id)) ||
      args.memory_ids.some((id) => evidence.has("raw_facts", id));
    return !citesReleased && !citesLower;
  }

  private async emitDoneResult(
    i: number,
    done: ModelCall,
    outcome: "success" | "error",
    error: string | null,
    signature: string,
    content: string,
  ): Promise<void> {
    await this.run.log.emit(
      "tool.result",
      {
        callId: done.id,
        tool: "done",
        tier: null,
        outcome,
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
  }

  // ---------- the answer ----------

  /** Output guard (with one retry), citation validation, run.finished. */
  private async answer(i: number, done: ModelCall, args: DoneArgs, base: "done" | "halted"): Promise<ReflectResult> {
    const { run } = this;
    const jsonExpected = expectsJson(run.req.skill.outputFormat);
    let finalArgs = args;
    let inspection: GuardInspection = inspectAnswer(args.answer, { jsonExpected });
    if (inspection.kind === "leak") {
      await run.log.emit(
        "guard.output",
        { pattern: inspection.pattern, action: "retry", detail: inspection.detail },
        i,
      );
      const retryArgs = await this.guardRetry(i + 1, done);
      if (retryArgs) {
        finalArgs = retryArgs;
        inspection = inspectAnswer(retryArgs.answer, { jsonExpected });
      }
    }

    let status: RunStatus = base;
    let answer: string;
    if (inspection.kind === "leak") {
      await run.log.emit(
        "guard.output",
        {
          pattern: inspection.pattern,
          action: "degraded",
          detail: "answer replaced by a digest of the retrieved memories",
        },
        i + 1,
      );
      answer = evidenceDigest(run.req.question, run.evidence);
      status = "degraded";
      run.flags.add("degraded");
    } else {
      if (inspection.kind === "recovered" || inspection.kind === "unwrapped") {
        await run.log.emit(
          "guard.output",
          { pattern: inspection.pattern, action: inspection.kind, detail: inspection.detail },
          run.iterations - 1,
        );
      }
      answer = inspection.text;
    }

    const check = validateCitations(finalArgs, run.evidence);
    await run.log.emit("citations.validated", check, run.iterations - 1);
    if (check.ungrounded) run.flags.add("ungrounded");
    return finishRun(run, status, answer, check.kept, check.dropped, null);
  }

  /**
   * The one corrective retry after a leaked answer: a forced `done` with a request-scoped hint. Its
   * arguments, when valid, replace the leaked ones; a retry that fails outright (model error,
   * deadline) counts as leaking again. An interruption still stops the run.
   */
  private async guardRetry(i: number, done: ModelCall): Promise<DoneArgs | null> {
    const { run } = this;
    run.conversation.push(toolMessage(done, JSON.stringify({ error: GUARD_RETRY_HINT })));
    const retry = await this.turns
      .call(i, forcedDone(), [{ kind: "guard_retry", text: GUARD_RETRY_HINT }])
      .catch((e: unknown) => {
        if (e instanceof RunStop && e.status === "interrupted") throw e;
        return null;
      });
    const retryDone = retry ? this.turns.readCalls(retry).find((c) => c.name === "done") : undefined;
    return retryDone ? this.recordRetryDone(i, retryDone) : null;
  }

  /** The guard retry's `done`: recorded like any tool call. */
  private async recordRetryDone(i: number, call: ModelCall): Promise<DoneArgs | null> {
    const { args, rawArgs, problem } = decodeDone(call);
    await this.run.log.emit(
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
}

function decodeDone(call: ModelCall): { args: DoneArgs | null; rawArgs: unknown; problem: string } {
  const json = parseJsonArgs(call.arguments);
  if (!json.ok) return { args: null, rawArgs: call.arguments, problem: json.message };
  const parsed = DoneArgs.safeParse(json.value);
  return parsed.success
    ? { args: parsed.data, rawArgs: json.value, problem: "" }
    : { args: null, rawArgs: json.value, problem: zodProblem(parsed.error) };
}
