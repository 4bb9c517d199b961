/**
 * Bank bundle import and export (docs/cli.md). Import validates the whole bundle first (schema, then
 * cross-references), then writes it in one atomic batch: a bad bundle changes nothing. Times are
 * kept as given, normalized to UTC `toISOString()` form so that stored strings compare correctly;
 * export emits the stored strings in a stable order, so export → import → export is identical.
 */
import type { InStatement, Transaction } from "@libsql/client";
import { and, asc, eq, isNotNull, isNull, notInArray, notLike, type SQL } from "drizzle-orm";
import type { z } from "zod";
import { inWriteTransaction } from "@/db/queries/transaction";
import type { ImportResult } from "@/lib/contracts/banks";
import { Bundle, BundleFact, BundleMentalModel, BundleObservation, BundleSkill } from "@/lib/contracts/bundle";
import { AppError, fieldErrorsOf, formatPath, gotValue } from "@/lib/contracts/errors";
import { BundleSuite } from "@/lib/contracts/suites";
import { assertValidText } from "@/lib/contracts/text";
import type { Db } from "../../../db/client";
import { RETIRED_KEY_SQL, STORED_TABLES, storageKeyOf } from "../../../db/queries/bank-storage";
import { isConstraintViolation } from "../../../db/queries/errors";
import {
  createBankIndexStatements,
  dropBankIndexStatements,
  dropRetiredIndexes,
  flushStatements,
  ftsTable,
  PENDING_TABLE,
  SEARCHED_TABLES,
  type SearchedTable,
} from "../../../db/queries/search-index";
import {
  banks,
  facts,
  mentalModelRefreshes,
  mentalModels,
  mentalModelTombstones,
  mentalModelVersions,
  observations,
  skills,
  skillVersions,
  suites,
  suiteVersions,
} from "../../../db/schema";

interface BundleIssue {
  /** JSON path of the offending value, e.g. `facts[3].scope`. */
  path: string;
  message: string;
}

/** The one error for a refused bundle: every issue by path; the message names the first. */
function invalidBundle(issues: readonly BundleIssue[]): AppError<"invalid_bundle"> {
  const [first] = issues;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return new AppError(
    "invalid_bundle",
    `invalid bundle, nothing was imported: ${first?.path || "(root)"}: ${first?.message}${more}`,
    { fieldErrors: fieldErrorsOf(issues.map(({ path, message }) => ({ path: path ? [path] : [], message }))) },
  );
}

const MAX_ISSUES = 50;

/** Schema validation plus the cross-checks a schema cannot express. */
export function validateBundle(json: unknown): Bundle {
  const parsed = Bundle.safeParse(json);
  if (!parsed.success) {
    throw invalidBundle(
      parsed.error.issues.slice(0, MAX_ISSUES).map((issue: z.core.$ZodIssue) => ({
        path: formatPath(issue.path),
        message: `${issue.message}${gotValue(json, issue.path)}`,
      })),
    );
  }
  const bundle = parsed.data;
  const issues: BundleIssue[] = [];
  const unique = (list: { id: string }[] | { name: string }[], section: string, key: "id" | "name") => {
    const first = new Map<string, number>();
    list.forEach((item, i) => {
      const value = (item as Record<string, string>)[key] ?? "";
      const seen = first.get(value);
      if (seen === undefined) first.set(value, i);
      else
        issues.push({
          path: `${section}[${i}].${key}`,
          message: `duplicate ${key} "${value}" (first at ${section}[${seen}])`,
        });
    });
  };
  unique(bundle.facts, "facts", "id");
  unique(bundle.observations, "observations", "id");
  unique(bundle.mentalModels, "mentalModels", "id");
  unique(bundle.skills, "skills", "id");
  unique(bundle.skills, "skills", "name");
  unique(bundle.suites, "suites", "name");
  const factIds = new Set(bundle.facts.map((f) => f.id));
  bundle.observations.forEach((o, i) => {
    o.sourceFactIds.forEach((id, j) => {
      if (!factIds.has(id)) {
        issues.push({ path: `observations[${i}].sourceFactIds[${j}]`, message: `unknown fact id "${id}"` });
      }
    });
  });
  bundle.mentalModels.forEach((m, i) => {
    const versions = new Set<number>();
    m.history.forEach((h, j) => {
      const path = `mentalModels[${i}].history[${j}].version`;
      if (h.version >= m.version) {
        issues.push({ path, message: `history version ${h.version} must be below the current version ${m.version}` });
      } else if (versions.has(h.version)) {
        issues.push({ path, message: `duplicate history version ${h.version}` });
      }
      versions.add(h.version);
    });
  });
  if (issues.length > 0) throw invalidBundle(issues.slice(0, MAX_ISSUES));
  return bundle;
}

const iso = (time: string) => new Date(time).toISOString();
const isoOrNull = (time: string | null | undefined) => (time ? iso(time) : null);

/** Rows per INSERT: keeps every statement well under SQLite's bound-parameter limit. */
const CHUNK = 200;

function chunked<T>(rows: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rows.slice(i, i + CHUNK));
  return out;
}

function toStatement(query: { toSQL(): { sql: string; params: unknown[] } }): InStatement {
  const { sql, params } = query.toSQL();
  return { sql, args: params as InStatement extends { args?: infer A } ? A : never };
}

