/**
 * Where a bank's facts and observations are stored (docs/operations.md#big-imports). Their
 * `bank_id` — and so their `memory_tags` rows and their entries in `search_index_pending` — is the
 * bank's storage key: `banks.storage_id`, or the bank's own id while that is null (every bank that
 * was never replaced by a JSONL import, and every database made before storage keys existed).
 *
 * A JSONL `--replace` fills a new storage (a hidden `~import-…` bank row, so the rows' foreign key
 * holds) and swaps it in by setting the bank's `storage_id`: one row, whatever the bank's size.
 * The old storage's rows are removed afterwards in chunks (`removeRetiredStorage`).
 *
 * Mental models, skills, suites, runs, experiments and versions name the bank itself: they are
 * few, or history that outlives a replace. Every reader of facts and observations therefore
 * compares `bank_id` with `STORAGE_KEY_SQL` (one primary-key read, evaluated once per statement),
 * never with the bank id.
 */
import { type SQL, sql } from "drizzle-orm";

/** The storage key of the bank whose id is bound as its one `?`. NULL for a bank that does not exist. */
export const STORAGE_KEY_SQL = "(SELECT coalesce(storage_id, id) FROM banks WHERE id = ?)";

/** The same as a drizzle fragment, for query-builder conditions and inserted values. */
export function storageKeyOf(bankId: string): SQL {
  return sql`(SELECT coalesce(storage_id, id) FROM banks WHERE id = ${bankId})`;
}

/** The tables whose rows are keyed by the storage key; the others name the bank itself. */
export const STORED_TABLES = ["facts", "observations"] as const;

/** What a tier's `bank_id` is compared with, binding the bank id: its storage key, or the id itself. */
export function bankKeySql(table: string): string {
  return (STORED_TABLES as readonly string[]).includes(table) ? STORAGE_KEY_SQL : "?";
}

/**
 * True (1) when the key bound as `?` is no longer read by any bank: no bank (or import staging)
 * has it as its storage. Such a key's facts and observations are garbage: the old storage of a
 * replaced bank — the bank's own id, or an earlier `~import-…` — removed by `removeRetiredStorage`.
 */
export const RETIRED_KEY_SQL =
  "NOT EXISTS (SELECT 1 FROM banks WHERE coalesce(storage_id, id) = ? AND (id NOT LIKE '~%' OR import_owner IS NOT NULL))";
