/**
 * Run retention for the CLI, the API and the server's background pass (docs/operations.md#run-retention).
 */

import type { Db } from "@/db/client";
import { getBank } from "@/db/queries/banks";
import { getRunRetention, listRunRetention, pruneRuns, setRunRetention } from "@/db/queries/retention";
import { packFinishedRuns } from "@/db/queries/runs";
import { AppError } from "@/lib/contracts/errors";
import type { PruneResult, PruneRunsInput, RetentionRule, RunRetentionSetting } from "@/lib/contracts/retention";
import { processWide } from "../runtime/process-wide";

/** A bank exists, or runs of it do (runs outlive a bank that was replaced or removed). */
async function requireBankOrRuns(db: Db, bankId: string): Promise<void> {
  if (await getBank(db, bankId)) return;
  const { rows } = await db.$client.execute({ sql: "SELECT 1 FROM runs WHERE bank_id = ? LIMIT 1", args: [bankId] });
  if (rows.length === 0) throw new AppError("not_found", `unknown bank "${bankId}"`);
}

export async function pruneRunsNow(db: Db, input: PruneRunsInput): Promise<PruneResult> {
  if (input.bank !== undefined) await requireBankOrRuns(db, input.bank);
  const rule: RetentionRule = input.olderThan !== undefined ? { olderThan: input.olderThan } : { keep: input.keep };
  return pruneRuns(db, { rule, bankId: input.bank, dryRun: input.dryRun, vacuum: input.vacuum });
}

export async function readRunRetention(db: Db, bankId: string): Promise<RunRetentionSetting> {
  await requireBankOrRuns(db, bankId);
  return getRunRetention(db, bankId);
}

export async function saveRunRetention(
  db: Db,
  bankId: string,
  rule: RetentionRule | null,
): Promise<RunRetentionSetting> {
  await requireBankOrRuns(db, bankId);
  return setRunRetention(db, bankId, rule);
}

/** Every bank's retention setting applied once; a failure on one bank is logged and the next one runs. */
export async function applyRunRetention(db: Db, log: (line: string) => void = console.warn): Promise<PruneResult[]> {
  const results: PruneResult[] = [];
  for (const setting of await listRunRetention(db)) {
    if (!setting.retention) continue;
    try {
      const result = await pruneRuns(db, { rule: setting.retention, bankId: setting.bankId });
      results.push(result);
      if (result.deleted > 0) {
        log(
          `run retention: removed ${result.deleted} run(s) of bank ${setting.bankId} (${setting.retention.olderThan ? `older than ${setting.retention.olderThan}` : `beyond the newest ${setting.retention.keep}`}); kept ${result.kept.total} that something refers to`,
        );
      }
    } catch (err) {
      if (/CLIENT_CLOSED|closed/.test(`${err} ${(err as { cause?: unknown }).cause}`)) throw err;
      log(`run retention of bank ${setting.bankId} failed: ${(err as Error).message.split("\n")[0]}`);
    }
  }
  return results;
}

/** How often the server applies the banks' retention settings; tests shorten it with INSPECTOR_RETENTION_MS. */
export function retentionIntervalMs(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env.INSPECTOR_RETENTION_MS);
  return Number.isFinite(n) && n >= 100 ? n : 60 * 60_000;
}

/** Finished runs whose rows one background pass packs at most: each is a short write of its own. */
const PACK_PER_PASS = 500;

const schedule = processWide("run-retention", () => ({ started: new WeakSet<Db>() }));

/**
 * The server's background pass: every retentionIntervalMs() (the first a few seconds after start,
 * off the start-up path), each bank's setting is applied. One pass at a time; the timer never keeps
 * the process alive; a closed database ends it.
 */
export function startRetentionSchedule(db: Db): void {
  if (schedule.started.has(db)) return;
  schedule.started.add(db);
  const every = retentionIntervalMs();
  let busy = false;
  let timer: ReturnType<typeof setTimeout>;
  // Runs whose packing failed in this process: not tried again until it restarts.
  const unpackable = new Set<string>();
  const pass = async () => {
    if (busy) return;
    busy = true;
    try {
      await applyRunRetention(db);
      // Runs finished with their events still rows (stored before packs, or interrupted): packed
      // a batch per pass, oldest first (docs/performance.md#stored-bytes-per-run).
      const packed = await packFinishedRuns(db, PACK_PER_PASS, unpackable);
      for (const id of packed.failed) unpackable.add(id);
      if (packed.failed.length > 0) {
        console.warn(
          `run events: ${packed.failed.length} finished run(s) could not be packed and stay rows (read as before): ${packed.failed.slice(0, 5).join(", ")}`,
        );
      }
      timer = setTimeout(pass, every);
      timer.unref();
    } catch (err) {
      if (!/CLIENT_CLOSED|closed/.test(`${err} ${(err as { cause?: unknown }).cause}`)) {
        console.error("run retention failed:", err);
        timer = setTimeout(pass, every);
        timer.unref();
      }
    } finally {
      busy = false;
    }
  };
  timer = setTimeout(pass, Math.min(every, 5_000));
  timer.unref();
}
