/**
 * This process as a run owner (SECURITY.md "Runs have an owner"): an instance id registered in the
 * database with a heartbeat every HEARTBEAT_MS. Runs this process starts carry the id. A server
 * also sweeps: on start and with each heartbeat it marks `interrupted` the running runs whose
 * owner's heartbeat is older than staleAfterMs(), and no others.
 */

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Db } from "@/db/client";
import { markAbandonedExperiments } from "@/db/queries/experiments";
import { forgetInstances, heartbeatInstance, markInterruptedRuns, registerInstance } from "@/db/queries/runs";
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
}

const owners = processWide("run-owners", () => new WeakMap<Db, Owner>());
const instanceId = processWide("instance-id", () => ({ value: `inst_${randomBytes(8).toString("hex")}` }));

const FORGET_INSTANCES_AFTER_MS = 24 * 60 * 60_000;

/**
 * A live process on this host keeps its runs this long without a heartbeat (a write lock held by a
 * long import blocked it); past that its pid is taken to be another process's (reused).
 */
const ALIVE_GRACE_MS = 10 * 60_000;

/** An owner on this host is asked directly (signal 0); one on another host is judged by its heartbeat. */
export function ownerLiveness(owner: { pid: number; hostname: string }): "alive" | "dead" | "unknown" {
  if (owner.hostname !== hostname() || !Number.isInteger(owner.pid) || owner.pid <= 0) return "unknown";
  try {
    process.kill(owner.pid, 0);
    return "alive";
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ESRCH" ? "dead" : code === "EPERM" ? "alive" : "unknown";
  }
}

/** `includeUnowned`: also the runs from before owners existed (on start; a heartbeat sweep leaves them). */
export async function sweepInterruptedRuns(db: Db, options: { includeUnowned?: boolean } = {}): Promise<number> {
  const now = Date.now();
  const marked = await markInterruptedRuns(db, {
    staleAfterMs: staleAfterMs(),
    now,
    includeUnowned: options.includeUnowned ?? true,
    ownerLiveness,
    aliveGraceMs: ALIVE_GRACE_MS,
  });
  if (marked > 0) console.warn(`marked ${marked} run(s) whose process stopped as interrupted`);
  const abandoned = await markAbandonedExperiments(db, { staleAfterMs: staleAfterMs(), now });
  if (abandoned > 0) console.warn(`ended ${abandoned} experiment(s) whose process stopped as failed`);
  await forgetInstances(db, now - FORGET_INSTANCES_AFTER_MS);
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
    const created: Owner = {
      sweeping: false,
      id: registerInstance(db, { id, kind, pid: process.pid, hostname: hostname() }).then(() => {
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
    try {
      await heartbeatInstance(db, id);
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
