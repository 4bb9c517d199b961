/**
 * Curation services: mental models and skills with their version history (each version diffed
 * against the one before), optimistic-concurrency saves, refresh-by-reflect, and "try a draft".
 */
import type { z } from "zod";
import { getBank } from "@/db/banks";
import type { Db } from "@/db/client";
import { ConflictError } from "@/db/errors";
import { countMentalModelReads, listRefreshRuns, listRunsThatRead } from "@/db/mental-model-reads";
import {
  deleteMentalModel,
  getMentalModel,
  getMentalModelVersions,
  listMentalModels,
  type MentalModelRecord,
  type MentalModelVersion,
  saveMentalModel,
  setStaleOverride,
} from "@/db/mental-models";
import { getSkill, getSkillVersions, listSkills, type SkillRecord, type SkillVersion, saveSkill } from "@/db/skills";
import {
  type FieldChange,
  type MentalModelDetail,
  MentalModelDraft,
  type MentalModelPage,
  MentalModelRef,
  type MentalModelRow,
  RefreshMentalModelInput,
  type RefreshOutcome,
  type SaveResult,
  type SkillDetail,
  SkillDraft,
  type SkillPage,
  TrySkillInput,
  type VersionEntry,
} from "@/lib/query/curation";
import { isUsableContent, type ModelPort, type SkillSnapshot } from "@/lib/reflect";
import { diffLines, diffWords, hasChanges } from "@/lib/timeline/text-diff";
import { defineAction, ServiceError } from "./action";
import { stalenessState } from "./memory";
import { type StartedRun, startRun } from "./runs";

/** A stale save: nothing was written; `current` is the newer record (null when it was deleted). */
export class EditConflictError<T> extends ServiceError {
  constructor(
    message: string,
    readonly current: T | null,
  ) {
    super("conflict", message);
  }
}

/**
 * Like `defineAction`, but a conflict's newer record travels with the error value, so the editor
 * can show what changed instead of overwriting it.
 */
export function defineSaveAction<S extends z.ZodType, T>(schema: S, run: (input: z.output<S>) => Promise<T>) {
  return async (raw: unknown): Promise<SaveResult<T>> => {
    let current: T | null = null;
    const result = await defineAction(schema, async (input) => {
      try {
        return await run(input);
      } catch (err) {
        if (err instanceof EditConflictError) current = err.current as T | null;
        throw err;
      }
    })(raw);
    if (result.ok || result.error.code !== "conflict") return result;
    return { ok: false, error: { ...result.error, current } };
  };
}

function conflictMessage(kind: string, expected: number, current: { version: number } | null): string {
  return current
    ? `This ${kind} was saved by someone else as version ${current.version} while you were editing version ${expected}. Nothing was saved: compare with the newer version and load it to continue.`
    : `This ${kind} was deleted by someone else while you were editing it. Nothing was saved.`;
}

async function requireBank(db: Db, bankId: string) {
  if (!(await getBank(db, bankId))) throw new ServiceError("not_found", `unknown bank "${bankId}"`);
}

// ---------------------------------------------------------------------------------------------
// Version diffs

function textChange(field: string, before: string, after: string, by: "lines" | "words"): FieldChange[] {
  if (before === after) return [];
  const ops = by === "lines" ? diffLines(before, after) : diffWords(before, after);
  return hasChanges(ops) ? [{ field, kind: "text", ops }] : [];
}

function valueChange(field: string, before: string, after: string): FieldChange[] {
  return before === after ? [] : [{ field, kind: "value", before, after }];
}

const list = (xs: readonly string[]) => (xs.length ? xs.join(", ") : "—");
const minute = (iso: string | null) => (iso ? iso.slice(0, 16).replace("T", " ") : "never");

/** Versions newest first, each with its changes against the previous version. */
function withChanges<V extends { version: number; createdAt: string | null }>(
  versions: readonly V[],
  diff: (before: V, after: V) => FieldChange[],
): VersionEntry[] {
  return versions.map((v, i) => {
    const previous = versions[i + 1];
    return { version: v.version, createdAt: v.createdAt, changes: previous ? diff(previous, v) : [] };
  });
}

function mentalModelChanges(a: MentalModelVersion, b: MentalModelVersion): FieldChange[] {
  return [
    ...valueChange("name", a.name, b.name),
    ...textChange("source query", a.sourceQuery, b.sourceQuery, "words"),
    ...valueChange("tags", list(a.tags), list(b.tags)),
    ...valueChange("staleness override", a.staleOverride ?? "auto", b.staleOverride ?? "auto"),
    ...valueChange("refreshed", minute(a.refreshedAt), minute(b.refreshedAt)),
    ...valueChange("based on", list(a.basedOnIds), list(b.basedOnIds)),
    ...textChange("content", a.content, b.content, "lines"),
  ];
}

