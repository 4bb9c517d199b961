/**
 * The worker-thread client (db/worker/worker-client.ts) must behave as @libsql/client's own file client
 * does: each case runs the same statements through both on the same file and compares, and checks
 * what only the worker client promises (ordering across threads, an unblocked event loop).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { type Client, createClient, LibsqlBatchError, LibsqlError, type ResultSet } from "@libsql/client";
import { afterEach, describe, expect, it } from "vitest";
import { isReadOnly, WorkerClient } from "@/db/worker/worker-client";

const open: Client[] = [];
const files: string[] = [];

function tempFile(): string {
  const dir = resolve(process.cwd(), "test/.tmp");
  mkdirSync(dir, { recursive: true });
  const path = resolve(dir, `worker-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.db`);
  files.push(path);
  return path;
}

function clients(path: string, timeout = 5_000): { worker: WorkerClient; direct: Client } {
  const url = `file:${path}`;
  const worker = new WorkerClient({ url, timeout, readers: 2, pragmas: ["PRAGMA journal_mode=WAL"] });
  const direct = createClient({ url, timeout });
  open.push(worker, direct);
  return { worker, direct };
}

afterEach(() => {
  for (const c of open.splice(0)) c.close();
  for (const f of files.splice(0)) for (const s of ["", "-wal", "-shm"]) rmSync(`${f}${s}`, { force: true });
});

/** What callers read from a result: columns, row values by index and by name, counts. */
function shape(r: ResultSet) {
  return {
    columns: r.columns,
    columnTypes: r.columnTypes,
    byIndex: r.rows.map((row) => Array.prototype.slice.call(row)),
    byName: r.rows.map((row) => ({ ...row })),
    lengths: r.rows.map((row) => row.length),
    rowsAffected: r.rowsAffected,
    lastInsertRowid: r.lastInsertRowid,
  };
}

const SCHEMA = `
  CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, big INTEGER, data BLOB, v F32_BLOB(3));
`;

