/**
 * The curation loop's services: re-run a run with changed inputs (skill and mental-model edits
 * read as a draft, never saved), save those edits when asked, fork a run from iteration k (replaying the parent's recorded
 * model responses before k), and compare two runs.
 */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { getBank } from "@/db/queries/banks";
import { mentalModelVersionsReadBy } from "@/db/queries/mental-model-reads";
import { getMentalModel, listMentalModels } from "@/db/queries/mental-models";
import { getRun, getRunEvents, type RunRecord } from "@/db/queries/runs";
import { getSkill, type SkillRecord, toSkillSnapshot } from "@/db/queries/skills";
import { AppError } from "@/lib/contracts/errors";
import type { ForkInput, RerunContext, RerunInput, SavedChanges, SaveRerunChangesInput } from "@/lib/contracts/rerun";
import { type ModelPort, type ModelResponse, Scope } from "@/lib/reflect";
import type { RunEvent } from "@/lib/reflect/events";
import { compareRuns, type RunComparison, replayDivergence } from "@/lib/timeline/compare";
import { editConflict } from "./edit-conflict";
import { mentalModelDraftsOf, overlayMentalModels } from "./mental-model-drafts";
import { updateMentalModelFields } from "./mental-models";
import { type StartedRun, startRun } from "./runs";
import { updateSkillFields } from "./skills";

interface ServiceOptions {
  model?: ModelPort;
}

