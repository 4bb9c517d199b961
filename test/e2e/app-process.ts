/**
 * The e2e processes, without Vitest (global-setup starts the shared ones): the production build
 * served by `next start` on a free loopback port with a temp database, and Debian's Chromium
 * driven by playwright-core.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type BrowserServer, chromium, type LaunchOptions } from "playwright-core";

const root = join(import.meta.dirname, "..", "..");
export const TMP = join(root, "test", ".tmp");

export interface RunningApp {
  url: string;
  dbUrl: string;
  logs: () => string;
  stop: () => Promise<void>;
}

/** `nodeArgs` go to the server's node (e.g. `--cpu-prof`, which NODE_OPTIONS does not allow). */
export async function startApp(env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<RunningApp> {
  mkdirSync(TMP, { recursive: true });
  const dir = mkdtempSync(join(TMP, "e2e-"));
  const dbUrl = `file:${join(dir, "inspector.db")}`;
  let output = "";
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...nodeArgs,
      join(root, "node_modules", "next", "dist", "bin", "next"),
      "start",
      "-H",
      "127.0.0.1",
      // Port 0: the system picks a free port as the server listens (no check-then-use race);
      // next start prints the address it got.
      "-p",
      "0",
    ],
    {
      cwd: root,
      env: { ...process.env, DATABASE_URL: dbUrl, REFLECT_LLM: "offline", NEXT_TELEMETRY_DISABLED: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  const deadline = Date.now() + 60_000;
  let url = "";
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited early:\n${output}`);
    url ||= /Local:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1] ?? "";
    if (url) {
      try {
        const res = await fetch(`${url}/api/health`);
        if (res.ok) break;
      } catch {
        // not answering yet
      }
    }
    if (Date.now() > deadline) throw new Error(`next start did not become ready:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    dbUrl,
    logs: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const CHROMIUM_OPTIONS: LaunchOptions = {
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  headless: true,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
};

/** One Chromium for the whole e2e run; each file connects and opens its own context (own cookies and storage). */
export function launchChromiumServer(): Promise<BrowserServer> {
  return chromium.launchServer(CHROMIUM_OPTIONS);
}
