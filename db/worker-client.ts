/**
 * A libSQL `Client` for a local database file whose statements run on worker threads
 * (sql-worker.mjs), so the process's event loop never waits on SQLite: @libsql/client runs a file's
 * statements as synchronous native calls, and under load a 10 ms search stalled every request of
 * the server (health checks took seconds). One writer thread takes every write, batch, migration
 * and transaction, so writes queue in order instead of contending for the file lock; plain SELECTs
 * go to the least busy of a few reader threads, which WAL lets read while the writer commits. A
 * read sent after a write has returned sees that write (each statement reads the latest commit).
 */
import { resolve } from "node:path";
import { Worker } from "node:worker_threads";
import type {
  Client,
  InArgs,
  InStatement,
  Replicated,
  ResultSet,
  Row,
  Transaction,
  TransactionMode,
} from "@libsql/client";
// The local-file client's entry: the same error classes without the remote clients' modules.
import { LibsqlBatchError, LibsqlError } from "@libsql/client/sqlite3";

export interface WorkerClientOptions {
  url: string;
  /** Busy timeout (ms) of every connection. */
  timeout: number;
  /** Run on every connection when it opens (per-connection settings such as `synchronous`). */
  pragmas: string[];
  /** Reader threads besides the writer. */
  readers: number;
  /** The file's path when it must be opened read-only (db/client.ts `mustOpenReadOnly`). */
  readOnlyPath?: string;
  /** With `readOnlyPath`: also `immutable=1` (a read-only file system). */
  immutable?: boolean;
}

interface WireResult {
  columns: string[];
  columnTypes: string[];
  rows: unknown[][];
  rowsAffected: number;
  lastInsertRowid: bigint | undefined;
}

interface WireError {
  name: string;
  message: string;
  code?: string;
  extendedCode?: string;
  rawCode?: number;
  statementIndex?: number;
  cause?: { message: string; code?: string };
}

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

/** The worker script ships as plain JavaScript next to this file, found from the app's root like the migrations. */
const WORKER_SCRIPT = () => resolve(process.cwd(), "db/sql-worker.mjs");

class SqlThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private failure: Error | null = null;

  constructor(options: WorkerClientOptions) {
    this.worker = new Worker(WORKER_SCRIPT(), {
      workerData: {
        url: options.url,
        timeout: options.timeout,
        pragmas: options.pragmas,
        readOnlyPath: options.readOnlyPath,
        immutable: options.immutable === true,
      },
    });
    // Idle threads must not keep a CLI or a test process alive; busy ones do (see `call`).
    this.worker.unref();
    this.worker.on("message", (msg: { id: number; ok: boolean; result?: unknown; error?: WireError }) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (this.pending.size === 0) this.worker.unref();
      if (msg.ok) p.resolve(msg.result);
      else p.reject(fromWire(msg.error!));
    });
    const fail = (error: Error) => {
      this.failure = error;
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
    };
    this.worker.on("error", fail);
    // A thread that stopped answers nothing again: later calls fail at once instead of waiting forever.
    this.worker.on("exit", (code) =>
      fail(this.failure ?? new LibsqlError(`database thread exited (${code})`, "CLIENT_CLOSED")),
    );
  }

  get load(): number {
    return this.pending.size;
  }

  get failed(): boolean {
    return this.failure !== null;
  }

  call<T>(op: string, args: unknown[] = [], tx?: number): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      if (this.pending.size === 1) this.worker.ref();
      this.worker.postMessage({ id, op, args, tx });
    });
  }

  close(): void {
    // The thread closes its connection (checkpointing the WAL), then stops.
    void this.call("close")
      .catch(() => undefined)
      .finally(() => this.worker.terminate());
  }
}

function fromWire(e: WireError): Error {
  const cause = e.cause ? Object.assign(new Error(e.cause.message), { code: e.cause.code }) : undefined;
  if (e.code === undefined) return Object.assign(new Error(e.message, { cause }), { name: e.name });
  // LibsqlError prefixes the code to the message itself.
  const message = e.message.startsWith(`${e.code}: `) ? e.message.slice(e.code.length + 2) : e.message;
  return e.statementIndex !== undefined
    ? new LibsqlBatchError(message, e.statementIndex, e.code, e.extendedCode, e.rawCode, cause)
    : new LibsqlError(message, e.code, e.extendedCode, e.rawCode, cause);
}

