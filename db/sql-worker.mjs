// One libSQL connection on a worker thread (see worker-client.ts). @libsql/client runs a local
// file's statements as synchronous native calls, so on the server's main thread a long search
// would stall every other request; here it stalls only this thread. Requests are answered in order.
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { createClient, _createClient as createSqliteClient, LibsqlError } from "@libsql/client/sqlite3";

const { url, timeout, pragmas, readOnlyPath, immutable } = workerData;

/**
 * Database threads give way to the event loop when both want a core: under load the main thread
 * (HTTP parsing, health checks, pages, SSE) runs first and a search waits a little longer, instead
 * of every request waiting behind searches. Linux nice applies per thread (by thread id); elsewhere,
 * or where it is refused, the thread keeps the process's priority.
 */
const NICE = 5;
try {
  setPriority(Number(readlinkSync("/proc/thread-self").split("/").pop()), NICE);
} catch {
  // not Linux, or not permitted: same priority as the process
}
const transactions = new Map();
/** Clients replaced while a transaction still used their connections: closed once none is open. */
const retired = [];

/** As db/client.ts `createReadOnlyFileClient`: a read-only file is opened by URI with `mode=ro` (and `immutable=1` on a read-only file system). */
function openClient() {
  if (!readOnlyPath) return createClient({ url, timeout });
  return createSqliteClient({
    scheme: "file",
    tls: false,
    path: `file:${readOnlyPath.replace(/[%?#]/g, (c) => encodeURIComponent(c))}?mode=ro${immutable ? "&immutable=1" : ""}`,
    intMode: "number",
    concurrency: 20,
    timeout,
  });
}

async function connect() {
  const c = openClient();
  for (const pragma of pragmas) await c.execute(pragma);
  return c;
}

let client = await connect().catch((error) => {
  // Reported on every request, as the direct client reports a file it cannot open.
  return { failed: error };
});

/**
 * After SQLITE_BUSY, @libsql/client (0.18) keeps the failed statement alive on its connection, and
 * the next writes on that connection stay uncommitted while it lives (a reader on another connection
 * does not see them). Replacing the client's connections ends that statement.
 */
async function replaceClient() {
  const fresh = await connect();
  retired.push(client);
  client = fresh;
  closeRetired();
}

function closeRetired() {
  if (transactions.size > 0) return;
  for (const c of retired.splice(0)) c.close();
}

/** Row objects carry their values twice (by index and by name): send plain arrays instead. */
function toWire(result) {
  return {
    columns: result.columns,
    columnTypes: result.columnTypes,
    rows: result.rows.map((row) => Array.prototype.slice.call(row)),
    rowsAffected: result.rowsAffected,
    lastInsertRowid: result.lastInsertRowid,
  };
}

function errorToWire(error) {
  return {
    name: error?.name ?? "Error",
    message: String(error?.message ?? error),
    code: error?.code,
    extendedCode: error?.extendedCode,
    rawCode: error?.rawCode,
    statementIndex: error?.statementIndex,
    cause: error?.cause ? { message: String(error.cause.message ?? error.cause), code: error.cause.code } : undefined,
  };
}

async function handle(op, args, tx) {
  if (client.failed) throw client.failed;
  const target = tx === undefined ? client : transactions.get(tx);
  if (!target) throw new LibsqlError("The transaction is closed", "TRANSACTION_CLOSED");
  switch (op) {
    case "execute":
      return toWire(await target.execute(args[0]));
    case "batch":
      return (await target.batch(args[0], args[1])).map(toWire);
    case "migrate":
      return (await client.migrate(args[0])).map(toWire);
    case "executeMultiple":
      return target.executeMultiple(args[0]);
    case "transaction": {
      const id = args[1];
      transactions.set(id, await client.transaction(args[0]));
      return id;
    }
    case "commit":
    case "rollback":
      try {
        return await target[op]();
      } finally {
        transactions.delete(tx);
        closeRetired();
      }
    case "closeTransaction":
      target.close();
      transactions.delete(tx);
      closeRetired();
      return undefined;
    case "close":
      for (const t of transactions.values()) t.close();
      transactions.clear();
      closeRetired();
      client.close();
      return undefined;
    default:
      throw new Error(`unknown operation ${op}`);
  }
}

parentPort.on("message", ({ id, op, args, tx }) => {
  handle(op, args, tx).then(
    (result) => parentPort.postMessage({ id, ok: true, result }),
    async (error) => {
      if (tx === undefined && /^SQLITE_(BUSY|LOCKED)/.test(String(error?.code)) && !client.failed) {
        await replaceClient().catch(() => undefined);
      }
      parentPort.postMessage({ id, ok: false, error: errorToWire(error) });
    },
  );
});
