/**
 * Refresh now: reflect over a mental model's source query with its own tier excluded and a low
 * budget. The answer is a *proposal* shown against the version it was proposed from; only an
 * explicit accept stores it (as a new version, conflict-checked), and an unusable answer (§3.5b)
 * can never be accepted as fresh.
 */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { getRefreshDecision, recordRefreshDecision, recordRefreshProposal } from "@/db/mental-model-refreshes";
import { getMentalModel, saveMentalModel } from "@/db/mental-models";
import { getRun, type RunRecord } from "@/db/runs";
import { AppError } from "@/lib/contracts/errors";
import type {
  AcceptRefreshInput,
  DiscardRefreshInput,
  MentalModelDetail,
  RefreshMentalModelInput,
  RefreshProposal,
} from "@/lib/contracts/mental-models";
import type { ModelPort } from "@/lib/reflect";
import { editConflict, saveOrConflict } from "./edit-conflict";
import { mentalModelDetailOf, toMentalModelDetail } from "./mental-models";
import { unusableRefresh } from "./refresh-outcome";
import { startRun } from "./runs";

const citedIds = (run: Pick<RunRecord, "citations">) => [
  ...new Set([...(run.citations?.memory_ids ?? []), ...(run.citations?.observation_ids ?? [])]),
];

/**
 * Runs the refresh and returns its proposal; nothing is saved. A model edited since the editor
 * loaded it is a `conflict` (nothing is run).
 */
export async function refreshMentalModel(
  db: Db,
  input: z.output<typeof RefreshMentalModelInput>,
  options: { model?: ModelPort } = {},
): Promise<RefreshProposal> {
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
  await recordRefreshProposal(db, { runId, bankId: input.bankId, modelId: input.id, baseVersion: before.version });
  const base = { runId, baseVersion: before.version, current: before.content };
  const reason = unusableRefresh(result, result.error?.message);
  if (reason) return { ...base, usable: false, proposed: result.answer ?? null, reason };
  return { ...base, usable: true, proposed: result.answer ?? "", basedOnIds: citedIds(result) };
}

/**
 * Stores a refresh proposal as a new version on top of the version it was proposed from. The
 * content is the run's stored answer (re-checked here), so a client cannot accept other text or
 * an unusable answer; a model saved meanwhile is a `conflict` carrying the newer model.
 */
export async function acceptRefresh(
  db: Db,
  input: z.output<typeof AcceptRefreshInput>,
  options: { now?: () => Date } = {},
): Promise<MentalModelDetail> {
  const asShown = async () => {
    const m = await getMentalModel(db, input.bankId, input.id);
    return m ? toMentalModelDetail(m, 0) : null;
  };
  const before = await getMentalModel(db, input.bankId, input.id);
  if (!before || before.version !== input.expectedVersion) {
    throw editConflict("mental model", input.expectedVersion, await asShown());
  }
  const run = await requireRefreshRun(db, input, before.sourceQuery);
  const reason = unusableRefresh(run);
  if (reason) throw new AppError("invalid_input", reason, { fieldErrors: { runId: [reason] } });
  const saved = await saveOrConflict(
    "mental model",
    input.expectedVersion,
    () =>
      saveMentalModel(db, {
        ...before,
        expectedVersion: before.version,
        content: run.answer ?? "",
        basedOnIds: citedIds(run),
        refreshedAt: (options.now?.() ?? new Date()).toISOString(),
        // The refresh answers a forced "stale"; a forced "fresh" stays the curator's choice.
        staleOverride: before.staleOverride === "stale" ? null : before.staleOverride,
      }),
    asShown,
  );
  await recordRefreshDecision(db, {
    runId: run.id,
    bankId: input.bankId,
    modelId: input.id,
    baseVersion: before.version,
    decision: "accepted",
    acceptedVersion: saved.version,
  });
  return mentalModelDetailOf(db, saved);
}

/** The run of a refresh of this model, or an `invalid_input` naming the run. */
async function requireRefreshRun(db: Db, input: { bankId: string; id: string; runId: string }, sourceQuery: string) {
  const run = await getRun(db, input.runId);
  if (!run || run.bankId !== input.bankId || run.question !== sourceQuery) {
    throw new AppError("invalid_input", `run ${input.runId} is not a refresh run of ${input.id}`, {
      fieldErrors: { runId: ["not a refresh run of this model"] },
    });
  }
  return run;
}

/**
 * Discards a refresh proposal: nothing is saved, and the refresh run is recorded as discarded so
 * the editor's list says so. A proposal already accepted stays accepted (a `conflict`).
 */
export async function discardRefresh(db: Db, input: z.output<typeof DiscardRefreshInput>): Promise<void> {
  const model = await getMentalModel(db, input.bankId, input.id);
  if (!model) throw new AppError("not_found", `mental model ${input.id} does not exist`);
  const run = await requireRefreshRun(db, input, model.sourceQuery);
  const recorded = await getRefreshDecision(db, run.id);
  if (recorded?.decision === "accepted") {
    throw new AppError(
      "conflict",
      `the refresh of run ${run.id} was already accepted as version ${recorded.acceptedVersion}`,
    );
  }
  await recordRefreshDecision(db, {
    runId: run.id,
    bankId: input.bankId,
    modelId: input.id,
    baseVersion: recorded?.baseVersion ?? model.version,
    decision: "discarded",
  });
}
