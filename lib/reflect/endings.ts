/** How a synthesize run ends: every ending emits one `run.finished` with the same result shape. */
import { NO_EVIDENCE_ANSWER } from "./digest";
import { type Citations, type DroppedCitation, emptyCitations, RUN_FLAGS, type RunStatus } from "./domain";
import type { ModelCall } from "./execute";
import type { ReflectResult } from "./request";
import type { RunContext } from "./run-context";

/** Ends the run early with a receipt (model failure, wall clock, interruption). */
export class RunStop extends Error {
  constructor(
    readonly status: "failed" | "interrupted",
    message: string,
    readonly phase: string,
  ) {
    super(message);
  }
}

export async function finishRun(
  run: RunContext,
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
    flags: RUN_FLAGS.filter((f) => run.flags.has(f)),
    usage: { ...run.usage },
    llmCalls: run.llmCalls,
    iterations: run.iterations,
    warnings: run.warnings,
    error,
  };
  await run.log.emit("run.finished", result);
  return result;
}

export function failRun(run: RunContext, message: string, phase: string): Promise<ReflectResult> {
  return finishRun(run, "failed", "", emptyCitations(), [], { message, phase });
}

/** The run stopped early (see RunStop): no answer, the receipt says why. */
export function stopRun(run: RunContext, stop: RunStop): Promise<ReflectResult> {
  return finishRun(run, stop.status, "", emptyCitations(), [], { message: stop.message, phase: stop.phase });
}

/** Nothing was found to answer from; a model that never called a tool is reported as such instead. */
export function endWithoutEvidence(run: RunContext): Promise<ReflectResult> {
  // A model that ignored every forced tool choice found nothing because it never searched:
  // that is a model problem to report, not an empty bank.
  if (run.llmCalls > 0 && run.toolCallsSeen === 0) {
    return failRun(
      run,
      `model "${run.deps.model.info.name}" never called a tool in ${run.llmCalls} call(s); it may not support function calling (try REFLECT_FORCED_TOOL_CHOICE=required or omit)`,
      run.phase,
    );
  }
  return finishRun(run, "no_evidence", NO_EVIDENCE_ANSWER, emptyCitations(), [], null);
}

export function noToolCallMessage(run: RunContext): string {
  return `model "${run.deps.model.info.name}" returned no tool call on the forced final turn`;
}

export function noDoneMessage(run: RunContext, calls: ModelCall[]): string {
  return `model "${run.deps.model.info.name}" did not call done on the forced final turn (called ${calls.map((c) => c.name).join(", ")})`;
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
