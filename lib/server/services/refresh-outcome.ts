/**
 * Whether a refresh run's answer can become a mental model's content, and what became of a
 * refresh proposal — from stored data only (the run, the recorded decision, the saved versions).
 */
import type { RefreshRunRow } from "@/db/queries/mental-model-reads";
import type { RunRecord } from "@/db/queries/runs";
import type { RefreshRunRef } from "@/lib/contracts/mental-models";
import { isUsableContent, type RunStatus } from "@/lib/reflect";

/**
 * Refresh answers that would make a worse model than the current one are never stored. A
 * `degraded` run's answer is the engine's digest of raw memories standing in for an answer the
 * model could not give cleanly (a placeholder, leaked scaffolding): no summary either (issue 27).
 */
const UNUSABLE_STATUSES = new Set<RunStatus>(["no_evidence", "failed", "interrupted", "running", "degraded"]);

/** Why a finished refresh run cannot become the model's content, or null when it can. */
export function unusableRefresh(run: Pick<RunRecord, "status" | "answer">, error?: string): string | null {
  if (UNUSABLE_STATUSES.has(run.status as RunStatus)) {
    const why = error ? `: ${error}` : "";
    return `The refresh run ended "${run.status}" without a usable answer${why}. It cannot be accepted; the content stays as it is.`;
  }
  if (!isUsableContent(run.answer)) {
    return "The refresh answer is placeholder text (no real summary), so it cannot be accepted as fresh; the content stays as it is.";
  }
  return null;
}

const UNUSABLE_WORDS: Partial<Record<RunStatus, string>> = {
  no_evidence: "no evidence",
  failed: "failed",
  interrupted: "interrupted",
  degraded: "no clean answer, only a digest",
};

/**
 * What became of one refresh run's proposal, from stored data: the run's status and answer, the
 * recorded decision, and (for runs made before decisions were recorded) a saved version whose
 * content is the run's answer.
 */
export function refreshOutcomeOf(
  run: RefreshRunRow,
  model: { version: number },
  versions: readonly { version: number; content: string; refreshedAt: string | null }[],
): Pick<RefreshRunRef, "outcome" | "outcomeLabel"> {
  if (run.status === "running") return { outcome: "running", outcomeLabel: "running" };
  if (unusableRefresh(run)) {
    const why = UNUSABLE_WORDS[run.status] ?? "placeholder text";
    return { outcome: "unusable", outcomeLabel: `not used (unusable: ${why})` };
  }
  if (run.decision === "accepted") {
    return { outcome: "accepted", outcomeLabel: `accepted as v${run.acceptedVersion}` };
  }
  if (run.decision === "discarded") return { outcome: "discarded", outcomeLabel: "discarded" };
  if (run.baseVersion === null) {
    // Only a version refreshed after the run began can be its answer accepted: a later refresh that
    // proposed the same text again (a deterministic model) was never accepted as that version.
    const became = versions.find(
      (v) =>
        v.refreshedAt !== null && v.content === run.answer && Date.parse(v.refreshedAt) >= Date.parse(run.createdAt),
    );
    return became
      ? { outcome: "accepted", outcomeLabel: `accepted as v${became.version}` }
      : { outcome: "unrecorded", outcomeLabel: "no decision recorded" };
  }
  return run.baseVersion === model.version
    ? { outcome: "open", outcomeLabel: "open proposal" }
    : { outcome: "superseded", outcomeLabel: `not accepted (proposed on v${run.baseVersion})` };
}