/** Deletes what a replaced bank held (its runs are kept) and inserts the bank row; drops its index first. */
function bankStatements(db: Db, bank: Bundle["bank"], existing: boolean): InStatement[] {
  // The bank's search index is dropped first (so replaced rows are deleted without index upkeep)
  // and rebuilt from the new rows at the end, which is faster than indexing row by row.
  const statements: InStatement[] = [...dropBankIndexStatements(bank.id)];
  if (existing) {
    // Facts and observations are stored under the bank's storage key (db/queries/bank-storage.ts).
    for (const table of [facts, observations])
      statements.push(toStatement(db.delete(table).where(eq(table.bankId, storageKeyOf(bank.id)))));
    return [...statements, ...curatedReplaceStatements(db, bank)];
  }
  statements.push(
    toStatement(db.insert(banks).values({ id: bank.id, name: bank.name, permittedTeams: bank.permittedTeams })),
  );
  return statements;
}

/**
 * Deletes a replaced bank's mental models, skills and suites (few rows: they name the bank itself)
 * and updates its row; its facts and observations are the caller's business.
 */
function curatedReplaceStatements(db: Db, bank: Bundle["bank"]): InStatement[] {
  return [
    ...[mentalModels, mentalModelRefreshes, skills, skillVersions, suites, suiteVersions].map((table) =>
      toStatement(db.delete(table).where(eq(table.bankId, bank.id))),
    ),
    // A deleted model keeps its tombstone and versions (runs read them; its id stays unusable).
    toStatement(
      db
        .delete(mentalModelVersions)
        .where(
          and(
            eq(mentalModelVersions.bankId, bank.id),
            notInArray(
              mentalModelVersions.modelId,
              db
                .select({ id: mentalModelTombstones.modelId })
                .from(mentalModelTombstones)
                .where(eq(mentalModelTombstones.bankId, bank.id)),
            ),
          ),
        ),
    ),
    // Updated in place: deleting the row would cascade to the tombstones.
    toStatement(
      db.update(banks).set({ name: bank.name, permittedTeams: bank.permittedTeams }).where(eq(banks.id, bank.id)),
    ),
  ];
}

/** The `bank_id` of a bank's facts and observations: a staging's own id, or a bank's storage key. */
type RowKey = string | SQL;

const factRow = (bankId: RowKey, f: Bundle["facts"][number]) => ({
  id: f.id,
  bankId,
  text: f.text,
  kind: f.kind,
  tags: f.tags,
  scope: f.scope,
  occurredAt: isoOrNull(f.occurredAt),
  recordedAt: iso(f.recordedAt),
  updatedAt: iso(f.updatedAt ?? f.recordedAt),
  documentId: f.documentId ?? null,
  speaker: f.speaker ?? null,
  sessionId: f.sessionId ?? null,
  position: f.position ?? null,
});

const observationRow = (bankId: RowKey, o: Bundle["observations"][number]) => ({
  ...o,
  bankId,
  updatedAt: iso(o.updatedAt),
});

const factStatements = (db: Db, bankId: RowKey, list: Bundle["facts"]) =>
  chunked(list.map((f) => factRow(bankId, f))).map((rows) => toStatement(db.insert(facts).values(rows)));

const observationStatements = (db: Db, bankId: RowKey, list: Bundle["observations"]) =>
  chunked(list.map((o) => observationRow(bankId, o))).map((rows) => toStatement(db.insert(observations).values(rows)));

/** Mental models (current state and every version) and skills (with their first version). */
function modelAndSkillStatements(db: Db, bankId: string, bundle: Pick<Bundle, "mentalModels" | "skills">) {
  const statements: InStatement[] = [];
  const modelRows = bundle.mentalModels.map((m) => {
    const lastHistory = [...m.history].sort((a, b) => a.version - b.version).at(-1);
    return {
      id: m.id,
      bankId,
      name: m.name,
      sourceQuery: m.sourceQuery,
      content: m.content,
      tags: m.tags,
      refreshedAt: isoOrNull(m.refreshedAt),
      staleOverride: m.staleOverride,
      basedOnIds: m.basedOnIds,
      version: m.version,
      updatedAt: isoOrNull(m.updatedAt ?? m.refreshedAt ?? lastHistory?.createdAt),
    };
  });
  const versionRows = bundle.mentalModels.flatMap((m, i) => {
    const current = modelRows[i]!;
    return [
      ...m.history.map((h) => ({
        bankId,
        modelId: m.id,
        version: h.version,
        name: h.name,
        sourceQuery: h.sourceQuery,
        content: h.content,
        tags: h.tags,
        refreshedAt: isoOrNull(h.refreshedAt),
        staleOverride: h.staleOverride,
        basedOnIds: h.basedOnIds,
        createdAt: isoOrNull(h.createdAt),
      })),
      {
        bankId,
        modelId: m.id,
        version: current.version,
        name: current.name,
        sourceQuery: current.sourceQuery,
        content: current.content,
        tags: current.tags,
        refreshedAt: current.refreshedAt,
        staleOverride: current.staleOverride,
        basedOnIds: current.basedOnIds,
        createdAt: current.updatedAt,
      },
    ];
  });
  for (const rows of chunked(modelRows)) statements.push(toStatement(db.insert(mentalModels).values(rows)));
  for (const rows of chunked(versionRows)) statements.push(toStatement(db.insert(mentalModelVersions).values(rows)));

  const skillRows = bundle.skills.map((s) => ({
    id: s.id,
    bankId,
    name: s.name,
    mission: s.mission,
    disposition: s.disposition,
    retrieval: s.retrieval,
    budget: s.budget,
    anchorEvery: s.anchorEvery,
    outputFormat: s.outputFormat,
    answerFormat: s.answerFormat,
    version: s.version,
    updatedAt: null,
  }));
  for (const rows of chunked(skillRows)) {
    statements.push(toStatement(db.insert(skills).values(rows)));
    statements.push(
      toStatement(
        db
          .insert(skillVersions)
          .values(rows.map(({ id, updatedAt: _updatedAt, ...s }) => ({ ...s, skillId: id, createdAt: null }))),
      ),
    );
  }
  return statements;
}

