/**
 * e2e harness: the production build (made once by global-setup) served by `next start` on a free
 * loopback port with a temp database, and Debian's Chromium driven by playwright-core.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";

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

export interface Browser {
  context: BrowserContext;
  page: Page;
  close: () => Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  mkdirSync(TMP, { recursive: true });
  const profile = mkdtempSync(join(TMP, "chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Screenshots land in test/.tmp/screenshots for a human to look at. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = join(TMP, "screenshots");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Starts the app and a browser before a describe block's tests and stops both after it.
 * `env` may be a function, for settings known only once other fixtures have started.
 */
export function useAppAndBrowser(env: Record<string, string> | (() => Record<string, string>) = {}) {
  const ctx = {} as { app: RunningApp; browser: Browser };
  beforeAll(async () => {
    ctx.app = await startApp(typeof env === "function" ? env() : env);
    ctx.browser = await launchBrowser();
  });
  afterAll(async () => {
    await ctx.browser?.close();
    await ctx.app?.stop();
  });
  return ctx;
}