function skillChanges(a: SkillVersion, b: SkillVersion): FieldChange[] {
  return [
    ...textChange("mission", a.mission, b.mission, "words"),
    ...valueChange("disposition", list(a.disposition), list(b.disposition)),
    ...valueChange("scope", a.retrieval.scope, b.retrieval.scope),
    ...valueChange("retrieval tags", list(a.retrieval.tags), list(b.retrieval.tags)),
    ...valueChange("memory types", list(a.retrieval.types), list(b.retrieval.types)),
    ...valueChange("budget", a.budget, b.budget),
    ...valueChange("anchor every", String(a.anchorEvery), String(b.anchorEvery)),
    ...textChange("output format", a.outputFormat, b.outputFormat, "words"),
  ];
}

// ---------------------------------------------------------------------------------------------
// Mental models

function toDetail(m: MentalModelRecord, readBy: number): MentalModelDetail {
  return {
    id: m.id,
    bankId: m.bankId,
    name: m.name,
    state: stalenessState(m),
    reason: m.stalenessReason,
    refreshedAt: m.refreshedAt,
    tags: m.tags,
    version: m.version,
    readBy,
    sourceQuery: m.sourceQuery,
    content: m.content,
    staleOverride: m.staleOverride,
    basedOnIds: m.basedOnIds,
    updatedAt: m.updatedAt,
  };
}

async function detailOf(db: Db, m: MentalModelRecord): Promise<MentalModelDetail> {
  return toDetail(m, (await countMentalModelReads(db, m.bankId)).get(m.id) ?? 0);
}

/** The list page: every model of the bank with staleness and how many runs read it. */
export async function listMentalModelRows(db: Db, bankId: string): Promise<MentalModelRow[]> {
  await requireBank(db, bankId);
  const [models, reads] = await Promise.all([listMentalModels(db, bankId), countMentalModelReads(db, bankId)]);
  return models.map((m) => {
    const { id, name, state, reason, refreshedAt, tags, version, readBy } = toDetail(m, reads.get(m.id) ?? 0);
    return { id, name, state, reason, refreshedAt, tags, version, readBy };
  });
}

/** The editor page: the model, its versions with diffs, the runs that read it and its refresh runs. */
export async function getMentalModelPage(
  db: Db,
  bankId: string,
  id: string,
  seenVersion?: number,
): Promise<MentalModelPage | null> {
  const m = await getMentalModel(db, bankId, id);
  if (!m) return null;
  const [model, versions, readers, refreshRuns] = await Promise.all([
    detailOf(db, m),
    getMentalModelVersions(db, bankId, id),
    listRunsThatRead(db, bankId, id),
    listRefreshRuns(db, bankId, m.sourceQuery),
  ]);
  const seenRow = versions.find((v) => v.version === seenVersion);
  const currentRow = versions.find((v) => v.version === m.version);
  const seen =
    seenRow && currentRow ? { version: seenRow.version, changes: mentalModelChanges(seenRow, currentRow) } : null;
  return { model, versions: withChanges(versions, mentalModelChanges), readers, refreshRuns, seen };
}

function slugOf(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
  return `mm-${slug || "model"}`;
}

async function uniqueModelId(db: Db, bankId: string, name: string): Promise<string> {
  const base = slugOf(name);
  for (let n = 1; ; n++) {
    const id = n === 1 ? base : `${base}-${n}`;
    if (!(await getMentalModel(db, bankId, id))) return id;
  }
}

const toOverride = (choice: "auto" | "stale" | "fresh") => (choice === "auto" ? null : choice);

/**
 * Creates (no id) or edits a mental model; every save is a new version. A change of the staleness
 * override alone goes through `setStaleOverride`. A stale `expectedVersion` throws `EditConflictError`.
 */
export async function saveMentalModelDraft(db: Db, raw: MentalModelDraft): Promise<MentalModelDetail> {
  const draft = MentalModelDraft.parse(raw);
  await requireBank(db, draft.bankId);
  const staleOverride = toOverride(draft.staleOverride);
  const conflict = (current: MentalModelRecord | null) =>
    new EditConflictError<MentalModelDetail>(
      conflictMessage("mental model", draft.expectedVersion, current),
      current ? toDetail(current, 0) : null,
    );
  try {
    if (!draft.id) {
      const id = await uniqueModelId(db, draft.bankId, draft.name);
      const saved = await saveMentalModel(db, {
        ...draft,
        id,
        expectedVersion: 0,
        staleOverride,
        refreshedAt: null,
      });
      return detailOf(db, saved);
    }
    const current = await getMentalModel(db, draft.bankId, draft.id);
    if (!current || current.version !== draft.expectedVersion) throw conflict(current);
    const onlyOverride =
      current.name === draft.name &&
      current.sourceQuery === draft.sourceQuery &&
      current.content === draft.content &&
      list(current.tags) === list(draft.tags);
    const saved = onlyOverride
      ? await setStaleOverride(db, {
          bankId: draft.bankId,
          id: draft.id,
          override: staleOverride,
          expectedVersion: draft.expectedVersion,
        })
      : await saveMentalModel(db, {
          ...draft,
          id: draft.id,
          staleOverride,
          refreshedAt: current.refreshedAt,
          basedOnIds: current.basedOnIds,
        });
    return detailOf(db, saved);
  } catch (err) {
    if (err instanceof ConflictError) {
      const current = draft.id ? await getMentalModel(db, draft.bankId, draft.id) : null;
      throw conflict(current);
    }
    throw err;
  }
}

