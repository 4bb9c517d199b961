/**
 * Refresh now: reflect over a mental model's source query with its own tier excluded and a low
 * budget, then store the answer as a new version based on the cited memories and observations.
 */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { getMentalModel, saveMentalModel } from "@/db/mental-models";
import { AppError, isAppError } from "@/lib/contracts/errors";
import type { RefreshMentalModelInput, RefreshOutcome } from "@/lib/contracts/mental-models";
import { isUsableContent, type ModelPort, type RunStatus } from "@/lib/reflect";
import { editConflict } from "./edit-conflict";
import { mentalModelDetailOf } from "./mental-models";
import { startRun } from "./runs";

/** Refresh answers that would make a worse model than the current one are never stored. */
const UNUSABLE_STATUSES = new Set<RunStatus>(["no_evidence", "failed", "interrupted"]);

/**
 * A run without a usable answer leaves the model as it was and says why; either way the run can
 * be opened. A model edited since the editor loaded it is a `conflict` (nothing is run).
 */
export async function refreshMentalModel(
  db: Db,
  input: z.output<typeof RefreshMentalModelInput>,
  options: { model?: ModelPort; now?: () => Date } = {},
): Promise<RefreshOutcome> {
  const before = await getMentalModel(db, input.bankId, input.id);
  if (!before) throw new AppError("not_found", `mental model ${input.id} does not exist`);
  if (input.expectedVersion !== undefined && before.version !== input.expectedVersion) {
    throw editConflict("mental model", input.expectedVersion, await mentalModelDetailOf(db, before));
  }
  // No skill named: the run uses the bank's recap skill (or its first skill when there is none).
  const { runId, finished } = await startRun(
    db,
    { bankId: input.bankId, question: before.sourceQuery, budget: "low", mode: "synthesize" },
    { model: options.model, excludeTiers: ["mental_models"] },
  );
  const result = await finished;
  if (UNUSABLE_STATUSES.has(result.status) || !isUsableContent(result.answer)) {
    const why = result.error?.message ? `: ${result.error.message}` : "";
    return {
      refreshed: false,
      runId,
      reason: `The refresh run ended "${result.status}" without a usable answer${why}. The content was left unchanged.`,
    };
  }
  try {
    const saved = await saveMentalModel(db, {
      ...before,
      expectedVersion: before.version,
      content: result.answer,
      basedOnIds: [...new Set([...result.citations.memory_ids, ...result.citations.observation_ids])],
      refreshedAt: (options.now?.() ?? new Date()).toISOString(),
    });
    return { refreshed: true, runId, model: await mentalModelDetailOf(db, saved) };
  } catch (err) {
    if (!isAppError(err, "conflict")) throw err;
    const current = await getMentalModel(db, input.bankId, input.id);
    return {
      refreshed: false,
      runId,
      reason: current
        ? `The model was saved by someone else as version ${current.version} during the refresh; the refresh answer was not stored (it is in the run).`
        : "The model was deleted during the refresh; the refresh answer is in the run.",
    };
  }
}
