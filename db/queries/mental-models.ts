/**
 * Mental models (tier 1): the current state in `mental_models`, every version in
 * `mental_model_versions`. Saves use optimistic concurrency on `version`. Staleness is computed in
 * one SQL statement for any number of models (see `STALENESS_SQL`), then decided by staleness.ts.
 */
import { randomUUID } from "node:crypto";
import type { InArgs, Row } from "@libsql/client";
import { and, desc, eq } from "drizzle-orm";
import { AppError } from "@/lib/contracts/errors";
import { canonicalJson } from "@/lib/reflect/call-signature";
import type { Db } from "../client";
import { mentalModels, mentalModelTombstones, mentalModelVersions } from "../schema";
import { isConstraintViolation } from "./errors";
import { decideStaleness, NEWER_COUNT_CAP, type Staleness } from "./staleness";

export interface MentalModelRecord {
  id: string;
  bankId: string;
  name: string;
  sourceQuery: string;
  content: string;
  tags: string[];
  refreshedAt: string | null;
  staleOverride: "stale" | "fresh" | null;
  basedOnIds: string[];
  version: number;
  updatedAt: string | null;
  isStale: boolean;
  stalenessReason: string;
  usable: boolean;
}

export type MentalModelVersion = typeof mentalModelVersions.$inferSelect;

/**
 * Memories newer than the refresh (counted up to the cap, which bounds the cost for long-unrefreshed
 * models) that carry every tag of the model (no tags = the whole bank).
 * Mental models are bank-wide, so memory scopes do not narrow this. Only counted when the
 * override and the "never refreshed" rule do not already decide.
 */
const CAP = NEWER_COUNT_CAP + 1;

/** The storage key of the bank of the row `mm`: its facts and observations are stored under it (bank-storage.ts). */
const STORAGE_OF_MM = "(SELECT coalesce(b.storage_id, b.id) FROM banks b WHERE b.id = mm.bank_id)";

/** A model without tags: every memory of the bank, by the (bank_id, updated_at) indexes. */
const newerInBank = (table: "facts" | "observations") => `
  (SELECT COUNT(*) FROM (SELECT 1 FROM ${table} x
    WHERE x.bank_id = ${STORAGE_OF_MM} AND x.updated_at > mm.refreshed_at LIMIT ${CAP}))`;

/**
 * A tagged model: scan the memories newer than the refresh that carry its first tag (an index
 * range on memory_tags), and keep those that carry every other tag too (primary-key lookups).
 * The second tag is looked up directly and `json_each` is opened only for a third and later tag:
 * opening it on every scanned row was most of the cost (50 models over 110k memories: 2–3× faster).
 */
const NEWER_WITH_TAGS = `
  (SELECT COUNT(*) FROM (SELECT 1 FROM memory_tags mt
    WHERE mt.bank_id = ${STORAGE_OF_MM} AND mt.tag = json_extract(mm.tags, '$[0]') AND mt.updated_at > mm.refreshed_at
      AND (json_array_length(mm.tags) < 2 OR EXISTS (SELECT 1 FROM memory_tags m2
        WHERE m2.tier = mt.tier AND m2.pk = mt.pk AND m2.tag = json_extract(mm.tags, '$[1]')))
      AND (json_array_length(mm.tags) < 3 OR NOT EXISTS (SELECT 1 FROM json_each(mm.tags) t
        WHERE t.key >= 2 AND NOT EXISTS
          (SELECT 1 FROM memory_tags m2 WHERE m2.tier = mt.tier AND m2.pk = mt.pk AND m2.tag = t.value)))
    LIMIT ${CAP}))`;

/** Newer memories in scope for the row `mm` (bank_id, tags, refreshed_at, stale_override). */
const NEWER_IN_SCOPE = `
  CASE WHEN mm.stale_override IS NULL AND mm.refreshed_at IS NOT NULL
       THEN CASE WHEN mm.tags = '[]' THEN ${newerInBank("facts")} + ${newerInBank("observations")}
                 ELSE ${NEWER_WITH_TAGS} END
       ELSE 0 END`;

const STALENESS_SQL = `
  SELECT mm.id, mm.bank_id, mm.name, mm.source_query, mm.content, mm.tags, mm.refreshed_at, mm.stale_override,
         mm.based_on_ids, mm.version, mm.updated_at, ${NEWER_IN_SCOPE} AS newer
  FROM mental_models mm`;

