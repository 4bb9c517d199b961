/**
 * e2e harness. global-setup builds the app once and starts ONE app server (`next start`, temp
 * database seeded with the demo bank) and ONE Chromium for the whole run, shared by the two e2e
 * workers. A file uses the shared server through `useSharedApp()`, which seeds the file's own
 * copy of the demo bank under a unique id, so files never see each other's edits; a file
 * that needs its own server configuration (token mode, another database, other env) starts one
 * with `useAppAndBrowser(env)` / `startApp(env)` and says why in a comment. Every file gets its
 * own browser context (cookies, storage) on the shared Chromium.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, inject } from "vitest";
import { CHROMIUM_OPTIONS, type RunningApp, startApp, TMP } from "./app-process";

export { type RunningApp, startApp, TMP } from "./app-process";

declare module "vitest" {
  export interface ProvidedContext {
    /** The shared app server global-setup started (url and database). */
    e2eApp: { url: string; dbUrl: string } | null;
    /** The shared Chromium's playwright endpoint. */
    e2eChromium: string | null;
  }
}

const root = join(import.meta.dirname, "..", "..");

export interface Browser {
  context: BrowserContext;
  page: Page;
  close: () => Promise<void>;
}

/**
 * The shared Chromium's endpoint (e2e global-setup), or undefined: outside vitest (the bench's
 * `timeline` section runs under tsx) `inject` throws, and the caller launches a Chromium of its own.
 */
function sharedChromium(): string | null | undefined {
  try {
    return inject("e2eChromium");
  } catch {
    return undefined;
  }
}

/** A fresh browser context (own cookies and storage) on the shared Chromium, or on one of its own without it. */
export async function launchBrowser(): Promise<Browser> {
  const endpoint = sharedChromium();
  const browser = endpoint ? await chromium.connect(endpoint) : await chromium.launch(CHROMIUM_OPTIONS);
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  return {
    context,
    page,
    close: async () => {
      await context.close();
      // Disconnects from the shared Chromium (global-setup closes it), or closes a browser of its own.
      await browser.close();
    },
  };
}

/**
 * With E2E_SCREENSHOTS=1, screenshots land in test/.tmp/screenshots for a human to look at; without
 * it they are skipped: no test reads them, and encoding some 60 full-page PNGs is CPU the run's
 * two e2e workers need (docs/performance.md#test-suite). Returns the path, or null when skipped.
 */
export const SCREENSHOTS = process.env.E2E_SCREENSHOTS === "1";

export async function screenshot(page: Page, name: string): Promise<string | null> {
  if (!SCREENSHOTS) return null;
  const dir = join(TMP, "screenshots");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Starts an app server of the file's own and a browser context before a describe block's tests
 * and stops both after it: for files that need their own server configuration. `env` may be a
 * function, for settings known only once other fixtures have started.
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

/**
 * Imports the demo bank's bundle under `bankId` (through the API, as a user would). Ids sort after
 * "demo", so the pages' default bank stays the shared, unedited demo bank.
 */
export async function seedDemoBank(appUrl: string, bankId: string): Promise<void> {
  const bundle = JSON.parse(readFileSync(join(root, "db", "demo", "demo-bank.json"), "utf8"));
  bundle.bank.id = bankId;
  const res = await fetch(`${appUrl}/api/v1/banks/import`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(bundle),
  });
  if (res.status !== 201) throw new Error(`seeding bank ${bankId} failed: ${res.status} ${await res.text()}`);
}

/**
 * The shared app server and a browser context of the file's own, with the file's own copy of the
 * demo bank under `bank` (one id per file, "e2e-<file name>": the import refuses a taken id) to
 * edit and run against. The demo bank itself is read by many files: no file edits it. Runs and
 * experiments are global: a file on the shared server finds its own by id, never by "the only
 * one" or a count of all.
 */
export function useSharedApp(bank: string) {
  const ctx = { bank } as { app: RunningApp; browser: Browser; bank: string };
  beforeAll(async () => {
    const shared = inject("e2eApp");
    // Without global-setup (a tool importing a test file): a server of its own.
    ctx.app = shared
      ? { ...shared, logs: () => "(the shared app server's output: run with E2E_SHARED_LOGS=1)", stop: async () => {} }
      : await startApp();
    await seedDemoBank(ctx.app.url, bank);
    ctx.browser = await launchBrowser();
  });
  afterAll(async () => {
    await ctx.browser?.close();
    await ctx.app?.stop();
  });
  return ctx;
}