/** Rows shaped as @libsql/client shapes them: values by index (and `length`) plus by column name. */
function fromWireResult(r: WireResult): ResultSet {
  const rows = r.rows.map((values) => {
    const row = {} as Row;
    Object.defineProperty(row, "length", { value: values.length });
    values.forEach((value, i) => {
      Object.defineProperty(row, i, { value });
      const column = r.columns[i]!;
      if (!Object.hasOwn(row, column)) {
        Object.defineProperty(row, column, { value, enumerable: true, configurable: true, writable: true });
      }
    });
    return row;
  });
  const result = {
    columns: r.columns,
    columnTypes: r.columnTypes,
    rows,
    rowsAffected: r.rowsAffected,
    lastInsertRowid: r.lastInsertRowid,
    toJSON: () => ({ ...r, lastInsertRowid: r.lastInsertRowid === undefined ? null : String(r.lastInsertRowid) }),
  };
  return result;
}

type Statement = InStatement | [string, InArgs?];

function sqlOf(stmt: Statement): string {
  if (typeof stmt === "string") return stmt;
  return Array.isArray(stmt) ? stmt[0] : stmt.sql;
}

/** A statement that only reads: a SELECT (or a WITH … SELECT) that changes nothing. */
export function isReadOnly(sql: string): boolean {
  const head = sql.replace(/^(\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)+/, "");
  if (/^select\b/i.test(head)) return true;
  return /^with\b/i.test(head) && !/\b(insert|update|delete|replace)\b/i.test(head);
}

function normalize(stmt: Statement, args?: InArgs): InStatement {
  if (typeof stmt === "string") return args === undefined ? stmt : { sql: stmt, args };
  return Array.isArray(stmt) ? { sql: stmt[0], args: stmt[1] ?? [] } : stmt;
}