/** Deletes the model and its history; runs that read it keep their own copy in their events. */
export async function deleteMentalModelById(db: Db, raw: MentalModelRef): Promise<{ deleted: true }> {
  const ref = MentalModelRef.parse(raw);
  if (!(await deleteMentalModel(db, ref.bankId, ref.id))) {
    throw new ServiceError("not_found", `mental model ${ref.id} does not exist (already deleted?)`);
  }
  return { deleted: true };
}

/** Refresh answers that would make a worse model than the current one are never stored. */
const UNUSABLE_STATUSES = new Set(["no_evidence", "failed", "interrupted"]);

/**
 * Refresh now: reflect over the model's source query with its own tier excluded and a low budget,
 * then store the answer as a new version based on the cited memory and observation ids. A run
 * without a usable answer leaves the model as it was and says why; either way the run can be opened.
 */
export async function refreshMentalModel(
  db: Db,
  raw: RefreshMentalModelInput,
  options: { model?: ModelPort; now?: () => Date } = {},
): Promise<RefreshOutcome> {
  const input = RefreshMentalModelInput.parse(raw);
  const before = await getMentalModel(db, input.bankId, input.id);
  if (!before) throw new ServiceError("not_found", `mental model ${input.id} does not exist`);
  if (input.expectedVersion !== undefined && before.version !== input.expectedVersion) {
    throw new EditConflictError(
      conflictMessage("mental model", input.expectedVersion, before),
      await detailOf(db, before),
    );
  }
  // No skill named: the run uses the bank's recap skill (or its first skill when there is none).
  const { runId, finished } = await startRun(
    db,
    { bankId: input.bankId, question: before.sourceQuery, budget: "low" },
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
    return { refreshed: true, runId, model: await detailOf(db, saved) };
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
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

// ---------------------------------------------------------------------------------------------
// Skills

function toSkillDetail(s: SkillRecord): SkillDetail {
  return {
    bankId: s.bankId,
    id: s.id,
    name: s.name,
    mission: s.mission,
    disposition: s.disposition,
    retrieval: { tags: s.retrieval.tags, types: s.retrieval.types, scope: s.retrieval.scope },
    budget: s.budget,
    anchorEvery: s.anchorEvery,
    outputFormat: s.outputFormat,
    version: s.version,
    updatedAt: s.updatedAt,
  };
}

export async function listSkillDetails(db: Db, bankId: string): Promise<SkillDetail[]> {
  await requireBank(db, bankId);
  return (await listSkills(db, bankId)).map(toSkillDetail);
}

export async function getSkillPage(db: Db, bankId: string, id: string): Promise<SkillPage | null> {
  const skill = await getSkill(db, { bankId, id });
  if (!skill) return null;
  const versions = await getSkillVersions(db, bankId, id);
  return { skill: toSkillDetail(skill), versions: withChanges(versions, skillChanges) };
}

/** Saves a skill edit as a new version; a stale `expectedVersion` throws `EditConflictError`. */
export async function saveSkillDraft(db: Db, raw: SkillDraft): Promise<SkillDetail> {
  const draft = SkillDraft.parse(raw);
  const current = await getSkill(db, { bankId: draft.bankId, id: draft.id });
  const conflict = (now: SkillRecord | null) =>
    new EditConflictError<SkillDetail>(
      conflictMessage("skill", draft.expectedVersion, now),
      now ? toSkillDetail(now) : null,
    );
  if (!current || current.version !== draft.expectedVersion) throw conflict(current);
  try {
    return toSkillDetail(await saveSkill(db, { ...draft, name: current.name }));
  } catch (err) {
    if (err instanceof ConflictError) throw conflict(await getSkill(db, { bankId: draft.bankId, id: draft.id }));
    throw err;
  }
}

/** Try: a run with the unsaved draft as its skill snapshot; the saved skill stays as it is. */
export async function trySkillDraft(
  db: Db,
  raw: TrySkillInput,
  options: { model?: ModelPort } = {},
): Promise<StartedRun> {
  const { draft, question } = TrySkillInput.parse(raw);
  const saved = await getSkill(db, { bankId: draft.bankId, id: draft.id });
  if (!saved) throw new ServiceError("not_found", `skill ${draft.id} does not exist`);
  const snapshot: SkillSnapshot = {
    id: saved.id,
    name: saved.name,
    // The version the draft was based on; the snapshot's own fields show what was actually used.
    version: draft.expectedVersion,
    mission: draft.mission,
    disposition: draft.disposition,
    retrieval: {
      tags: draft.retrieval.tags,
      types: draft.retrieval.types,
      scope: draft.retrieval.scope as SkillSnapshot["retrieval"]["scope"],
    },
    budget: draft.budget,
    anchorEvery: draft.anchorEvery,
    outputFormat: draft.outputFormat,
  };
  return startRun(
    db,
    { bankId: draft.bankId, question, skill: saved.name },
    { model: options.model, skillOverride: snapshot },
  );
}
