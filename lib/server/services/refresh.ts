/**
 * Refresh now: reflect over a mental model's source query with its own tier excluded and a low
 * budget. The answer is a *proposal* shown against the version it was proposed from; only an
 * explicit accept stores it (as a new version, conflict-checked), and an unusable answer (§3.5b)
 * can never be accepted as fresh.
 */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { getRefreshDecision, recordRefreshDecision, recordRefreshProposal } from "@/db/queries/mental-model-refreshes";
import { getMentalModel, getMentalModelVersions, saveMentalModel } from "@/db/queries/mental-models";
import { getRun, type RunRecord } from "@/db/queries/runs";
import { AppError } from "@/lib/contracts/errors";
import type {
  AcceptRefreshInput,
  DiscardRefreshInput,
  MentalModelDetail,
  RefreshMentalModelInput,
  RefreshProposal,
  RunRefreshProposal,
} from "@/lib/contracts/mental-models";
import type { ModelPort } from "@/lib/reflect";
import { editConflict, saveOrConflict } from "./edit-conflict";
import { mentalModelDetailOf, toMentalModelDetail } from "./mental-models";
import { refreshOutcomeOf, unusableRefresh } from "./refresh-outcome";
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
  // Recorded at once, so the run is marked as this model's refresh while it runs too.
  await recordRefreshProposal(db, { runId, bankId: input.bankId, modelId: input.id, baseVersion: before.version });
  const result = await finished;
  const base = { runId, baseVersion: before.version, current: before.content };
  const reason = unusableRefresh(result, result.error?.message);
  if (reason) return { ...base, usable: false, proposed: result.answer ?? null, reason };
  return { ...base, usable: true, proposed: result.answer ?? "", basedOnIds: citedIds(result) };
}

/**
 * Stores a refresh proposal as a new version on top of the version it was proposed from. Only the
 * run recorded as this model's refresh, still open, can be accepted (never another model's
 * refresh, an API, Try or experiment run that happened to ask the source query, a discarded or an
 * accepted one). The content is the run's stored answer (re-checked here), so a client cannot
 * accept other text or an unusable answer; a model saved meanwhile is a `conflict` carrying the
 * newer model.
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
  const { run, proposal } = await requireRefreshRun(db, input);
  if (proposal.decision === "accepted") {
    throw new AppError(
      "conflict",
      `the refresh of run ${run.id} was already accepted as version ${proposal.acceptedVersion}`,
      { current: await asShown() },
    );
  }
  if (proposal.decision === "discarded") {
    throw new AppError("invalid_input", `the refresh of run ${run.id} was discarded; run Refresh now again`, {
      fieldErrors: { runId: ["discarded"] },
    });
  }
  if (proposal.baseVersion !== before.version) {
    throw new AppError(
      "conflict",
      `run ${run.id} proposed a refresh of version ${proposal.baseVersion}; the model is at version ${before.version} now, so the proposal is out of date`,
      { current: await asShown() },
    );
  }
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

/**
 * The run and its recorded proposal when the run is a refresh of this model made by Refresh now,
 * or an `invalid_input` naming the run. Asking the source query is not enough: only the proposal
 * row written by `refreshMentalModel` makes a run this model's refresh.
 */
async function requireRefreshRun(db: Db, input: { bankId: string; id: string; runId: string }) {
  const [run, proposal] = await Promise.all([getRun(db, input.runId), getRefreshDecision(db, input.runId)]);
  if (!run || !proposal || proposal.bankId !== input.bankId || proposal.modelId !== input.id) {
    throw new AppError("invalid_input", `run ${input.runId} is not a refresh proposal of ${input.id}`, {
      fieldErrors: { runId: ["not a refresh proposal of this model"] },
    });
  }
  return { run, proposal };
}

/**
 * Discards a refresh proposal: nothing is saved, and the refresh run is recorded as discarded so
 * the editor's list says so. A proposal already accepted stays accepted (a `conflict`).
 */
export async function discardRefresh(db: Db, input: z.output<typeof DiscardRefreshInput>): Promise<void> {
  const model = await getMentalModel(db, input.bankId, input.id);
  if (!model) throw new AppError("not_found", `mental model ${input.id} does not exist`);
  const { run, proposal } = await requireRefreshRun(db, input);
  if (proposal.decision === "accepted") {
    throw new AppError(
      "conflict",
      `the refresh of run ${run.id} was already accepted as version ${proposal.acceptedVersion}`,
    );
  }
  await recordRefreshDecision(db, {
    runId: run.id,
    bankId: input.bankId,
    modelId: input.id,
    baseVersion: proposal.baseVersion,
    decision: "discarded",
  });
}

/**
 * For a run page: the mental model this run is a refresh of (made by Refresh now), what became of
 * the proposal, and — while it is open — the current content and the proposed answer to decide on.
 */
export async function getRefreshOfRun(db: Db, runId: string): Promise<RunRefreshProposal | null> {
  const proposal = await getRefreshDecision(db, runId);
  if (!proposal) return null;
  const [run, model] = await Promise.all([getRun(db, runId), getMentalModel(db, proposal.bankId, proposal.modelId)]);
  if (!run) return null;
  const versions = model ? await getMentalModelVersions(db, proposal.bankId, proposal.modelId) : [];
  const outcome = model
    ? refreshOutcomeOf(
        {
          id: run.id,
          question: run.question,
          status: run.status,
          createdAt: run.createdAt,
          answer: run.answer,
          baseVersion: proposal.baseVersion,
          decision: proposal.decision === "accepted" || proposal.decision === "discarded" ? proposal.decision : null,
          acceptedVersion: proposal.acceptedVersion,
        },
        model,
        versions,
      )
    : { outcome: "superseded" as const, outcomeLabel: "the model was deleted" };
  return {
    bankId: proposal.bankId,
    modelId: proposal.modelId,
    modelName: model?.name ?? proposal.modelId,
    baseVersion: proposal.baseVersion,
    currentVersion: model?.version ?? null,
    ...outcome,
    current: model?.content ?? "",
    proposed: run.answer,
    basedOnIds: citedIds(run),
  };
}