/** Settles true when `p` settles within `ms`, false otherwise. */
function settlesWithin(p: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void p.finally(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export class WorkerClient implements Client {
  closed = false;
  readonly protocol = "file";
  private readonly writer: SqlThread;
  private readers: SqlThread[] = [];
  private nextTx = 0;
  /** Settles when the open interactive transaction ends; null when none is open. */
  private openTransaction: Promise<void> | null = null;

  constructor(private readonly options: WorkerClientOptions) {
    this.writer = new SqlThread(options);
  }

  private reader(): SqlThread {
    // Readers start on first use; until the pool is full a busy one gets a new sibling. A reader
    // that stopped (its thread crashed) is replaced.
    this.readers = this.readers.filter((r) => !r.failed);
    const idle = this.readers.find((r) => r.load === 0);
    if (idle) return idle;
    if (this.readers.length < this.options.readers) {
      const thread = new SqlThread(this.options);
      this.readers.push(thread);
      return thread;
    }
    return this.readers.reduce((a, b) => (b.load < a.load ? b : a));
  }

  private check(): void {
    if (this.closed) throw new LibsqlError("The client is closed", "CLIENT_CLOSED");
  }

  /**
   * Waits until no interactive transaction holds the writer. A write sent meanwhile would otherwise
   * wait for the file lock inside the writer thread, blocking the very transaction it waits for; so
   * it queues here instead and, like SQLite's busy timeout, fails with SQLITE_BUSY if the
   * transaction is still open after `timeout` ms.
   */
  private async writerTurn(): Promise<void> {
    const deadline = Date.now() + this.options.timeout;
    while (this.openTransaction) {
      const remaining = deadline - Date.now();
      if (remaining <= 0 || !(await settlesWithin(this.openTransaction, remaining))) {
        throw new LibsqlError("database is locked (a transaction of this client is still open)", "SQLITE_BUSY");
      }
    }
    this.check();
  }

  /**
   * Sends a write once no transaction of this client is open. The check and the send happen in one
   * synchronous step: between an `await` and the next line another caller could open a transaction,
   * and a write sent after its BEGIN would run inside someone else's transaction.
   */
  private async onWriter<T>(send: () => Promise<T>): Promise<T> {
    for (;;) {
      await this.writerTurn();
      if (!this.openTransaction) return send();
    }
  }

  async execute(stmtOrSql: InStatement | string, args?: InArgs): Promise<ResultSet> {
    this.check();
    const stmt = normalize(stmtOrSql, args);
    if (this.options.readers > 0 && isReadOnly(sqlOf(stmt))) {
      return fromWireResult(await this.reader().call<WireResult>("execute", [stmt]));
    }
    return fromWireResult(await this.onWriter(() => this.writer.call<WireResult>("execute", [stmt])));
  }

  async batch(stmts: Statement[], mode: TransactionMode = "deferred"): Promise<ResultSet[]> {
    this.check();
    const results = await this.onWriter(() =>
      this.writer.call<WireResult[]>("batch", [stmts.map((s) => normalize(s)), mode]),
    );
    return results.map(fromWireResult);
  }

  async migrate(stmts: InStatement[]): Promise<ResultSet[]> {
    this.check();
    return (await this.onWriter(() => this.writer.call<WireResult[]>("migrate", [stmts]))).map(fromWireResult);
  }

  async executeMultiple(sql: string): Promise<void> {
    this.check();
    await this.onWriter(() => this.writer.call("executeMultiple", [sql]));
  }

  async transaction(mode: TransactionMode = "write"): Promise<Transaction> {
    this.check();
    const id = this.nextTx++;
    let end!: () => void;
    let ended: Promise<void> | null = null;
    // Claimed in the same synchronous step as the BEGIN is sent, so that no other write slips in.
    await this.onWriter(() => {
      ended = new Promise<void>((resolve) => {
        end = () => {
          if (this.openTransaction === ended) this.openTransaction = null;
          resolve();
        };
      });
      this.openTransaction = ended;
      return this.writer.call("transaction", [mode, id]).catch((error: unknown) => {
        end();
        throw error;
      });
    });
    return new WorkerTransaction(this.writer, id, end);
  }

  async sync(): Promise<Replicated> {
    return undefined;
  }

  reconnect(): void {
    throw new LibsqlError("reconnect is not supported by the worker-thread client", "NOT_IMPLEMENTED");
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.writer.close();
    for (const r of this.readers) r.close();
  }
}

/** An interactive transaction: every statement runs on the writer thread, on the transaction's own connection. */
class WorkerTransaction implements Transaction {
  closed = false;
  constructor(
    private readonly thread: SqlThread,
    private readonly id: number,
    /** Hands the writer back to the client's other writes. */
    private readonly end: () => void,
  ) {}

  private check(): void {
    if (this.closed) throw new LibsqlError("The transaction is closed", "TRANSACTION_CLOSED");
  }

  async execute(stmt: InStatement): Promise<ResultSet> {
    this.check();
    return fromWireResult(await this.thread.call<WireResult>("execute", [stmt], this.id));
  }

  async batch(stmts: InStatement[]): Promise<ResultSet[]> {
    this.check();
    return (await this.thread.call<WireResult[]>("batch", [stmts], this.id)).map(fromWireResult);
  }

  async executeMultiple(sql: string): Promise<void> {
    this.check();
    await this.thread.call("executeMultiple", [sql], this.id);
  }

  private async settle(op: "commit" | "rollback"): Promise<void> {
    // As in @libsql/client: rolling back a settled transaction is a no-op, committing one an error.
    if (op === "rollback" && this.closed) return;
    this.check();
    this.closed = true;
    try {
      await this.thread.call(op, [], this.id);
    } finally {
      this.end();
    }
  }

  commit(): Promise<void> {
    return this.settle("commit");
  }

  rollback(): Promise<void> {
    return this.settle("rollback");
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.thread
      .call("closeTransaction", [], this.id)
      .catch(() => undefined)
      .finally(this.end);
  }
}
