/**
 * Mental-model services for the inspector's pages: the list, the editor page (versions diffed,
 * the runs that read it, its refresh runs), optimistic-concurrency saves and delete. Refresh is
 * refresh.ts. The API (lib/server/http/api/mental-models.ts) and the editor reach the same
 * functions here: one service per operation.
 */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { countMentalModelReads, listRefreshRuns, listRunsThatRead } from "@/db/queries/mental-model-reads";
import {
  deleteMentalModel,
  getMentalModel,
  getMentalModelTombstone,
  getMentalModelVersions,
  listMentalModels,
  type MentalModelRecord,
  saveMentalModel,
} from "@/db/queries/mental-models";
import { AppError, isAppError } from "@/lib/contracts/errors";
import type {
  Deleted,
  MentalModelDetail,
  MentalModelDraft,
  MentalModelPage,
  MentalModelRef,
  MentalModelRow,
  MentalModelWithHistory,
  RestoreVersionInput,
} from "@/lib/contracts/mental-models";
import { mentalModelChanges, versionHistory } from "@/lib/text/version-changes";
import { requireBank } from "./banks";
import { editConflict, saveOrConflict } from "./edit-conflict";
import { stalenessState } from "./memory";
import { refreshOutcomeOf } from "./refresh-outcome";