/** The same count for a model state given as values, e.g. one just written that a replica may not show yet. */
async function newerInScopeOf(
  db: Db,
  m: { bankId: string; tags: string[]; refreshedAt: string | null; staleOverride: "stale" | "fresh" | null },
): Promise<number> {
  const res = await db.$client.execute({
    sql: `SELECT ${NEWER_IN_SCOPE} AS newer
          FROM (SELECT ? AS bank_id, ? AS tags, ? AS refreshed_at, ? AS stale_override) mm`,
    args: [m.bankId, JSON.stringify(m.tags), m.refreshedAt, m.staleOverride],
  });
  return Number(res.rows[0]?.newer ?? 0);
}

function toRecord(r: Row): MentalModelRecord {
  const staleOverride = r.stale_override === "stale" || r.stale_override === "fresh" ? r.stale_override : null;
  return withStaleness(
    {
      id: String(r.id),
      bankId: String(r.bank_id),
      name: String(r.name),
      sourceQuery: String(r.source_query),
      content: String(r.content),
      tags: JSON.parse(String(r.tags)) as string[],
      refreshedAt: r.refreshed_at === null ? null : String(r.refreshed_at),
      staleOverride,
      basedOnIds: JSON.parse(String(r.based_on_ids)) as string[],
      version: Number(r.version),
      updatedAt: r.updated_at === null ? null : String(r.updated_at),
    },
    Number(r.newer),
  );
}

type StoredModel = Omit<MentalModelRecord, "isStale" | "stalenessReason" | "usable">;

function withStaleness(m: StoredModel, newerInScope: number): MentalModelRecord {
  const staleness: Staleness = decideStaleness({ ...m, newerInScope });
  return { ...m, isStale: staleness.isStale, stalenessReason: staleness.reason, usable: staleness.usable };
}

/** Models of a bank with their staleness; `ids` narrows the set (order follows name, then id). */
export async function listMentalModels(db: Db, bankId: string, ids?: readonly string[]): Promise<MentalModelRecord[]> {
  if (ids && ids.length === 0) return [];
  const args: InArgs = [bankId];
  let where = "mm.bank_id = ?";
  if (ids) {
    where += ` AND mm.id IN (SELECT value FROM json_each(?))`;
    args.push(JSON.stringify(ids));
  }
  const res = await db.$client.execute({ sql: `${STALENESS_SQL} WHERE ${where} ORDER BY mm.name, mm.id`, args });
  return res.rows.map(toRecord);
}

export async function getMentalModel(db: Db, bankId: string, id: string): Promise<MentalModelRecord | null> {
  return (await listMentalModels(db, bankId, [id]))[0] ?? null;
}

export async function countMentalModels(db: Db, bankId: string): Promise<number> {
  return db.$count(mentalModels, eq(mentalModels.bankId, bankId));
}

export async function getMentalModelVersions(db: Db, bankId: string, id: string): Promise<MentalModelVersion[]> {
  return db
    .select()
    .from(mentalModelVersions)
    .where(and(eq(mentalModelVersions.bankId, bankId), eq(mentalModelVersions.modelId, id)))
    .orderBy(desc(mentalModelVersions.version));
}

export interface SaveMentalModel {
  bankId: string;
  /** Omit to create a model with a generated id. */
  id?: string;
  /** The version the edit was based on; 0 to create. A mismatch throws a `conflict` AppError carrying the current record. */
  expectedVersion: number;
  name: string;
  sourceQuery: string;
  content: string;
  tags: string[];
  refreshedAt: string | null;
  staleOverride: "stale" | "fresh" | null;
  basedOnIds?: string[];
  /** When the version is saved (ISO); defaults to now. */
  at?: string;
}