describe("WorkerClient", () => {
  it("returns the same rows, columns, counts and values (integers, bigints, blobs, vectors) as the direct client", async () => {
    const { worker, direct } = clients(tempFile());
    await worker.executeMultiple(SCHEMA);
    const insert = await worker.execute({
      sql: "INSERT INTO t (name, big, data, v) VALUES (?, ?, ?, vector32(?))",
      args: ["a", 2n ** 40n + 1n, new Uint8Array([1, 2, 255]), "[1, 0.5, -2]"],
    });
    expect(insert.rowsAffected).toBe(1);
    expect(insert.lastInsertRowid).toBe(1n);
    await worker.execute({
      sql: "INSERT INTO t (name, data) VALUES (:n, :d)",
      args: { n: "b", d: new Uint8Array([7]).buffer },
    });
    await worker.execute("INSERT INTO t (name, data) VALUES (?, ?)", ["c", Buffer.from([9, 9])]);

    const sql =
      "SELECT id, name, big, data, v, CASE WHEN v IS NULL THEN NULL ELSE vector_extract(v) END AS vx, name AS id FROM t ORDER BY id";
    const viaWorker = await worker.execute(sql);
    const viaDirect = await direct.execute(sql);
    expect(shape(viaWorker)).toEqual(shape(viaDirect));
    // The blob comes back as an ArrayBuffer with the bytes written, the vector as 3 float32s.
    const row = viaWorker.rows[0]!;
    expect(row.data).toBeInstanceOf(ArrayBuffer);
    expect([...new Uint8Array(row.data as ArrayBuffer)]).toEqual([1, 2, 255]);
    expect([...new Float32Array(row.v as ArrayBuffer)]).toEqual([1, 0.5, -2]);
    expect(row.vx).toBe("[1,0.5,-2]");
    // A duplicate column name keeps the first value by name, every value by index.
    expect(row.id).toBe(1);
    expect(row[6]).toBe("a");
    expect(Object.keys(row)).toEqual(["id", "name", "big", "data", "v", "vx"]);
    expect(JSON.parse(JSON.stringify(viaWorker)).rows.length).toBe(3);

    const update = await worker.execute("UPDATE t SET big = 1 WHERE id > 1");
    expect(update.rowsAffected).toBe(2);
  });

  it("answers a read sent right after a write from another thread with that write", async () => {
    const { worker } = clients(tempFile());
    await worker.execute("CREATE TABLE n (x INTEGER)");
    for (let i = 1; i <= 200; i++) {
      await worker.execute({ sql: "INSERT INTO n VALUES (?)", args: [i] });
      // Reads go to the reader threads; each must see the commit that just returned.
      const [a, b] = await Promise.all([
        worker.execute("SELECT COUNT(*) AS c FROM n"),
        worker.execute("SELECT MAX(x) AS m FROM n"),
      ]);
      expect(a.rows[0]?.c).toBe(i);
      expect(b.rows[0]?.m).toBe(i);
    }
  });

  it("surfaces SQLite errors with their codes, as the direct client does", async () => {
    const { worker, direct } = clients(tempFile());
    await worker.executeMultiple(SCHEMA);
    await worker.execute("INSERT INTO t (name) VALUES ('a')");
    const dup = "INSERT INTO t (name) VALUES ('a')";
    const viaWorker = await worker.execute(dup).catch((e: unknown) => e);
    const viaDirect = await direct.execute(dup).catch((e: unknown) => e);
    expect(viaWorker).toBeInstanceOf(LibsqlError);
    expect(viaWorker).toMatchObject({ code: "SQLITE_CONSTRAINT", message: (viaDirect as Error).message });
    expect((viaWorker as LibsqlError).extendedCode).toBe((viaDirect as LibsqlError).extendedCode);
    expect(String(viaWorker)).toMatch(/UNIQUE/);

    const syntax = await worker.execute("SELEC 1").catch((e: unknown) => e);
    expect(syntax).toMatchObject({ code: "SQLITE_ERROR" });
    const read = await worker.execute("SELECT * FROM missing").catch((e: unknown) => e);
    expect(read).toMatchObject({ code: "SQLITE_ERROR", message: expect.stringMatching(/no such table/) });
  });

  it("runs a batch atomically: a failing statement rolls back the ones before it and names its index", async () => {
    const { worker } = clients(tempFile());
    await worker.executeMultiple(SCHEMA);
    const error = await worker
      .batch(
        ["INSERT INTO t (name) VALUES ('x')", "INSERT INTO t (name) VALUES ('y')", "INSERT INTO t (name) VALUES ('x')"],
        "write",
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LibsqlBatchError);
    expect(error).toMatchObject({ code: "SQLITE_CONSTRAINT", statementIndex: 2 });
    expect((await worker.execute("SELECT COUNT(*) AS c FROM t")).rows[0]?.c).toBe(0);

    const ok = await worker.batch([
      { sql: "INSERT INTO t (name) VALUES (?)", args: ["x"] },
      ["INSERT INTO t (name) VALUES (?)", ["y"]],
      "SELECT name FROM t ORDER BY name",
    ]);
    expect(ok.map((r) => r.rowsAffected)).toEqual([1, 1, 0]);
    expect(ok[2]!.rows.map((r) => r.name)).toEqual(["x", "y"]);
  });

  it("runs an interactive transaction on one connection: others see nothing until commit, nothing after rollback", async () => {
    const { worker, direct } = clients(tempFile());
    await worker.executeMultiple(SCHEMA);
    const count = async () => (await worker.execute("SELECT COUNT(*) AS c FROM t")).rows[0]?.c;

    const tx = await worker.transaction("write");
    await tx.execute({ sql: "INSERT INTO t (name) VALUES (?)", args: ["in-tx"] });
    expect((await tx.execute("SELECT COUNT(*) AS c FROM t")).rows[0]?.c).toBe(1);
    expect(await count()).toBe(0);
    await tx.rollback();
    expect(tx.closed).toBe(true);
    expect(await count()).toBe(0);
    await tx.rollback(); // as in @libsql/client: a no-op once settled
    await expect(tx.execute("SELECT 1")).rejects.toMatchObject({ code: "TRANSACTION_CLOSED" });

    const tx2 = await worker.transaction("write");
    await tx2.batch(["INSERT INTO t (name) VALUES ('p')", "INSERT INTO t (name) VALUES ('q')"]);
    const dup = await tx2.execute("INSERT INTO t (name) VALUES ('p')").catch((e: unknown) => e);
    expect(dup).toMatchObject({ code: "SQLITE_CONSTRAINT" });
    await tx2.commit();
    expect(await count()).toBe(2);
    expect((await direct.execute("SELECT COUNT(*) AS c FROM t")).rows[0]?.c).toBe(2);
    await expect(tx2.commit()).rejects.toMatchObject({ code: "TRANSACTION_CLOSED" });

    // close() without commit rolls back.
    const tx3 = await worker.transaction();
    await tx3.execute("INSERT INTO t (name) VALUES ('r')");
    tx3.close();
    expect(await count()).toBe(2);
  });

  it("queues the client's other writes behind an open transaction instead of deadlocking on the lock", async () => {
    const { worker } = clients(tempFile());
    await worker.executeMultiple(SCHEMA);
    const tx = await worker.transaction("write");
    await tx.execute("INSERT INTO t (name) VALUES ('first')");
    const order: string[] = [];
    const outside = worker.execute("INSERT INTO t (name) VALUES ('second')").then(() => order.push("outside"));
    const nested = worker.transaction("write");
    await new Promise((r) => setTimeout(r, 50));
    expect(order).toEqual([]);
    order.push("commit");
    await tx.commit();
    await outside;
    const tx2 = await nested;
    await tx2.execute("INSERT INTO t (name) VALUES ('third')");
    await tx2.commit();
    expect(order).toEqual(["commit", "outside"]);
    const names = await worker.execute("SELECT name FROM t ORDER BY id");
    expect(names.rows.map((r) => r.name)).toEqual(["first", "second", "third"]);
  });

  it("two transactions and a write started in the same tick each run on their own, without the busy timeout", async () => {
    const { worker } = clients(tempFile());
    await worker.executeMultiple(SCHEMA);
    const started = Date.now();
    const run = async (name: string, rollback: boolean) => {
      const tx = await worker.transaction("write");
      await tx.execute({ sql: "INSERT INTO t (name) VALUES (?)", args: [name] });
      await new Promise((r) => setTimeout(r, 30));
      if (rollback) await tx.rollback();
      else await tx.commit();
    };
    // The plain write must not land inside the transaction that rolls back.
    await Promise.all([
      run("kept", false),
      run("rolled back", true),
      worker.execute("INSERT INTO t (name) VALUES ('plain')"),
    ]);
    const names = await worker.execute("SELECT name FROM t ORDER BY name");
    expect(names.rows.map((r) => r.name)).toEqual(["kept", "plain"]);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("fails with SQLITE_BUSY after the busy timeout when the lock stays taken", async () => {
    const path = tempFile();
    const holder = clients(path).worker;
    await holder.executeMultiple(SCHEMA);
    const impatient = new WorkerClient({ url: `file:${path}`, timeout: 200, readers: 1, pragmas: [] });
    open.push(impatient);
    const tx = await holder.transaction("write");
    await tx.execute("INSERT INTO t (name) VALUES ('held')");
    await expect(impatient.execute("INSERT INTO t (name) VALUES ('blocked')")).rejects.toMatchObject({
      code: "SQLITE_BUSY",
    });
    // Its own transaction left open: the client's next write waits the timeout, then says BUSY too.
    const self = new WorkerClient({ url: `file:${path}`, timeout: 200, readers: 0, pragmas: [] });
    open.push(self);
    const own = await self.transaction("deferred");
    await expect(self.execute("DELETE FROM t")).rejects.toMatchObject({ code: "SQLITE_BUSY" });
    own.close();
    await tx.commit();
    await impatient.execute("INSERT INTO t (name) VALUES ('later')");
    const names = await impatient.execute("SELECT name FROM t ORDER BY id");
    expect(names.rows.map((r) => r.name)).toEqual(["held", "later"]);
  });

  it("migrates, and refuses every call once closed", async () => {
    const { worker } = clients(tempFile());
    const results = await worker.migrate(["CREATE TABLE m (x)", "INSERT INTO m VALUES (1)"]);
    expect(results.map((r) => r.rowsAffected)).toEqual([0, 1]);
    expect((await worker.execute("SELECT x FROM m")).rows[0]?.x).toBe(1);
    worker.close();
    expect(worker.closed).toBe(true);
    await expect(worker.execute("SELECT 1")).rejects.toMatchObject({ code: "CLIENT_CLOSED" });
    await expect(worker.batch(["SELECT 1"])).rejects.toMatchObject({ code: "CLIENT_CLOSED" });
    await expect(worker.transaction()).rejects.toMatchObject({ code: "CLIENT_CLOSED" });
  });

  it("fails calls to a thread that stopped at once, and replaces a stopped reader", async () => {
    const { worker } = clients(tempFile());
    await worker.execute("CREATE TABLE k (x)");
    await worker.execute("SELECT 1");
    // Stop the reader's thread as a crash would.
    const threads = worker as unknown as { readers: { worker: { terminate: () => Promise<number> } }[] };
    expect(threads.readers.length).toBe(1);
    await threads.readers[0]!.worker.terminate();
    const r = await worker.execute("SELECT COUNT(*) AS n FROM k");
    expect(r.rows[0]?.n).toBe(0);
    const writer = worker as unknown as { writer: { worker: { terminate: () => Promise<number> } } };
    await writer.writer.worker.terminate();
    await expect(worker.execute("INSERT INTO k VALUES (1)")).rejects.toMatchObject({ code: "CLIENT_CLOSED" });
  });

  it("keeps the event loop free while a query runs", async () => {
    // No timing: the query can only finish once this thread has run again. The worker's write waits
    // on a lock the direct client holds on this thread and releases from a timer while the write is
    // pending; a client that ran SQLite on this thread would block right here until SQLITE_BUSY.
    const { worker, direct } = clients(tempFile(), 10_000);
    await worker.executeMultiple(SCHEMA);
    const held = await direct.transaction("write");
    await held.execute("INSERT INTO t (name) VALUES ('held')");
    const order: string[] = [];
    const write = worker.execute("INSERT INTO t (name) VALUES ('waited')").then(() => order.push("write done"));
    await new Promise((r) => setTimeout(r, 0));
    order.push("this thread ran");
    await held.commit();
    await write;
    expect(order).toEqual(["this thread ran", "write done"]);
    const names = await worker.execute("SELECT name FROM t ORDER BY id");
    expect(names.rows.map((r) => r.name)).toEqual(["held", "waited"]);
    // A long read on a reader thread: this thread's timers keep firing while it runs.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const r = await worker.execute(
      "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000000) SELECT COUNT(*) AS n FROM c",
    );
    clearInterval(timer);
    expect(r.rows[0]?.n).toBe(1_000_000);
    expect(ticks).toBeGreaterThan(0);
  });
});

describe("isReadOnly", () => {
  it("sends only plain reads to reader threads", () => {
    expect(isReadOnly("SELECT 1")).toBe(true);
    expect(isReadOnly("  -- note\n/* c */ select * from t")).toBe(true);
    expect(isReadOnly("WITH x AS (SELECT 1) SELECT * FROM x")).toBe(true);
    expect(isReadOnly("WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x")).toBe(false);
    expect(isReadOnly("WITH x AS (SELECT 1) DELETE FROM t")).toBe(false);
    expect(isReadOnly("INSERT INTO t VALUES (1)")).toBe(false);
    expect(isReadOnly("PRAGMA journal_mode=WAL")).toBe(false);
    expect(isReadOnly("UPDATE t SET x = 1 RETURNING x")).toBe(false);
  });

  it.runIf(process.platform === "linux")(
    "runs its database threads at a lower priority than the event loop",
    async () => {
      const { worker } = clients(tempFile());
      await worker.execute("SELECT 1");
      await worker.execute({ sql: "CREATE TABLE IF NOT EXISTS p (x)", args: [] });
      // Field 19 of /proc/<pid>/task/<tid>/stat is the thread's nice value.
      const nice = (tid: string) =>
        Number(readFileSync(`/proc/self/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ")[16]);
      const niceByName = new Map<string, number[]>();
      for (const tid of readdirSync("/proc/self/task")) {
        const name = readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim();
        niceByName.set(name, [...(niceByName.get(name) ?? []), nice(tid)]);
      }
      expect(nice(String(process.pid))).toBe(0);
      // The writer and the reader opened so far carry nice 5 (threads of earlier tests may still be closing).
      expect([...niceByName.values()].flat().filter((n) => n === 5).length).toBeGreaterThanOrEqual(2);
    },
  );
});
