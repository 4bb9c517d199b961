/**
 * Admission control for the expensive API work classes (recall, reflect). The server runs all its
 * JavaScript on one thread: with 70 requests in flight at once, every piece of each one waits its
 * turn, so `/api/health` and page requests waited seconds. Each class has a small number of slots
 * (sized from the cores) and a bounded queue: a request past the slots waits in line (parked, so it
 * costs nothing while it waits); past the queue it is refused at once with `503 too_busy` and
 * `Retry-After`, before its body is read. Every run takes a reflect slot, whatever started it (the
 * API, MCP, a server action, an experiment's question: `startRun` admits it); an experiment's
 * questions are patient (they wait in line past the queue cap instead of being refused, as the
 * experiment's own concurrency bounds them). Everything else — health, pages, writes — never
 * queues here. Limits are per server process.
 */
import { availableParallelism } from "node:os";
import { AppError } from "@/lib/contracts/errors";
import { processWide } from "./process-wide";

export type WorkClass = "recall" | "reflect" | "ingest";

export interface AdmissionLimits {
  /** Requests of the class served at once. */
  concurrency: number;
  /** Requests waiting for a slot; one more is refused with 503 `too_busy`. */
  queue: number;
}

const cores = Math.max(1, availableParallelism());

/**
 * Recall is a few milliseconds of SQL (on the database threads) and JSON; reflect holds its slot
 * for the whole run, model calls included, so a run started with `wait: false` keeps it after the
 * 202 until it ends.
 */
export const ADMISSION_LIMITS: Record<WorkClass, AdmissionLimits> = {
  recall: { concurrency: cores, queue: 200 },
  reflect: { concurrency: cores, queue: 100 },
  /**
   * OTLP trace ingest (POST /v1/traces, lib/server/http/otlp-receiver.ts): decoding and folding a batch is
   * CPU on the one thread, so few at once; an exporter told 503 retries after Retry-After.
   */
  ingest: { concurrency: Math.max(1, Math.floor(cores / 2)), queue: 32 },
};

/** What a refused client is told to wait before trying again. */
export const TOO_BUSY_RETRY_AFTER_SECONDS = 2;

/** A held slot: released once, by `release` or when the promise given to `holdUntil` settles. */
export interface Slot {
  release(): void;
  /** Keeps the slot until `work` settles (a detached run), instead of releasing it with the response. */
  holdUntil(work: Promise<unknown>): void;
  readonly held: boolean;
}

/**
 * Makes the refusal. The gates live once per process (`processWide`) but Next bundles each route
 * with its own copy of AppError: an error made by the gate's copy fails `instanceof` in another
 * route's error mapper (a 500 instead of the 503). So the error is made by the caller's copy.
 */
type TooBusy = (message: string) => AppError<"too_busy">;
const tooBusy: TooBusy = (message) => new AppError("too_busy", message);

interface Waiter {
  admit: () => void;
  abandon: () => void;
}

class Gate {
  active = 0;
  readonly waiting: Waiter[] = [];
  constructor(
    readonly name: WorkClass,
    readonly limits: AdmissionLimits,
  ) {}

  /** Throws `too_busy` (made by the caller's `tooBusy`) when a request arriving now would find the queue full. */
  refuseIfFull(tooBusy: TooBusy): void {
    if (this.active < this.limits.concurrency && this.waiting.length === 0) return;
    if (this.waiting.length >= this.limits.queue) {
      throw tooBusy(
        `This server is already running ${this.limits.concurrency} ${this.name} requests with ${this.limits.queue} more waiting; retry after ${TOO_BUSY_RETRY_AFTER_SECONDS} s.`,
      );
    }
  }

  async acquire(tooBusy: TooBusy, signal?: AbortSignal, patient = false): Promise<Slot> {
    if (this.active < this.limits.concurrency && this.waiting.length === 0) {
      this.active++;
      return this.slot();
    }
    if (!patient) this.refuseIfFull(tooBusy);
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        admit: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        // The client went away while waiting: nobody reads this answer, and nothing is logged.
        abandon: () => reject(tooBusy(`The ${this.name} request was abandoned while it waited.`)),
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        waiter.abandon();
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
    return this.slot();
  }

  /** A slot already counted in `active` (by `acquire`, or by `next` when it hands one to a waiter). */
  private slot(): Slot {
    let held = true;
    let kept = false;
    const release = () => {
      if (!held) return;
      held = false;
      this.active--;
      this.next();
    };
    return {
      release: () => {
        if (!kept) release();
      },
      holdUntil: (work) => {
        kept = true;
        work.then(release, release);
      },
      get held() {
        return held;
      },
    };
  }

  private next(): void {
    const waiter = this.active < this.limits.concurrency ? this.waiting.shift() : undefined;
    if (!waiter) return;
    this.active++;
    waiter.admit();
  }
}

const gates = processWide("admission", () => ({
  recall: new Gate("recall", ADMISSION_LIMITS.recall),
  reflect: new Gate("reflect", ADMISSION_LIMITS.reflect),
  ingest: new Gate("ingest", ADMISSION_LIMITS.ingest),
}));

/**
 * Waits for a slot of the class (or throws `too_busy` when its queue is full; rejects with the
 * same error if the client goes away while waiting). The caller releases the slot.
 */
export function admit(work: WorkClass, signal?: AbortSignal, options: { patient?: boolean } = {}): Promise<Slot> {
  if (!policy.enforced) return Promise.resolve(freeSlot());
  return gates[work].acquire(tooBusy, signal, options.patient);
}

const policy = processWide("admission-policy", () => ({ enforced: true }));

/**
 * For processes that serve nobody else (the CLI, the bench runner): their runs need no slot, so
 * `experiment run --concurrency 16` runs 16 at once as it says. The server never calls this.
 */
export function withoutAdmission(): void {
  policy.enforced = false;
}

function freeSlot(): Slot {
  let held = true;
  return {
    release: () => {
      held = false;
    },
    holdUntil: (work) => {
      work.then(
        () => {
          held = false;
        },
        () => {
          held = false;
        },
      );
    },
    get held() {
      return held;
    },
  };
}

/**
 * Refuses at once (`too_busy`) when the class's queue is full, without taking a place: lets a
 * request be turned away before its body is read, and admitted only once it has been read, so a
 * client still uploading never holds a slot.
 */
export function refuseIfFull(work: WorkClass): void {
  gates[work].refuseIfFull(tooBusy);
}

/** Slots in use and requests waiting, per class (for `/api/health`). */
export function admissionState(): Record<WorkClass, { active: number; waiting: number } & AdmissionLimits> {
  const state = (g: Gate) => ({ active: g.active, waiting: g.waiting.length, ...g.limits });
  return { recall: state(gates.recall), reflect: state(gates.reflect), ingest: state(gates.ingest) };
}
