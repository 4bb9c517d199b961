/**
 * This process as a run owner (SECURITY.md "Runs have an owner"): an instance id registered in the
 * database with a heartbeat every HEARTBEAT_MS. Runs this process starts carry the id. A server
 * also sweeps: on start and with each heartbeat it marks `interrupted` the running runs whose
 * owner has stopped, and no others, and removes the staging of JSONL imports whose process stopped.
 *
 * How an owner is judged (docs/operations.md#runs-and-their-owner):
 * - on this host, by its pid and the pid's start time (processIdentity): a process that is gone, or
 *   whose pid now belongs to another process (a restarted container's pid 1), is dead at once; the
 *   same process is alive however old its heartbeat;
 * - on another host, by its heartbeat, counted from the later of its last heartbeat and the moment
 *   this process last saw the write lock free: a heartbeat that could not be written because a long
 *   write held the lock is not death.
 */

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { removeAbandonedImports } from "@/db/bundle-io";
import type { Db } from "@/db/client";
import { markAbandonedExperiments } from "@/db/experiments";
import { forgetInstances, getInstance, heartbeatInstance, markInterruptedRuns, registerInstance } from "@/db/runs";
import { processWide } from "./process-wide";

/** Tests shorten it with INSPECTOR_HEARTBEAT_MS. */
export function heartbeatMs(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env.INSPECTOR_HEARTBEAT_MS);
  return Number.isFinite(n) && n >= 50 ? n : 5_000;
}
/** Six missed heartbeats: a process that blocks its event loop for a few seconds is not declared dead. */
export function staleAfterMs(env: Record<string, string | undefined> = process.env): number {
  return heartbeatMs(env) * 6;
}

export type OwnerKind = "server" | "cli";

interface Owner {
  id: Promise<string>;
  sweeping: boolean;
  /** Since when this process has seen the write lock free (see `markLockWait`). */
  lockFreeSince: number;
}

const owners = processWide("run-owners", () => new WeakMap<Db, Owner>());
const instanceId = processWide("instance-id", () => ({ value: `inst_${randomBytes(8).toString("hex")}` }));

const FORGET_INSTANCES_AFTER_MS = 24 * 60 * 60_000;

/**
 * A live process on this host keeps its runs this long without a heartbeat (a write lock held by a
 * long import blocked it); past that its pid is taken to be another process's (reused).
 */
const ALIVE_GRACE_MS = 10 * 60_000;

/**
 * Which process holds `pid` on this machine: the boot id and the process's start time (clock ticks
 * since boot, /proc/<pid>/stat field 22). Two processes that held the same pid differ in it. Null
 * where /proc is missing (not Linux) or the process is gone.
 */
export function processIdentity(pid: number): string | null {
  try {
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces and parentheses): state is field 3.
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    return start ? `${boot}:${start}` : null;
  } catch {
    return null;
  }
}

/**
 * An owner on this host is asked directly (signal 0, and which process holds its pid now); one on
 * another host is judged by its heartbeat ("unknown"). "alive-verified": the very process that
 * registered, alive; "alive": a live pid whose holder cannot be told (no /proc, or an owner
 * registered before identities were recorded).
 */
export function ownerLiveness(owner: {
  pid: number;
  hostname: string;
  processStart?: string | null;
}): "alive" | "alive-verified" | "dead" | "unknown" {
  if (owner.hostname !== hostname() || !Number.isInteger(owner.pid) || owner.pid <= 0) return "unknown";
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ESRCH") return "dead";
    if (code !== "EPERM") return "unknown";
  }
  if (!owner.processStart) return "alive";
  const now = processIdentity(owner.pid);
  if (now === null) return "alive";
  // The pid is held by another process than the one that registered: the owner is gone.
  return now === owner.processStart ? "alive-verified" : "dead";
}

/** A heartbeat write that waited this long waited for the write lock (a write normally takes milliseconds). */
const lockWaitMs = () => Math.min(1_000, heartbeatMs() / 2);

/**
 * This process's own heartbeat is its view of the write lock: one that failed as busy, or waited,
 * means the lock was held, and every other owner's heartbeat may have waited behind it too. Ages
 * of other owners' heartbeats then count from now.
 */
function markLockWait(owner: Owner, waitedMs: number, err?: unknown): void {
  const busy =
    err !== undefined &&
    /SQLITE_BUSY|SQLITE_LOCKED|database is locked/i.test(`${err} ${(err as { cause?: unknown }).cause}`);
  if (busy || waitedMs >= lockWaitMs()) owner.lockFreeSince = Date.now();
}