export function toMentalModelDetail(m: MentalModelRecord, readBy: number): MentalModelDetail {
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

export async function mentalModelDetailOf(db: Db, m: MentalModelRecord): Promise<MentalModelDetail> {
  return toMentalModelDetail(m, (await countMentalModelReads(db, m.bankId)).get(m.id) ?? 0);
}

/** The list page: every model of the bank with staleness and how many runs read it. */
export async function listMentalModelRows(db: Db, bankId: string): Promise<MentalModelRow[]> {
  await requireBank(db, bankId);
  const [models, reads] = await Promise.all([listMentalModels(db, bankId), countMentalModelReads(db, bankId)]);
  return models.map((m) => {
    const { id, name, state, reason, refreshedAt, tags, version, readBy } = toMentalModelDetail(
      m,
      reads.get(m.id) ?? 0,
    );
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
  const live = await getMentalModel(db, bankId, id);
  const tombstone = live ? null : await getMentalModelTombstone(db, bankId, id);
  const m = live ?? (tombstone ? await lastVersionOf(db, bankId, id) : null);
  if (!m) return null;
  const [model, versions, readers, refreshRuns] = await Promise.all([
    mentalModelDetailOf(db, m),
    getMentalModelVersions(db, bankId, id),
    listRunsThatRead(db, bankId, id),
    listRefreshRuns(db, bankId, id, m.sourceQuery),
  ]);
  const seenRow = versions.find((v) => v.version === seenVersion);
  const currentRow = versions.find((v) => v.version === m.version);
  const seen =
    seenRow && currentRow ? { version: seenRow.version, changes: mentalModelChanges(seenRow, currentRow) } : null;
  return {
    model,
    versions: versionHistory(versions, mentalModelChanges),
    readers,
    refreshRuns: refreshRuns.map((r) => ({
      id: r.id,
      question: r.question,
      status: r.status,
      createdAt: r.createdAt,
      ...refreshOutcomeOf(r, m, versions),
    })),
    seen,
    deleted: tombstone ? { at: tombstone.deletedAt } : null,
  };
}

/** A deleted model as its last version read (no staleness check: it is not in the bank any more). */
async function lastVersionOf(db: Db, bankId: string, id: string): Promise<MentalModelRecord | null> {
  const [last] = await getMentalModelVersions(db, bankId, id);
  if (!last) return null;
  return {
    id,
    bankId,
    name: last.name,
    sourceQuery: last.sourceQuery,
    content: last.content,
    tags: last.tags,
    refreshedAt: last.refreshedAt,
    staleOverride: last.staleOverride,
    basedOnIds: last.basedOnIds,
    version: last.version,
    updatedAt: last.createdAt,
    isStale: true,
    stalenessReason: "deleted",
    usable: false,
  };
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
    // A deleted model's id stays with its history.
    if (!(await getMentalModel(db, bankId, id)) && !(await getMentalModelTombstone(db, bankId, id))) return id;
  }
}

const toOverride = (choice: "auto" | "stale" | "fresh") => (choice === "auto" ? null : choice);

type ModelFields = Pick<
  MentalModelRecord,
  "name" | "sourceQuery" | "content" | "tags" | "refreshedAt" | "staleOverride" | "basedOnIds"
>;

/**
 * Creates a mental model at version 1, for the editor and the API alike: without an id, a readable
 * slug of the name that no live or deleted model holds.
 */
export async function createMentalModelRecord(
  db: Db,
  input: { bankId: string; id?: string } & Omit<ModelFields, "basedOnIds">,
): Promise<MentalModelRecord> {
  await requireBank(db, input.bankId);
  const id = input.id ?? (await uniqueModelId(db, input.bankId, input.name));
  return saveMentalModel(db, { ...input, id, expectedVersion: 0 });
}

/**
 * The one edit of a mental model, behind the editor's Save and the API's PUT: a new version with
 * the fields in `changes` and every other field as it is (tags, source query, override, refresh
 * time). A version other than `expectedVersion` is a `conflict` carrying the record as it is now
 * (null once deleted); a model that never existed is `not_found`.
 */
export async function updateMentalModelFields(
  db: Db,
  input: { bankId: string; id: string; expectedVersion: number; changes: Partial<ModelFields> },
): Promise<MentalModelRecord> {
  const { bankId, id, expectedVersion } = input;
  const current = await getMentalModel(db, bankId, id);
  if (!current) {
    if (await getMentalModelTombstone(db, bankId, id)) throw editConflict("mental model", expectedVersion, null);
    throw new AppError("not_found", `unknown mental model "${id}" in bank ${bankId}`);
  }
  if (current.version !== expectedVersion) throw editConflict("mental model", expectedVersion, current);
  const changes = Object.fromEntries(Object.entries(input.changes).filter(([, v]) => v !== undefined));
  return saveOrConflict(
    "mental model",
    expectedVersion,
    () => saveMentalModel(db, { ...current, ...changes, bankId, id, expectedVersion }),
    () => getMentalModel(db, bankId, id),
  );
}

/** The editor shows a conflict's newer model as its detail view. */
function conflictAsShown(err: unknown): never {
  if (isAppError(err, "conflict") && err.details.current) {
    const current = err.details.current as MentalModelRecord;
    throw new AppError("conflict", err.message, { current: toMentalModelDetail(current, 0) });
  }
  throw err;
}

/** The editor's Save: creates (no id) or edits every field the editor shows, through the services above. */
export async function saveMentalModelDraft(
  db: Db,
  draft: z.output<typeof MentalModelDraft>,
): Promise<MentalModelDetail> {
  const { bankId, id, expectedVersion, name, sourceQuery, content, tags } = draft;
  const staleOverride = toOverride(draft.staleOverride);
  const saved = id
    ? await updateMentalModelFields(db, {
        bankId,
        id,
        expectedVersion,
        changes: { name, sourceQuery, content, tags, staleOverride },
      }).catch(conflictAsShown)
    : await createMentalModelRecord(db, { bankId, name, sourceQuery, content, tags, staleOverride, refreshedAt: null });
  return mentalModelDetailOf(db, saved);
}

/**
 * Deletes the model, keeping its versions under a tombstone so runs' version links still open;
 * the editor's Delete and the API's DELETE alike.
 */
export async function deleteMentalModelById(db: Db, ref: z.output<typeof MentalModelRef>): Promise<Deleted> {
  if (!(await deleteMentalModel(db, ref.bankId, ref.id))) {
    throw new AppError("not_found", `mental model ${ref.id} does not exist (already deleted?)`);
  }
  return { deleted: true };
}

/** The API's list: every live model of the bank as stored. */
export async function mentalModelList(db: Db, bankId: string) {
  return { mentalModels: await listMentalModels(db, bankId) };
}

/** The API's detail: the model as stored with its versions, newest first. */
export async function mentalModelDetail(db: Db, bankId: string, id: string): Promise<MentalModelWithHistory> {
  const mentalModel = await getMentalModel(db, bankId, id);
  if (!mentalModel) throw new AppError("not_found", `unknown mental model "${id}" in bank ${bankId}`);
  const versions = (await getMentalModelVersions(db, bankId, id)).map(
    ({ bankId: _bank, modelId: _model, ...version }) => version,
  );
  return { mentalModel, versions };
}

/**
 * Restores an old version as a new one (every field as that version had it), on top of
 * `expectedVersion`; a model saved meanwhile is a `conflict` carrying the newer model.
 */
export async function restoreMentalModelVersion(
  db: Db,
  input: z.output<typeof RestoreVersionInput>,
): Promise<MentalModelDetail> {
  const asShown = async () => {
    const m = await getMentalModel(db, input.bankId, input.id);
    return m ? toMentalModelDetail(m, 0) : null;
  };
  const current = await getMentalModel(db, input.bankId, input.id);
  if (!current || current.version !== input.expectedVersion) {
    throw editConflict("mental model", input.expectedVersion, await asShown());
  }
  const old = (await getMentalModelVersions(db, input.bankId, input.id)).find((v) => v.version === input.version);
  if (!old) throw new AppError("not_found", `mental model ${input.id} has no version ${input.version}`);
  const saved = await saveOrConflict(
    "mental model",
    input.expectedVersion,
    () =>
      saveMentalModel(db, {
        bankId: input.bankId,
        id: input.id,
        expectedVersion: input.expectedVersion,
        name: old.name,
        sourceQuery: old.sourceQuery,
        content: old.content,
        tags: old.tags,
        refreshedAt: old.refreshedAt,
        staleOverride: old.staleOverride,
        basedOnIds: old.basedOnIds,
      }),
    asShown,
  );
  return mentalModelDetailOf(db, saved);
}