/** Suites (current state and its first stored version). */
function suiteStatements(db: Db, bankId: string, list: Bundle["suites"]): InStatement[] {
  const statements: InStatement[] = [];
  const suiteRows = list.map((s) => ({
    bankId,
    name: s.name,
    description: s.description,
    questions: s.questions,
    version: s.version ?? 1,
    updatedAt: isoOrNull(s.updatedAt ?? null),
  }));
  for (const rows of chunked(suiteRows)) {
    statements.push(toStatement(db.insert(suites).values(rows)));
    statements.push(
      toStatement(db.insert(suiteVersions).values(rows.map(({ updatedAt, ...s }) => ({ ...s, createdAt: updatedAt })))),
    );
  }
  return statements;
}

/** Ids of the bank's deleted mental models: their tombstones (and version history) outlive a replace. */
export async function tombstonedModelIds(db: Db, bankId: string): Promise<Set<string>> {
  const rows = await db
    .select({ id: mentalModelTombstones.modelId })
    .from(mentalModelTombstones)
    .where(eq(mentalModelTombstones.bankId, bankId));
  return new Set(rows.map((r) => r.id));
}

/** A deleted model's id is refused here as everywhere else (a replace would bring it back with its history replaced). */
function refuseTombstoned(models: readonly { id: string }[], deleted: Set<string>, path: (i: number) => string): void {
  const issues = models.flatMap((m, i) =>
    deleted.has(m.id)
      ? [{ path: path(i), message: `mental model "${m.id}" was deleted: a deleted id is not reused (pick another id)` }]
      : [],
  );
  if (issues.length > 0) throw invalidBundle(issues);
}

async function bankExists(db: Db, bankId: string, replace: boolean | undefined): Promise<boolean> {
  const [existing] = await db
    .select({ id: banks.id, importOwner: banks.importOwner })
    .from(banks)
    .where(eq(banks.id, bankId));
  if (existing?.importOwner) {
    throw invalidBundle([
      {
        path: "bank.id",
        message: `bank "${bankId}" is being imported by another process (if that process stopped, its import is removed within a minute by a running server, or by the next import)`,
      },
    ]);
  }
  if (existing && !replace) {
    throw invalidBundle([
      { path: "bank.id", message: `bank "${bankId}" already exists (import with replace to overwrite it)` },
    ]);
  }
  return Boolean(existing);
}

/**
 * Imports a bundle atomically. A bank id that already exists is an error unless `replace` is set,
 * in which case the bank's memories, models and skills are replaced (its runs are kept).
 */
export async function importBundle(db: Db, json: unknown, options: { replace?: boolean } = {}): Promise<ImportResult> {
  // Text that cannot round-trip (a NUL, a lone surrogate) would break the bank's next export.
  assertValidText(json, "the bundle");
  const bundle = validateBundle(json);
  const bankId = bundle.bank.id;
  const existing = await bankExists(db, bankId, options.replace);
  if (existing)
    refuseTombstoned(bundle.mentalModels, await tombstonedModelIds(db, bankId), (i) => `mentalModels[${i}].id`);
  try {
    await db.$client.batch(
      [
        ...bankStatements(db, bundle.bank, existing),
        // A replaced bank's rows go to its storage (the bank's own id for a new bank).
        ...factStatements(db, existing ? storageKeyOf(bankId) : bankId, bundle.facts),
        ...observationStatements(db, existing ? storageKeyOf(bankId) : bankId, bundle.observations),
        ...modelAndSkillStatements(db, bankId, bundle),
        ...suiteStatements(db, bankId, bundle.suites),
        // A tier gets an index only when it holds rows (search-index.ts).
        ...createBankIndexStatements(
          bankId,
          SEARCHED_TABLES.filter(
            (t) =>
              (t === "facts" ? bundle.facts : t === "observations" ? bundle.observations : bundle.mentalModels).length >
              0,
          ),
        ),
      ],
      "write",
    );
  } catch (err) {
    // Another import made the same new bank between the check above and this write: the batch
    // rolled back on the bank's key, and this import is refused by name, not as a raw SQL error.
    if (!existing && isConstraintViolation(err) && (await bankExists(db, bankId, true)))
      throw invalidBundle([
        {
          path: "bank.id",
          message: `bank "${bankId}" already exists: another import made it at the same time (import again${options.replace ? "" : " with replace"} to overwrite it)`,
        },
      ]);
    throw err;
  }
  return {
    bankId,
    counts: {
      facts: bundle.facts.length,
      observations: bundle.observations.length,
      mentalModels: bundle.mentalModels.length,
      skills: bundle.skills.length,
      suites: bundle.suites.length,
    },
  };
}

/**
 * Rows a line-stream import commits at a time. Each chunk is its own short transaction (its rows and
 * their index entries), and between chunks the import lets go of the write lock for LOCK_PAUSE_MS,
 * so another writer on the file (a server's run events, its heartbeat) waits at most about one
 * chunk (docs/performance.md, the `writes` bench section).
 */