/**
 * Whether the process that owns `ownerId` has stopped (its runs, its import staging can go): the
 * rules of markInterruptedRuns, for one owner.
 */
export async function ownerGone(db: Db, ownerId: string, now = Date.now()): Promise<boolean> {
  const row = await getInstance(db, ownerId);
  if (!row) return true;
  const verdict = ownerLiveness(row);
  if (verdict === "dead") return true;
  if (verdict === "alive-verified") return false;
  const age = now - Math.max(row.heartbeatAt, owners.get(db)?.lockFreeSince ?? Number.NEGATIVE_INFINITY);
  return age > (verdict === "alive" ? Math.max(staleAfterMs(), ALIVE_GRACE_MS) : staleAfterMs());
}

/** `includeUnowned`: also the runs from before owners existed (on start; a heartbeat sweep leaves them). */
export async function sweepInterruptedRuns(db: Db, options: { includeUnowned?: boolean } = {}): Promise<number> {
  // Each step's writes may wait behind the lock too: one that waited moves lockFreeSince before
  // the next step judges anyone (ownerGone reads it when called).
  const step = async <T>(work: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    const result = await work();
    const owner = owners.get(db);
    if (owner) markLockWait(owner, Date.now() - started);
    return result;
  };
  const marked = await step(() =>
    markInterruptedRuns(db, {
      staleAfterMs: staleAfterMs(),
      now: Date.now(),
      includeUnowned: options.includeUnowned ?? true,
      ownerLiveness,
      aliveGraceMs: ALIVE_GRACE_MS,
      lockFreeSince: owners.get(db)?.lockFreeSince,
    }),
  );
  if (marked > 0) console.warn(`marked ${marked} run(s) whose process stopped as interrupted`);
  const removed = await step(() => removeAbandonedImports(db, (ownerId) => ownerGone(db, ownerId)));
  if (removed.length > 0) console.warn(`removed the staging of ${removed.length} import(s) whose process stopped`);
  const abandoned = await step(() => markAbandonedExperiments(db, { staleAfterMs: staleAfterMs(), now: Date.now() }));
  if (abandoned > 0) console.warn(`ended ${abandoned} experiment(s) whose process stopped as failed`);
  await step(() => forgetInstances(db, Date.now() - FORGET_INSTANCES_AFTER_MS));
  return marked;
}

/**
 * This process's instance id on `db`, registering it (and starting the heartbeat) on first use.
 * `sweep`: also mark other processes' dead runs interrupted, now and on every heartbeat (servers).
 */
export function runOwner(db: Db, kind: OwnerKind = "cli", options: { sweep?: boolean } = {}): Promise<string> {
  let owner = owners.get(db);
  if (!owner) {
    const id = instanceId.value;
    const started = Date.now();
    const created: Owner = {
      sweeping: false,
      // What happened to the lock before this process started is unknown: owners on other hosts
      // get a full stale period from now (on this host, pids answer at once).
      lockFreeSince: started,
      id: registerInstance(db, {
        id,
        kind,
        pid: process.pid,
        hostname: hostname(),
        processStart: processIdentity(process.pid),
      }).then(() => {
        markLockWait(created, Date.now() - started);
        startHeartbeat(db, id, created);
        return id;
      }),
    };
    owner = created;
    owners.set(db, owner);
    // A registration that failed (a read-only or full disk) is tried again by the next run.
    created.id.catch(() => {
      if (owners.get(db) === created) owners.delete(db);
    });
  }
  if (options.sweep && !owner.sweeping) {
    owner.sweeping = true;
    return owner.id.then(async (id) => {
      await sweepInterruptedRuns(db);
      return id;
    });
  }
  return owner.id;
}

function startHeartbeat(db: Db, id: string, owner: Owner): void {
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    const started = Date.now();
    try {
      try {
        await heartbeatInstance(db, id);
        markLockWait(owner, Date.now() - started);
      } catch (err) {
        markLockWait(owner, Date.now() - started, err);
        throw err;
      }
      if (owner.sweeping) await sweepInterruptedRuns(db, { includeUnowned: false });
    } catch (err) {
      // A closed database (tests, shutdown) ends the heartbeat; anything else is worth a line.
      if (/CLIENT_CLOSED|closed/.test(`${err} ${(err as { cause?: unknown }).cause}`)) clearInterval(timer);
      else console.error("run owner heartbeat failed:", err);
    } finally {
      busy = false;
    }
  }, heartbeatMs());
  // The heartbeat must not keep a CLI alive once its work is done (no signal handlers either:
  // they would change how the process stops; a stopped process is known by its quiet heartbeat).
  timer.unref();
}