async function parentOf(db: Db, runId: string): Promise<RunRecord> {
  const run = await getRun(db, runId);
  if (!run) throw new AppError("not_found", `run ${runId} not found`);
  if (run.status === "running") throw new AppError("conflict", `run ${runId} is still running`);
  if (run.modelKind === "imported") {
    throw new AppError(
      "invalid_input",
      `run ${runId} was imported from an OpenTelemetry trace: it has no engine configuration (skill, model, budget) to run again or fork here. Ask its question as a new run instead.`,
    );
  }
  return run;
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The parent's skill as it is saved now, or null for a run without one; a skill deleted since is `not_found`. */
async function savedSkillOf(db: Db, parent: RunRecord) {
  const snapshot = parent.skillSnapshot;
  if (!snapshot) return null;
  const current = await getSkill(db, { bankId: parent.bankId, id: snapshot.id });
  if (!current) throw new AppError("not_found", `skill ${snapshot.name} no longer exists`);
  return current;
}

/** The mission and disposition the input asks for, when they differ from the saved skill. */
function skillEdit(
  current: SkillRecord,
  input: Pick<z.output<typeof RerunInput>, "mission" | "disposition" | "skillExpectedVersion">,
) {
  const mission = input.mission ?? current.mission;
  const disposition = input.disposition ?? current.disposition;
  if (mission === current.mission && sameList(disposition, current.disposition)) return null;
  if (input.skillExpectedVersion !== undefined && input.skillExpectedVersion !== current.version) {
    throw new AppError(
      "conflict",
      `skill ${current.name} was saved as version ${current.version} after you opened it at version ${input.skillExpectedVersion}; reload and try again`,
      { current },
    );
  }
  return { mission, disposition };
}

/**
 * Re-run with changes: starts the child run (`parentRunId` set) reading the edits as a draft —
 * the skill text as an unsaved draft of the saved skill, the mental-model edits as drafts over
 * the saved models — and saves nothing. The child is badged `draft` and records what it read;
 * `saveRerunChanges` is the separate, explicit save.
 */
export async function rerunWithChanges(
  db: Db,
  input: z.output<typeof RerunInput>,
  options: ServiceOptions = {},
): Promise<StartedRun> {
  const parent = await parentOf(db, input.parentRunId);
  const skill = await savedSkillOf(db, parent);
  const edit = skill && skillEdit(skill, input);
  const skillOverride = skill && edit ? { ...toSkillSnapshot(skill), ...edit, draft: true } : undefined;
  const drafts = await mentalModelDraftsOf(
    db,
    parent.bankId,
    input.mentalModelEdits,
    (i) => `mentalModelEdits[${i}].id`,
  );
  return startRun(
    db,
    {
      bankId: parent.bankId,
      skill: skill?.name ?? parent.skillName ?? undefined,
      question: input.question,
      budget: input.budget,
      mode: input.mode,
      scope: input.scope,
      anchorEvery: parent.skillSnapshot?.anchorEvery,
    },
    {
      model: options.model,
      parentRunId: parent.id,
      skillOverride,
      memoryOverlay: overlayMentalModels(drafts),
      mentalModelDrafts: drafts,
    },
  );
}

/**
 * "Save these changes": saves exactly the edits it is sent — the skill's mission and disposition,
 * each mental model's content and the overrides the user chose to keep — as new versions. Every
 * version is checked before anything is written, so a record saved meanwhile is a `conflict`
 * that saves none of them.
 */
export async function saveRerunChanges(db: Db, input: z.output<typeof SaveRerunChangesInput>): Promise<SavedChanges> {
  const parent = await parentOf(db, input.parentRunId);
  const skill = await savedSkillOf(db, parent);
  const edit = skill && skillEdit(skill, input);
  for (const m of input.mentalModelEdits) {
    const current = await getMentalModel(db, parent.bankId, m.id);
    if (!current) throw new AppError("not_found", `mental model ${m.id} no longer exists`);
    if (current.version !== m.expectedVersion) throw editConflict("mental model", m.expectedVersion, current);
  }
  const saved: SavedChanges["saved"] = [];
  if (skill && edit) {
    const s = await updateSkillFields(db, {
      bankId: parent.bankId,
      id: skill.id,
      expectedVersion: input.skillExpectedVersion ?? skill.version,
      changes: edit,
    });
    saved.push({ kind: "skill", id: s.id, name: s.name, version: s.version });
  }
  for (const m of input.mentalModelEdits) {
    const { id, expectedVersion, ...changes } = m;
    const s = await updateMentalModelFields(db, { bankId: parent.bankId, id, expectedVersion, changes });
    saved.push({ kind: "mental model", id: s.id, name: s.name, version: s.version });
  }
  return { saved };
}

/**
 * The parent's model responses for iterations before `forkAt`, as the engine replays them: the
 * first response of each iteration (a guard retry is re-asked live), with zero usage.
 */
export function replayResponses(events: readonly RunEvent[], forkAt: number): ModelResponse[] {
  const byIteration = new Map<number, ModelResponse>();
  for (const e of events) {
    if (e.type !== "llm.response" || e.iteration === undefined || e.iteration >= forkAt) continue;
    if (byIteration.has(e.iteration)) continue;
    byIteration.set(e.iteration, {
      content: e.payload.text,
      toolCalls: e.payload.toolCalls.map((c) => ({
        id: c.id,
        type: "function" as const,
        function: { name: c.rawName, arguments: c.arguments },
      })),
      finishReason: e.payload.finishReason,
      usage: { inputTokens: 0, outputTokens: 0 },
      // The parent's reasoning is part of the step replayed: the fork shows it as the parent did.
      ...(e.payload.reasoning ? { reasoning: e.payload.reasoning } : {}),
    });
  }
  // The engine indexes responses by iteration: stop at the first iteration without one.
  const out: ModelResponse[] = [];
  for (let i = 0; i < forkAt; i++) {
    const r = byIteration.get(i);
    if (!r) break;
    out.push(r);
  }
  return out;
}

/** Re-runs the parent's inputs, replaying its model responses below `forkAt` and calling the model live from there. */
export async function forkRun(
  db: Db,
  input: z.output<typeof ForkInput>,
  options: ServiceOptions = {},
): Promise<StartedRun> {
  const parent = await parentOf(db, input.parentRunId);
  if (parent.mode === "facts") throw new AppError("invalid_input", "a facts-mode run makes no model calls to fork");
  const iterations = parent.iterations ?? 0;
  if (input.forkAt > Math.max(0, iterations - 1)) {
    throw new AppError("invalid_input", `fork at an iteration between 0 and ${Math.max(0, iterations - 1)}`, {
      fieldErrors: { forkAt: [`the parent ran ${iterations} iterations`] },
    });
  }
  const responses = replayResponses(await getRunEvents(db, parent.id), input.forkAt);
  return startRun(
    db,
    {
      bankId: parent.bankId,
      skill: parent.skillName ?? undefined,
      question: parent.question,
      budget: parent.budget,
      mode: parent.mode,
      scope: Scope.parse(parent.scope),
      anchorEvery: parent.skillSnapshot?.anchorEvery,
    },
    {
      model: options.model,
      parentRunId: parent.id,
      replay: { forkAt: input.forkAt, responses },
      // A fork replays the parent's exact skill version, whatever the skill says today.
      skillOverride: parent.skillSnapshot ?? undefined,
    },
  );
}

/** What the re-run drawer and the fork control need, loaded server-side for the run page. */
export async function getRerunContext(db: Db, runId: string): Promise<RerunContext | null> {
  const run = await getRun(db, runId);
  // An imported run cannot be re-run or forked (parentOf says why): the run page shows no controls.
  if (!run || run.modelKind === "imported") return null;
  const seen = await mentalModelVersionsReadBy(db, runId);
  const models = await listMentalModels(db, run.bankId, [...seen.keys()]);
  const snapshot = run.skillSnapshot;
  const currentSkill = snapshot ? await getSkill(db, { bankId: run.bankId, id: snapshot.id }) : null;
  const teams = (await getBank(db, run.bankId))?.permittedTeams ?? [];
  // A run that read drafts re-opens with them, so they can be run again or saved.
  const draftsRead = new Map(
    (snapshot?.mentalModelDrafts ?? []).map((d) => [
      d.id,
      { content: d.content, staleOverride: d.staleOverride, baseVersion: d.baseVersion },
    ]),
  );
  return {
    run: {
      id: run.id,
      bankId: run.bankId,
      question: run.question,
      budget: run.budget,
      mode: run.mode,
      scope: run.scope,
      status: run.status,
      iterations: run.iterations ?? 0,
      parentRunId: run.parentRunId,
    },
    skill: snapshot
      ? {
          id: snapshot.id,
          name: snapshot.name,
          version: snapshot.version,
          mission: snapshot.mission,
          disposition: snapshot.disposition,
          currentVersion: currentSkill?.version ?? null,
          savedMission: currentSkill?.mission ?? null,
          savedDisposition: currentSkill?.disposition ?? null,
        }
      : null,
    mentalModels: models.map((m) => ({
      id: m.id,
      name: m.name,
      content: m.content,
      version: m.version,
      staleOverride: m.staleOverride,
      isStale: m.isStale,
      stalenessReason: m.stalenessReason,
      usable: m.usable,
      versionSeen: seen.get(m.id) ?? null,
      draft: draftsRead.get(m.id) ?? null,
    })),
    scopes: ["personal", ...teams.map((t) => `team:${t}`)],
  };
}

export interface Comparison {
  comparison: RunComparison;
  /** For a fork compared with its parent: replayed steps whose tool results differ. */
  replayDivergence: ReturnType<typeof replayDivergence>;
}

/** Two runs compared; a run that does not exist is a `not_found` naming it (A, B or both). */
export async function getComparison(db: Db, a: string, b: string): Promise<Comparison> {
  const [runA, runB] = await Promise.all([getRun(db, a), getRun(db, b)]);
  if (!runA || !runB) {
    const missing = [runA ? null : `A (${a})`, runB ? null : `B (${b})`].filter((m) => m !== null);
    throw new AppError("not_found", `No run ${missing.join(" and no run ")}.`);
  }
  const [eventsA, eventsB] = await Promise.all([getRunEvents(db, a), getRunEvents(db, b)]);
  return {
    comparison: compareRuns(eventsA, eventsB),
    replayDivergence:
      runB.parentRunId === runA.id && runB.forkedAtIteration !== null ? replayDivergence(eventsA, eventsB) : [],
  };
}

/** For a fork's run page: its replayed steps whose tool results differ from the parent's. */
export async function getReplayDivergence(db: Db, runId: string) {
  const run = await getRun(db, runId);
  if (!run?.parentRunId || run.forkedAtIteration === null) return [];
  const [parentEvents, events] = await Promise.all([getRunEvents(db, run.parentRunId), getRunEvents(db, runId)]);
  return replayDivergence(parentEvents, events);
}