export const STAGING_ROWS_PER_COMMIT = 5_000;
/**
 * A chunk's transaction should hold the lock about this long: on a loaded machine 5,000 rows take
 * seconds, so the chunk shrinks (to 250 rows at least) until its commits take about this long, and
 * grows back (to STAGING_ROWS_PER_COMMIT at most) when they are quick.
 */
const CHUNK_TARGET_MS = 250;
const MIN_ROWS_PER_COMMIT = 250;

/** The next chunk's rows, aiming at CHUNK_TARGET_MS from the last one's time (at most double, at least the minimum). */
function nextChunkSize(rows: number, ms: number, max: number): number {
  const scaled = Math.round((rows * CHUNK_TARGET_MS) / Math.max(ms, 1));
  return Math.min(max, Math.max(MIN_ROWS_PER_COMMIT, Math.min(scaled, rows * 2)));
}
/**
 * Longer than SQLite's longest sleep between two tries of a writer waiting on the lock (100 ms): a
 * waiting writer wakes inside the pause and takes the lock, instead of finding the next chunk's.
 */
const LOCK_PAUSE_MS = 110;

const BundleHeader = Bundle.pick({ version: true, bank: true });
/** A line's one key names its record type. */
const LINE_RECORDS = {
  fact: BundleFact,
  observation: BundleObservation,
  mentalModel: BundleMentalModel,
  skill: BundleSkill,
  suite: BundleSuite,
} as const;
type LineRecord = {
  [K in keyof typeof LINE_RECORDS]: { kind: K; value: z.output<(typeof LINE_RECORDS)[K]> };
}[keyof typeof LINE_RECORDS];