/** Creates or edits a model; every save is a new version and the history keeps all of them. */
export async function saveMentalModel(db: Db, input: SaveMentalModel): Promise<MentalModelRecord> {
  const id = input.id ?? `mm_${randomUUID()}`;
  const version = input.expectedVersion + 1;
  const state = {
    name: input.name,
    sourceQuery: input.sourceQuery,
    content: input.content,
    tags: input.tags,
    refreshedAt: input.refreshedAt === null ? null : new Date(input.refreshedAt).toISOString(),
    staleOverride: input.staleOverride,
    basedOnIds: input.basedOnIds ?? [],
  };
  const at = new Date(input.at ?? Date.now()).toISOString();
  const conflict = async () => {
    const current = await getMentalModel(db, input.bankId, id);
    return new AppError(
      "conflict",
      current
        ? `mental model ${id} is at version ${current.version}, not ${input.expectedVersion}`
        : `mental model ${id} does not exist`,
      { current },
    );
  };
  const versionRow = db
    .insert(mentalModelVersions)
    .values({ bankId: input.bankId, modelId: id, version, ...state, createdAt: at });
  try {
    if (input.expectedVersion === 0) {
      if (await getMentalModelTombstone(db, input.bankId, id)) {
        throw new AppError(
          "conflict",
          `mental model ${id} was deleted; its history keeps the id, so create the model under another id`,
          { current: null },
        );
      }
      await db.batch([
        db.insert(mentalModels).values({ bankId: input.bankId, id, version, updatedAt: at, ...state }),
        versionRow,
      ]);
    } else {
      const current = await getMentalModel(db, input.bankId, id);
      if (!current || current.version !== input.expectedVersion) throw await conflict();
      // Saving what is already there is not an edit: no new version, no "no field changed" entry.
      const unchanged = (Object.keys(state) as (keyof typeof state)[]).every(
        (k) => canonicalJson(current[k]) === canonicalJson(state[k]),
      );
      if (unchanged) return current;
      // The WHERE on version makes a concurrent save lose cleanly; the version row's primary key
      // then rejects the duplicate version and the batch rolls back.
      const [updated] = await db.batch([
        db
          .update(mentalModels)
          .set({ version, updatedAt: at, ...state })
          .where(
            and(
              eq(mentalModels.bankId, input.bankId),
              eq(mentalModels.id, id),
              eq(mentalModels.version, input.expectedVersion),
            ),
          ),
        versionRow,
      ]);
      if (updated.rowsAffected === 0) throw await conflict();
    }
  } catch (error) {
    if (isConstraintViolation(error)) throw await conflict();
    throw error;
  }
  // Built from what was written rather than read back: against a libSQL replica the write is
  // forwarded to the primary and the replica may not show it yet.
  const saved: StoredModel = { id, bankId: input.bankId, version, updatedAt: at, ...state };
  return withStaleness(saved, await newerInScopeOf(db, saved));
}

/** Sets or clears the manual staleness override; a new version like any other edit. */
export async function setStaleOverride(
  db: Db,
  input: { bankId: string; id: string; override: "stale" | "fresh" | null; expectedVersion?: number; at?: string },
): Promise<MentalModelRecord> {
  const current = await getMentalModel(db, input.bankId, input.id);
  if (!current) throw new AppError("not_found", `mental model ${input.id} not found in bank ${input.bankId}`);
  return saveMentalModel(db, {
    ...current,
    expectedVersion: input.expectedVersion ?? current.version,
    staleOverride: input.override,
    at: input.at,
  });
}

export type MentalModelTombstone = typeof mentalModelTombstones.$inferSelect;

/**
 * Deletes the live model and leaves a tombstone: the versions stay, so the runs that read one can
 * still open it. Returns whether a live model existed.
 */
export async function deleteMentalModel(db: Db, bankId: string, id: string, at = new Date()): Promise<boolean> {
  const current = await getMentalModel(db, bankId, id);
  if (!current) return false;
  const tombstone = { name: current.name, lastVersion: current.version, deletedAt: at.toISOString() };
  const [deleted] = await db.batch([
    db.delete(mentalModels).where(and(eq(mentalModels.bankId, bankId), eq(mentalModels.id, id))),
    db
      .insert(mentalModelTombstones)
      .values({ bankId, modelId: id, ...tombstone })
      .onConflictDoUpdate({ target: [mentalModelTombstones.bankId, mentalModelTombstones.modelId], set: tombstone }),
  ]);
  return deleted.rowsAffected > 0;
}

/**
 * The model as it would read with `changes` applied, staleness included, without saving anything
 * (an experiment's draft).
 */
export async function previewMentalModel(
  db: Db,
  current: MentalModelRecord,
  changes: { content?: string; staleOverride?: "stale" | "fresh" | null },
): Promise<MentalModelRecord> {
  const next: StoredModel = {
    ...current,
    content: changes.content ?? current.content,
    staleOverride: changes.staleOverride === undefined ? current.staleOverride : changes.staleOverride,
  };
  return withStaleness(next, await newerInScopeOf(db, next));
}

/** The tombstone of a deleted model, or null (a live model, or an id that never existed). */
export async function getMentalModelTombstone(
  db: Db,
  bankId: string,
  id: string,
): Promise<MentalModelTombstone | null> {
  const [row] = await db
    .select()
    .from(mentalModelTombstones)
    .where(and(eq(mentalModelTombstones.bankId, bankId), eq(mentalModelTombstones.modelId, id)));
  return row ?? null;
}
