/**
 * The curation loop's services: re-run a run with changed inputs (saving skill and mental-model
 * edits as new versions first), fork a run from iteration k (replaying the parent's recorded
 * model responses before k), and compare two runs.
 */
import type { z } from "zod";
import { getBank } from "@/db/banks";
import type { Db } from "@/db/client";
import { mentalModelVersionsReadBy } from "@/db/mental-model-reads";
import { getMentalModel, listMentalModels, saveMentalModel } from "@/db/mental-models";
import { getRun, getRunEvents, type RunRecord } from "@/db/runs";
import { getSkill, saveSkill } from "@/db/skills";
import { AppError, isAppError } from "@/lib/contracts/errors";
import type { ForkInput, RerunContext, RerunInput } from "@/lib/contracts/rerun";
import { type ModelPort, type ModelResponse, Scope } from "@/lib/reflect";
import type { RunEvent } from "@/lib/reflect/events";
import { compareRuns, type RunComparison, replayDivergence } from "@/lib/timeline/compare";
import { type StartedRun, startRun } from "./runs";

interface ServiceOptions {
  model?: ModelPort;
}

async function parentOf(db: Db, runId: string): Promise<RunRecord> {
  const run = await getRun(db, runId);
  if (!run) throw new AppError("not_found", `run ${runId} not found`);
  if (run.status === "running") throw new AppError("conflict", `run ${runId} is still running`);
  return run;
}

/** A save the re-run depends on lost a race: say what moved, keep the record as it is now. */
function rethrowConflict(what: string, err: unknown): never {
  if (!isAppError(err, "conflict")) throw err;
  throw new AppError("conflict", `${what} changed meanwhile (${err.message}); reload and try again`, err.details);
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Saves the edits as new versions, then starts the child run with `parentRunId` set. */
export async function rerunWithChanges(
  db: Db,
  input: z.output<typeof RerunInput>,
  options: ServiceOptions = {},
): Promise<StartedRun> {
  const parent = await parentOf(db, input.parentRunId);
  const snapshot = parent.skillSnapshot;
  let skillName = snapshot?.name;

  if (snapshot && (input.mission !== undefined || input.disposition !== undefined)) {
    const current = await getSkill(db, { bankId: parent.bankId, id: snapshot.id });
    if (!current) throw new AppError("not_found", `skill ${snapshot.name} no longer exists`);
    const mission = input.mission ?? current.mission;
    const disposition = input.disposition ?? current.disposition;
    if (mission !== current.mission || !sameList(disposition, current.disposition)) {
      try {
        const saved = await saveSkill(db, {
          ...current,
          expectedVersion: input.skillExpectedVersion ?? current.version,
          mission,
          disposition,
        });
        skillName = saved.name;
      } catch (err) {
        rethrowConflict(`skill ${current.name}`, err);
      }
    }
  }

  for (const edit of input.mentalModelEdits) {
    const current = await getMentalModel(db, parent.bankId, edit.id);
    if (!current) throw new AppError("not_found", `mental model ${edit.id} no longer exists`);
    const content = edit.content ?? current.content;
    const staleOverride = edit.staleOverride === undefined ? current.staleOverride : edit.staleOverride;
    if (content === current.content && staleOverride === current.staleOverride) continue;
    try {
      await saveMentalModel(db, { ...current, expectedVersion: edit.expectedVersion, content, staleOverride });
    } catch (err) {
      rethrowConflict(`mental model ${current.name}`, err);
    }
  }

  return startRun(
    db,
    {
      bankId: parent.bankId,
      skill: skillName,
      question: input.question,
      budget: input.budget,
      mode: input.mode,
      scope: input.scope,
      anchorEvery: snapshot?.anchorEvery,
    },
    { model: options.model, parentRunId: parent.id },
  );
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
  if (!run) return null;
  const seen = await mentalModelVersionsReadBy(db, runId);
  const models = await listMentalModels(db, run.bankId, [...seen.keys()]);
  const snapshot = run.skillSnapshot;
  const currentSkill = snapshot ? await getSkill(db, { bankId: run.bankId, id: snapshot.id }) : null;
  const teams = (await getBank(db, run.bankId))?.permittedTeams ?? [];
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