/** A staging bank's id: not a valid bank id (slugs have no `~`), so no route can name it. */
const stagingBankId = () => `~import-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;

/** Rows the removal of a staging bank deletes per transaction. */
const REMOVE_ROWS_PER_COMMIT = 5_000;

/**
 * The owner a staging is handed to while it is removed: the import (alive after all, say) then finds
 * it no longer its own at its next chunk or final transaction, so a staging half removed is never
 * made visible. No process has this id, so a removal that stopped midway is finished by the next sweep.
 */
const REMOVING_OWNER = "~removing";

/**
 * Removes an import's staging (a bank row that is still `importOwner`'s, with its rows and index),
 * in short transactions like the import's. The staging is first taken from its import (one
 * statement), then every delete is conditional on it still being taken: a bank the import made
 * visible meanwhile is never touched.
 */
export async function removeStagedImport(db: Db, bankId: string, owner: string): Promise<void> {
  await db.$client.execute({
    sql: "UPDATE banks SET import_owner = ? WHERE id = ? AND import_owner = ?",
    args: [REMOVING_OWNER, bankId, owner],
  });
  const importOwner = REMOVING_OWNER;
  const stillStaged = "EXISTS (SELECT 1 FROM banks WHERE id = ? AND import_owner = ?)";
  for (;;) {
    const results = await db.$client.batch(
      [
        ...["facts", "observations"].map((table) => ({
          sql: `DELETE FROM ${table} WHERE pk IN (SELECT pk FROM ${table} WHERE bank_id = ? AND ${stillStaged} LIMIT ${REMOVE_ROWS_PER_COMMIT})`,
          args: [bankId, bankId, importOwner],
        })),
        {
          sql: `DELETE FROM ${PENDING_TABLE} WHERE bank_id = ? AND ${stillStaged}`,
          args: [bankId, bankId, importOwner],
        },
      ],
      "write",
    );
    if ((results[0]?.rowsAffected ?? 0) + (results[1]?.rowsAffected ?? 0) === 0) break;
    await new Promise((r) => setTimeout(r, LOCK_PAUSE_MS));
  }
  await inWriteTransaction(db, async (tx) => {
    const owned = await tx.execute({
      sql: "SELECT 1 FROM banks WHERE id = ? AND import_owner = ?",
      args: [bankId, importOwner],
    });
    if (owned.rows.length > 0) {
      await tx.batch([
        ...dropBankIndexStatements(bankId),
        // Whatever a final transaction that failed may have left (it is rolled back whole; belt and braces).
        ...["mental_models", "mental_model_versions", "skills", "skill_versions", "suites", "suite_versions"].map(
          (table) => ({ sql: `DELETE FROM ${table} WHERE bank_id = ?`, args: [bankId] }),
        ),
        { sql: `DELETE FROM ${PENDING_TABLE} WHERE bank_id = ?`, args: [bankId] },
        { sql: "DELETE FROM banks WHERE id = ? AND import_owner = ?", args: [bankId, importOwner] },
      ]);
    }
  });
}

/**
 * Removes the staging of every import whose process has stopped (`isGone(ownerId)`, the run-owner
 * rules: lib/server/run-owner.ts), then what replaced banks left (`removeRetiredStorage`). Run by a
 * server's sweep and before each JSONL import. Returns the staging banks removed.
 */
export async function removeAbandonedImports(db: Db, isGone: (ownerId: string) => Promise<boolean>): Promise<string[]> {
  const staged = await db
    .select({ id: banks.id, importOwner: banks.importOwner })
    .from(banks)
    .where(isNotNull(banks.importOwner));
  const removed: string[] = [];
  for (const { id, importOwner } of staged) {
    if (!importOwner || !(await isGone(importOwner))) continue;
    await removeStagedImport(db, id, importOwner);
    removed.push(id);
  }
  await removeRetiredStorage(db, { budgetMs: SWEEP_REMOVAL_BUDGET_MS });
  return removed;
}

/**
 * How long one sweep removes a replaced bank's old rows before it leaves the rest to the next: a
 * server's heartbeat waits for its sweep, and another host judges a quiet heartbeat (30 s) dead.
 */
const SWEEP_REMOVAL_BUDGET_MS = 3_000;

/**
 * Storage keys no bank reads any more that still hold rows (db/queries/bank-storage.ts): a replaced
 * bank's own id while its old facts or observations remain, and every `~…` storage row without an
 * owner that no bank names (one read; nothing when there is nothing to remove).
 */
async function retiredKeys(db: Db, latest: boolean): Promise<string[]> {
  const held = STORED_TABLES.map((t) => `EXISTS (SELECT 1 FROM ${t} WHERE bank_id = b.id)`).join(" OR ");
  const statement = `SELECT b.id FROM banks b
      WHERE (b.id LIKE '~%' AND b.import_owner IS NULL AND NOT EXISTS (SELECT 1 FROM banks o WHERE o.storage_id = b.id))
         OR (b.storage_id IS NOT NULL AND b.storage_id <> b.id AND (${held}
             OR EXISTS (SELECT 1 FROM ${PENDING_TABLE} WHERE bank_id = b.id AND tbl IN ('facts', 'observations'))))`;
  // Right after a swap, read as a writer: a read replica answers a plain read from its own copy,
  // which may not have the swap yet (nothing would look retired), and forwards a write batch to its
  // primary, which has it.
  const { rows } = latest ? (await db.$client.batch([statement], "write"))[0]! : await db.$client.execute(statement);
  return rows.map((r) => String(r.id));
}

/**
 * Removes what replaced banks left behind: the old indexes (renamed at the swap), then the old
 * storage's facts and observations in short transactions like an import's chunks, pausing between
 * them so another writer gets the lock, and last a `~…` storage row itself. Each delete holds only
 * while no bank reads the key (a bank the key was swapped back into is never touched). Run after a
 * replace's swap and by every sweep: a process killed mid-way leaves the rest for the next one.
 * `indexes`: right after a swap: look for old indexes even when no rows are left, and read what is
 * left as a writer (through a read replica: from its primary, which has the swap); `budgetMs`: stop
 * after about that long (at a chunk's end), leaving the rest to the next call; `signal`: stop too.
 */
export async function removeRetiredStorage(
  db: Db,
  options: { indexes?: boolean; signal?: AbortSignal; budgetMs?: number } = {},
): Promise<string[]> {
  const begun = performance.now();
  let done = 0;
  const keys = await retiredKeys(db, options.indexes === true);
  if (keys.length === 0 && !options.indexes) return [];
  await dropRetiredIndexes(db, { latest: options.indexes === true });
  for (const key of keys) {
    let rowsPerCommit = REMOVE_ROWS_PER_COMMIT;
    for (let chunk = 0; ; chunk++) {
      if (chunk > 0) await new Promise((r) => setTimeout(r, LOCK_PAUSE_MS));
      if (options.signal?.aborted) return keys;
      // At least one chunk per call, whatever the budget.
      if (done++ > 0 && options.budgetMs !== undefined && performance.now() - begun > options.budgetMs) return keys;
      const started = performance.now();
      const results = await db.$client.batch(
        [
          ...STORED_TABLES.map((table) => ({
            sql: `DELETE FROM ${table} WHERE pk IN (SELECT pk FROM ${table} WHERE bank_id = ? AND ${RETIRED_KEY_SQL} LIMIT ${rowsPerCommit})`,
            args: [key, key],
          })),
          {
            sql: `DELETE FROM ${PENDING_TABLE} WHERE bank_id = ? AND tbl IN ('facts', 'observations') AND ${RETIRED_KEY_SQL}`,
            args: [key, key],
          },
        ],
        "write",
      );
      if (results.slice(0, STORED_TABLES.length).every((r) => r.rowsAffected === 0)) break;
      rowsPerCommit = nextChunkSize(rowsPerCommit, performance.now() - started, REMOVE_ROWS_PER_COMMIT);
    }
    if (key.startsWith("~"))
      await db.$client.batch(
        [
          {
            sql: `DELETE FROM banks WHERE id = ? AND import_owner IS NULL AND ${RETIRED_KEY_SQL}
                    AND NOT EXISTS (SELECT 1 FROM facts WHERE bank_id = ?) AND NOT EXISTS (SELECT 1 FROM observations WHERE bank_id = ?)`,
            args: [key, key, key, key],
          },
        ],
        "write",
      );
  }
  return keys;
}

/**
 * Makes a replace's staging the bank, in one transaction whose cost does not grow with either bank:
 * the old bank's mental models, skills and suites go (its runs and deleted models' tombstones stay),
 * the bank's storage key becomes the staging's (its facts and observations are read from there on;
 * db/queries/bank-storage.ts), and the staging's full-text indexes are renamed to the bank's, the
 * old ones out of the way (`~import-…~replaced`, dropped by `removeRetiredStorage` with the old rows).
 * `indexed`: the names of the indexes the bank has now; `stagedTiers`: the tiers the staging holds rows of.
 */
function replaceSwapStatements(
  db: Db,
  bank: Bundle["bank"],
  stageId: string,
  indexed: ReadonlySet<string>,
  stagedTiers: ReadonlySet<SearchedTable>,
): InStatement[] {
  const bankId = bank.id;
  const retired = `${stageId}~replaced`;
  return [
    ...curatedReplaceStatements(db, bank),
    // The old models were indexed only in the old index (renamed below): nothing of them to apply.
    { sql: `DELETE FROM ${PENDING_TABLE} WHERE bank_id = ? AND tbl = 'mental_models'`, args: [bankId] },
    // The bank's indexes move out of the way; only the tiers the staging holds rows of have an
    // index to move in (search-index.ts makes a tier's index with its first rows).
    ...SEARCHED_TABLES.flatMap((table) => {
      const live = ftsTable(table, bankId);
      return [
        ...(indexed.has(live) ? [`ALTER TABLE ${live} RENAME TO ${ftsTable(table, retired)}`] : []),
        ...(stagedTiers.has(table) ? [`ALTER TABLE ${ftsTable(table, stageId)} RENAME TO ${live}`] : []),
      ];
    }),
    { sql: "UPDATE banks SET storage_id = ? WHERE id = ?", args: [stageId, bankId] },
    // The staging row stays, as the storage its rows' foreign key names; no longer an import's.
    { sql: "UPDATE banks SET import_owner = NULL WHERE id = ?", args: [stageId] },
  ];
}

/**
 * Which of the bank's index tables exist now (a tier gets one with its first rows; a bank made by
 * raw SQL may have none yet). Read in the swap's own transaction (`reader`): a writer that gives the
 * bank a tier's first rows just before would otherwise make an index the swap then collides with.
 */
async function existingIndexes(reader: Pick<Transaction, "execute">, bankId: string): Promise<Set<string>> {
  const names = SEARCHED_TABLES.map((t) => ftsTable(t, bankId));
  const { rows } = await reader.execute({
    sql: `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (${names.map(() => "?").join(", ")})`,
    args: names,
  });
  return new Set(rows.map((r) => String(r.name)));
}

export interface ImportLinesOptions {
  replace?: boolean;
  /**
   * The importing process's run-owner id (lib/server/run-owner.ts `runOwner`): its staging is
   * removed by a sweep once that owner has stopped, never while it lives.
   */
  ownerId: string;
  /** Stops the import between two chunks; its staging is removed and nothing is imported. */
  signal?: AbortSignal;
  /** Rows per chunk transaction (tests use fewer). */
  rowsPerCommit?: number;
}

/**
 * Imports a bundle given as JSON lines (`.jsonl`), for banks too large to hold as one document:
 * line 1 is `{"version":1,"bank":{…}}`, then one record per line — `{"fact":{…}}`,
 * `{"observation":{…}}` (citing facts on earlier lines), `{"mentalModel":{…}}`, `{"skill":{…}}`, `{"suite":{…}}` —
 * each validated as in a bundle. Memory holds a chunk of rows and the ids seen, never the file.
 *
 * Other writers on the file keep writing while it runs, and the import is still all-or-nothing
 * (docs/operations.md#big-imports):
 * - a new bank is filled in chunks under its own id, invisible (`importOwner` set) until the last,
 *   short transaction writes its models, skills and suites and makes it visible;
 * - a replace fills a staging bank (`~import-…`, invisible) in chunks, and one short transaction
 *   swaps it in by making it the bank's storage (db/queries/bank-storage.ts); the old rows are then
 *   removed in chunks (`removeRetiredStorage`);
 * - the first bad line, an abort or an error removes the staging (nothing is imported) and is named
 *   in the error; a process killed mid-import leaves only invisible staging, removed by the next
 *   sweep (a server's, or the next import's).
 */
export async function importBundleLines(
  db: Db,
  lines: AsyncIterable<string>,
  options: ImportLinesOptions,
): Promise<ImportResult> {
  let lineNo = 0;
  const bad = (path: string, message: string) =>
    invalidBundle([{ path: `line ${lineNo}${path ? `: ${path}` : ""}`, message }]);
  const parseLine = (text: string): unknown => {
    try {
      return assertValidText(JSON.parse(text), `line ${lineNo}`);
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw bad("", `not JSON: ${(err as Error).message}`);
    }
  };
  const parseRecord = (json: unknown): LineRecord => {
    const keys = json && typeof json === "object" && !Array.isArray(json) ? Object.keys(json) : [];
    const kind = keys[0] as keyof typeof LINE_RECORDS;
    if (keys.length !== 1 || !Object.hasOwn(LINE_RECORDS, kind))
      throw bad("", `expected one of ${Object.keys(LINE_RECORDS).join(", ")} as the line's one key`);
    const parsed = LINE_RECORDS[kind].safeParse((json as Record<string, unknown>)[kind]);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw bad(formatPath([kind, ...issue.path]), `${issue.message}${gotValue(json, [kind, ...issue.path])}`);
    }
    return { kind, value: parsed.data } as LineRecord;
  };
  const iterator = lines[Symbol.asyncIterator]();
  const stopped = () => new AppError("invalid_input", "the import was stopped: nothing was imported");
  /**
   * The next line, or the stop: a stop (Ctrl-C, TERM) that comes while the source has no line to
   * give (a stalled pipe) ends the import at once, not when the next line or chunk comes.
   */
  const nextLine = (): Promise<IteratorResult<string>> => {
    const signal = options.signal;
    if (!signal) return iterator.next();
    if (signal.aborted) return Promise.reject(stopped());
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(stopped());
      signal.addEventListener("abort", onAbort, { once: true });
      iterator.next().then(
        (v) => {
          signal.removeEventListener("abort", onAbort);
          resolve(v);
        },
        (e: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(e);
        },
      );
    });
  };
  let header: z.output<typeof BundleHeader> | undefined;
  while (!header) {
    const next = await nextLine();
    lineNo++;
    if (next.done) throw invalidBundle([{ path: "line 1", message: "the file is empty" }]);
    if (!next.value.trim()) continue;
    const parsed = BundleHeader.strict().safeParse(parseLine(next.value));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw bad(formatPath(issue.path), issue.message);
    }
    header = parsed.data;
  }
  const bankId = header.bank.id;
  const existing = await bankExists(db, bankId, options.replace);
  const deletedModels = existing ? await tombstonedModelIds(db, bankId) : new Set<string>();
  const maxRowsPerCommit = Math.max(1, options.rowsPerCommit ?? STAGING_ROWS_PER_COMMIT);
  let rowsPerCommit = maxRowsPerCommit;
  const factIds = new Set<string>();
  const observationIds = new Set<string>();
  const later: Pick<Bundle, "mentalModels" | "skills" | "suites"> = { mentalModels: [], skills: [], suites: [] };
  // A new bank stages under its own id; a replace beside the bank it replaces.
  const stageId = existing ? stagingBankId() : bankId;
  try {
    await db.$client.batch(
      [
        toStatement(
          db.insert(banks).values({
            id: stageId,
            name: header.bank.name,
            permittedTeams: header.bank.permittedTeams,
            importOwner: options.ownerId,
          }),
        ),
      ],
      "write",
    );
  } catch (err) {
    // Another import (lines or bundle) made the same new bank between the check above and this
    // write: refused by name — being imported, or already there — never as a raw SQL error.
    if (!existing && isConstraintViolation(err)) {
      await bankExists(db, bankId, options.replace);
      throw invalidBundle([
        {
          path: "bank.id",
          message: `bank "${bankId}" already exists: another import made it at the same time (import again${options.replace ? "" : " with replace"} to overwrite it)`,
        },
      ]);
    }
    throw err;
  }
  /**
   * Runs statements in one write transaction, only while the staging is still this import's: a
   * sweep that judged this process gone (wrongly: it was stopped for minutes, say) removed it, and
   * writing on would leave rows of no bank or report a bank that is not there.
   */
  const whileStaged = async (statements: InStatement[] | ((tx: Transaction) => Promise<InStatement[]>)) => {
    await inWriteTransaction(db, async (tx) => {
      const owned = await tx.execute({
        sql: "SELECT 1 FROM banks WHERE id = ? AND import_owner = ?",
        args: [stageId, options.ownerId],
      });
      if (owned.rows.length === 0)
        throw new AppError(
          "unavailable",
          "the import's staging was removed by another process (it judged this one stopped): nothing was imported; run the import again",
        );
      await tx.batch(typeof statements === "function" ? await statements(tx) : statements);
    });
  };
  try {
    /** The tiers the staging holds rows of, so has an index of: each chunk's flush makes it with the tier's first rows. */
    const stagedTiers = new Set<SearchedTable>();
    let factBatch: Bundle["facts"] = [];
    let observationBatch: Bundle["observations"] = [];
    let chunks = 0;
    const write = async () => {
      const statements = [
        ...factStatements(db, stageId, factBatch),
        ...observationStatements(db, stageId, observationBatch),
      ];
      const tiers = SEARCHED_TABLES.filter(
        (t) => (t === "facts" ? factBatch : t === "observations" ? observationBatch : []).length > 0,
      );
      factBatch = [];
      observationBatch = [];
      if (statements.length === 0) return;
      // The lock is let go between chunks (see LOCK_PAUSE_MS); the first chunk needs no pause.
      if (chunks++ > 0) await new Promise((r) => setTimeout(r, LOCK_PAUSE_MS));
      options.signal?.throwIfAborted();
      const started = performance.now();
      await whileStaged([...statements, ...flushStatements(stageId, tiers)]);
      for (const t of tiers) stagedTiers.add(t);
      const ms = performance.now() - started;
      // Aim at CHUNK_TARGET_MS per commit (see there); a fixed size from the caller stays fixed.
      if (options.rowsPerCommit === undefined) rowsPerCommit = nextChunkSize(rowsPerCommit, ms, maxRowsPerCommit);
    };
    for (let next = await nextLine(); !next.done; next = await nextLine()) {
      lineNo++;
      if (!next.value.trim()) continue;
      const record = parseRecord(parseLine(next.value));
      if (record.kind === "fact") {
        if (factIds.has(record.value.id)) throw bad("fact.id", `duplicate id "${record.value.id}"`);
        factIds.add(record.value.id);
        factBatch.push(record.value);
      } else if (record.kind === "observation") {
        const o = record.value;
        if (observationIds.has(o.id)) throw bad("observation.id", `duplicate id "${o.id}"`);
        observationIds.add(o.id);
        const unknown = o.sourceFactIds.findIndex((id) => !factIds.has(id));
        if (unknown >= 0)
          throw bad(
            `observation.sourceFactIds[${unknown}]`,
            `unknown fact id "${o.sourceFactIds[unknown]}" (facts must come first)`,
          );
        observationBatch.push(o);
      } else if (record.kind === "mentalModel") {
        refuseTombstoned([record.value], deletedModels, () => `line ${lineNo}: mentalModel.id`);
        later.mentalModels.push(record.value);
      } else if (record.kind === "skill") later.skills.push(record.value);
      else later.suites.push(record.value);
      if (factBatch.length + observationBatch.length >= rowsPerCommit) await write();
    }
    await write();
    options.signal?.throwIfAborted();
    // Mental models, skills and suites are few: checked together as in a bundle (ids, names, history).
    validateBundle({ version: 1, bank: header.bank, ...later });
    // The one transaction that makes the import visible (only while the staging is still this
    // import's: one a sweep removed after the last chunk is never reported imported).
    await whileStaged(async (tx) =>
      [
        ...(existing
          ? replaceSwapStatements(db, header.bank, stageId, await existingIndexes(tx, bankId), stagedTiers)
          : []),
        ...modelAndSkillStatements(db, bankId, later),
        ...suiteStatements(db, bankId, later.suites),
        ...flushStatements(bankId, later.mentalModels.length > 0 ? ["mental_models"] : []),
        {
          sql: "UPDATE banks SET import_owner = NULL WHERE id = ? AND import_owner = ?",
          args: [bankId, options.ownerId],
        },
      ].filter((s) => s !== undefined),
    );
  } catch (err) {
    await removeStagedImport(db, stageId, options.ownerId).catch((cleanup: unknown) => {
      console.error(`could not remove the import's staging (${stageId}); the next sweep removes it:`, cleanup);
    });
    if (options.signal?.aborted && !(err instanceof AppError))
      throw new AppError("invalid_input", "the import was stopped: nothing was imported");
    throw err;
  }
  // The replace is done; the old rows and indexes go now, in chunks (or with the next sweep).
  if (existing)
    await removeRetiredStorage(db, { indexes: true, signal: options.signal }).catch((cleanup: unknown) => {
      console.error("could not remove all of the replaced bank's old rows; the next sweep removes them:", cleanup);
    });
  return {
    bankId,
    counts: {
      facts: factIds.size,
      observations: observationIds.size,
      mentalModels: later.mentalModels.length,
      skills: later.skills.length,
      suites: later.suites.length,
    },
  };
}

/** The bank as a bundle, every list ordered by id; null when the bank does not exist. */
export async function exportBundle(db: Db, bankId: string): Promise<Bundle | null> {
  const [bank] = await db
    .select()
    .from(banks)
    .where(and(eq(banks.id, bankId), isNull(banks.importOwner), notLike(banks.id, "~%")));
  if (!bank) return null;
  const [factRows, observationRows, modelRows, versionRows, skillRows, suiteRows] = await Promise.all([
    db
      .select()
      .from(facts)
      .where(eq(facts.bankId, storageKeyOf(bankId)))
      .orderBy(asc(facts.id)),
    db
      .select()
      .from(observations)
      .where(eq(observations.bankId, storageKeyOf(bankId)))
      .orderBy(asc(observations.id)),
    db.select().from(mentalModels).where(eq(mentalModels.bankId, bankId)).orderBy(asc(mentalModels.id)),
    db
      .select()
      .from(mentalModelVersions)
      .where(eq(mentalModelVersions.bankId, bankId))
      .orderBy(asc(mentalModelVersions.modelId), asc(mentalModelVersions.version)),
    db.select().from(skills).where(eq(skills.bankId, bankId)).orderBy(asc(skills.id)),
    db.select().from(suites).where(eq(suites.bankId, bankId)).orderBy(asc(suites.name)),
  ]);
  return {
    version: 1,
    bank: { id: bank.id, name: bank.name, permittedTeams: bank.permittedTeams },
    facts: factRows.map((f) => ({
      id: f.id,
      text: f.text,
      kind: f.kind,
      tags: f.tags,
      scope: f.scope as Bundle["facts"][number]["scope"],
      occurredAt: f.occurredAt,
      recordedAt: f.recordedAt,
      updatedAt: f.updatedAt,
      documentId: f.documentId,
      // Conversation fields only where they are set: a bank without conversations exports as before.
      ...(f.speaker !== null ? { speaker: f.speaker } : {}),
      ...(f.sessionId !== null ? { sessionId: f.sessionId } : {}),
      ...(f.position !== null ? { position: f.position } : {}),
    })),
    observations: observationRows.map((o) => ({
      id: o.id,
      text: o.text,
      tags: o.tags,
      scope: o.scope as Bundle["observations"][number]["scope"],
      sourceFactIds: o.sourceFactIds,
      updatedAt: o.updatedAt,
    })),
    mentalModels: modelRows.map((m) => ({
      id: m.id,
      name: m.name,
      sourceQuery: m.sourceQuery,
      content: m.content,
      tags: m.tags,
      refreshedAt: m.refreshedAt,
      staleOverride: m.staleOverride,
      version: m.version,
      basedOnIds: m.basedOnIds,
      updatedAt: m.updatedAt,
      history: versionRows
        .filter((v) => v.modelId === m.id && v.version < m.version)
        .map((v) => ({
          version: v.version,
          name: v.name,
          sourceQuery: v.sourceQuery,
          content: v.content,
          tags: v.tags,
          refreshedAt: v.refreshedAt,
          staleOverride: v.staleOverride,
          createdAt: v.createdAt,
          basedOnIds: v.basedOnIds,
        })),
    })),
    skills: skillRows.map((s) => ({
      id: s.id,
      name: s.name,
      mission: s.mission,
      disposition: s.disposition,
      retrieval: {
        tags: s.retrieval.tags,
        types: s.retrieval.types,
        scope: s.retrieval.scope as Bundle["skills"][number]["retrieval"]["scope"],
      },
      budget: s.budget,
      anchorEvery: s.anchorEvery,
      outputFormat: s.outputFormat,
      answerFormat: s.answerFormat,
      version: s.version,
    })),
    suites: suiteRows.map((s) => ({
      name: s.name,
      description: s.description,
      questions: s.questions,
      version: s.version,
      updatedAt: s.updatedAt,
    })),
  };
}
