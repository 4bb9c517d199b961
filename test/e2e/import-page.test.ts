/**
 * "Import a bank" in the browser (/memory/import): a bundle file (.json and .jsonl) through the
 * shared server, with its errors and replace, and a bank from a Hindsight server — refused up front
 * on the shared server (started without HINDSIGHT_IMPORT_ORIGINS), imported on a server of this
 * file's own that lists the loopback fake's origin (test/fixtures/fake-hindsight-server.ts) and runs
 * in token mode (the one extra server start covers both: the page's fetch signs in by its cookie).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeHindsight, sampleBank, startFakeHindsight } from "../fixtures/fake-hindsight-server";
import { screenshot, TMP, useAppAndBrowser, useSharedApp } from "./harness";
import { waitForHydrated, waitForHydratedPage } from "./pages/hydrated";

const fact = (id: string, text: string) => ({
  id,
  text,
  kind: "world",
  tags: [],
  scope: "personal",
  recordedAt: "2026-01-01T00:00:00Z",
});
const bundle = (id: string, name: string, facts = [fact("f1", "Atlas ships in October.")]) => ({
  version: 1,
  bank: { id, name, permittedTeams: [] },
  facts,
});

let dir = "";
beforeAll(() => {
  mkdirSync(TMP, { recursive: true });
  dir = mkdtempSync(join(TMP, "import-page-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

async function bankIds(url: string, token?: string): Promise<string[]> {
  const res = await fetch(`${url}/api/v1/banks`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return ((await res.json()) as { banks: { id: string }[] }).banks.map((b) => b.id);
}

async function importFile(page: Page, path: string, replace = false) {
  await page.getByTestId("bundle-file").setInputFiles(path);
  if (replace) await page.getByTestId("bundle-replace").check();
  await page.getByTestId("bundle-import").click();
}

describe("import page on the shared server", () => {
  const ctx = useSharedApp("e2e-import-page");

  it("is linked from the memory page; imports a bundle file and opens its memory", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/memory?bank=${ctx.bank}`);
    await page.getByTestId("import-bank-link").click();
    await page.waitForURL(/\/memory\/import$/);
    await waitForHydrated(page, "bundle-file");
    await screenshot(page, "import-empty");
    await importFile(page, file("small.json", JSON.stringify(bundle("e2e-import-a", "Imported A"))));
    const result = page.getByTestId("bundle-import-result");
    await result.waitFor();
    expect(await result.textContent()).toMatch(/Imported bank e2e-import-a: 1 fact, 0 observations/);
    await screenshot(page, "import-success");
    await page.getByTestId("bundle-import-open").click();
    await page.waitForURL(/\/memory\?bank=e2e-import-a/);
    expect(await page.getByTestId("bank-name").textContent()).toBe("Imported A");
  });

  it("a bad file shows the import's error by path and creates no bank", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/memory/import`);
    await waitForHydrated(page, "bundle-file");
    const bad = bundle("e2e-import-bad", "Bad", [fact("f1", "ok"), { ...fact("f2", "x"), text: 42 } as never]);
    await importFile(page, file("bad.json", JSON.stringify(bad)));
    const error = page.getByTestId("bundle-import-error");
    await error.waitFor();
    expect(await error.getAttribute("role")).toBe("alert");
    expect(await error.textContent()).toMatch(/facts\[1\]\.text/);
    await screenshot(page, "import-error");
    // Not JSON at all: the API's own message.
    await importFile(page, file("broken.json", "{ not json"));
    await page.getByText(/not valid JSON/).waitFor();
    expect(await bankIds(ctx.app.url)).not.toContain("e2e-import-bad");
  });

  it("refuses a bank that exists unless replace is ticked, then replaces it", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/memory/import`);
    await waitForHydrated(page, "bundle-file");
    await importFile(page, file("r1.json", JSON.stringify(bundle("e2e-import-r", "First"))));
    await page.getByTestId("bundle-import-result").waitFor();
    const second = file("r2.json", JSON.stringify(bundle("e2e-import-r", "Second", [fact("f9", "Replaced.")])));
    await importFile(page, second);
    await page.getByTestId("bundle-import-error").waitFor();
    expect(await page.getByTestId("bundle-import-error").textContent()).toMatch(/exists/);
    await importFile(page, second, true);
    await page.getByTestId("bundle-import-result").waitFor();
    await page.getByTestId("bundle-import-open").click();
    await page.waitForURL(/bank=e2e-import-r/);
    expect(await page.getByTestId("bank-name").textContent()).toBe("Second");
  });

  it("imports a .jsonl file as JSON lines, and names a bad line by its number", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/memory/import`);
    await waitForHydrated(page, "bundle-file");
    const header = JSON.stringify({ version: 1, bank: { id: "e2e-import-lines", name: "Lines", permittedTeams: [] } });
    const lines = [header, JSON.stringify({ fact: fact("f1", "One.") }), JSON.stringify({ fact: fact("f2", "Two.") })];
    await importFile(page, file("bad.jsonl", [...lines, '{"fact":{"id":"f3"}}'].join("\n")));
    await page.getByTestId("bundle-import-error").waitFor();
    expect(await page.getByTestId("bundle-import-error").textContent()).toMatch(/line 4/);
    expect(await bankIds(ctx.app.url)).not.toContain("e2e-import-lines");
    await importFile(page, file("ok.jsonl", `${lines.join("\n")}\n`));
    await page.getByTestId("bundle-import-result").waitFor();
    expect(await page.getByTestId("bundle-import-result").textContent()).toMatch(/e2e-import-lines: 2 facts/);
  });

  it("says up front that this server imports from no Hindsight server, and the form cannot be sent", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/memory/import`);
    await waitForHydrated(page, "hindsight-origins");
    const notice = page.getByTestId("hindsight-origins");
    expect(await notice.getAttribute("data-allowed")).toBe("none");
    expect(await notice.textContent()).toMatch(/imports from no Hindsight server: HINDSIGHT_IMPORT_ORIGINS is not set/);
    expect(await page.getByTestId("hindsight-import").isDisabled()).toBe(true);
    expect(await page.getByTestId("hindsight-url").isDisabled()).toBe(true);
    await screenshot(page, "import-hindsight-refused");
  });

  it("another site's page cannot import: a preflighted type is blocked, a simple one refused by the server", async () => {
    const { page } = ctx.browser;
    // A foreign site of its own (no CSP of this app's in the way), on another loopback port.
    const evil = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<p>hi</p>"));
    await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
    try {
      await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      const target = `${ctx.app.url}/api/v1/banks/import`;
      const bank = { id: "e2e-import-csrf", name: "X", permittedTeams: [] };
      const lines = `${JSON.stringify({ version: 1, bank })}\n${JSON.stringify({ fact: fact("f1", "x") })}\n`;
      const json = JSON.stringify(bundle(bank.id, bank.name));
      const outcomes = await page.evaluate(
        async ({ target, lines, json }) => {
          const tries: Record<string, string> = {};
          for (const [type, body] of [
            ["application/x-ndjson", lines],
            ["application/json", json],
          ] as const) {
            try {
              const res = await fetch(target, { method: "POST", headers: { "content-type": type }, body });
              tries[type] = `answered ${res.status}`;
            } catch {
              tries[type] = "blocked";
            }
          }
          // A "simple" request needs no preflight: it is sent, and the request policy must refuse it.
          const simple = await fetch(target, { method: "POST", mode: "no-cors", body: json });
          tries.simple = simple.type;
          return tries;
        },
        { target, lines, json },
      );
      expect(outcomes).toEqual({ "application/x-ndjson": "blocked", "application/json": "blocked", simple: "opaque" });
      expect(await bankIds(ctx.app.url)).not.toContain("e2e-import-csrf");
    } finally {
      await new Promise((resolve) => evil.close(resolve));
    }
  });
});

describe("import from a Hindsight server, in token mode (a server of this file's own: HINDSIGHT_IMPORT_ORIGINS lists the fake, INSPECTOR_TOKEN is set)", () => {
  const KEY = "hs-e2e-secret-key";
  const TOKEN = "e2e-import-token-0123456789";
  let fake: FakeHindsight;
  let stallDirectives = 0;
  beforeAll(async () => {
    fake = await startFakeHindsight({
      banks: [sampleBank("alice")],
      apiKey: KEY,
      override: (path) =>
        stallDirectives && path.endsWith("/directives") ? { stallBodyMs: stallDirectives } : undefined,
    });
  });
  afterAll(async () => fake?.close());
  // The fake starts first (beforeAll above), so its origin is known when the app starts.
  const ctx = useAppAndBrowser(() => ({ HINDSIGHT_IMPORT_ORIGINS: fake.url, INSPECTOR_TOKEN: TOKEN }));

  it("signs in, then imports a bundle file with the session cookie (the page's fetch carries it)", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/memory/import`);
    await page.waitForURL(/\/login\?next=%2Fmemory%2Fimport$/);
    await waitForHydratedPage(page);
    await page.getByTestId("login-token").fill(TOKEN);
    await page.getByTestId("login-submit").click();
    await page.waitForURL(`${ctx.app.url}/memory/import`);
    await waitForHydrated(page, "bundle-file");
    await importFile(page, file("token.json", JSON.stringify(bundle("e2e-import-token", "Token mode"))));
    await page.getByTestId("bundle-import-result").waitFor();
    expect(await bankIds(ctx.app.url, TOKEN)).toContain("e2e-import-token");
  });

  it("imports a bank: busy while it runs, one request only, counts and what was not carried; the key never shown", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/memory/import`);
    await waitForHydrated(page, "hindsight-url");
    expect(await page.getByTestId("hindsight-origins").getAttribute("data-allowed")).toBe(fake.url);
    expect(await page.getByTestId("hindsight-url").inputValue()).toBe(fake.url);
    await page.getByTestId("hindsight-bank").fill("alice");
    await page.getByTestId("hindsight-as").fill("e2e-hs-alice");
    await page.getByTestId("hindsight-key").fill(KEY);
    expect(await page.getByTestId("hindsight-key").getAttribute("type")).toBe("password");
    stallDirectives = 1_500;
    const button = page.getByTestId("hindsight-import");
    // Two submits in one task, before React can show the busy button: one import is sent.
    await page.getByTestId("hindsight-import-form").evaluate((form: HTMLFormElement) => {
      form.requestSubmit();
      form.requestSubmit();
    });
    await page.locator('[data-testid="hindsight-import"][aria-busy="true"]').waitFor();
    expect(await button.isDisabled()).toBe(true);
    // And Enter in a field while it runs sends nothing more.
    await page.getByTestId("hindsight-bank").press("Enter");
    // The other form stays usable meanwhile.
    expect(await page.getByTestId("bundle-file").isDisabled()).toBe(false);
    const result = page.getByTestId("hindsight-import-result");
    await result.waitFor();
    stallDirectives = 0;
    expect(fake.requests.filter((r) => r.url.includes("/profile"))).toHaveLength(1);
    expect(fake.requests.every((r) => r.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(await result.textContent()).toMatch(/Imported bank e2e-hs-alice from .* bank alice: 6 facts, 1 observation/);
    const skipped = await page.getByTestId("hindsight-skipped").textContent();
    expect(skipped).toMatch(/observation sources/);
    expect(skipped).toMatch(/disposition/);
    // The key is gone from the form and was never on the page, in a URL or in the server's output.
    expect(await page.getByTestId("hindsight-key").inputValue()).toBe("");
    expect(await page.content()).not.toContain(KEY);
    expect(ctx.app.logs()).not.toContain(KEY);
    await screenshot(page, "import-hindsight-success");
    await page.getByTestId("hindsight-import-open").click();
    await page.waitForURL(/bank=e2e-hs-alice/);
    expect(await page.getByTestId("bank-name").textContent()).toBe("Alice");
  });

  it("a refused key, an origin not listed and a taken bank id each show the error and import nothing", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/memory/import`);
    await waitForHydrated(page, "hindsight-url");
    const error = page.getByTestId("hindsight-import-error");
    await page.getByTestId("hindsight-bank").fill("alice");
    await page.getByTestId("hindsight-as").fill("e2e-hs-wrong-key");
    await page.getByTestId("hindsight-key").fill("not-the-key");
    await page.getByTestId("hindsight-import").click();
    await error.waitFor();
    expect(await error.textContent()).toMatch(/nothing was imported/);
    expect(await error.textContent()).not.toContain("not-the-key");
    // An origin the list does not name: refused before any request leaves.
    const before = fake.requests.length;
    await page.getByTestId("hindsight-url").fill("http://169.254.169.254/latest");
    await page.getByTestId("hindsight-import").click();
    await page
      .getByText(/http:\/\/169\.254\.169\.254 is not in HINDSIGHT_IMPORT_ORIGINS/)
      .first()
      .waitFor();
    expect(fake.requests.length).toBe(before);
    // The bank the first test imported: refused without replace.
    await page.getByTestId("hindsight-url").fill(fake.url);
    await page.getByTestId("hindsight-as").fill("e2e-hs-alice");
    await page.getByTestId("hindsight-key").fill(KEY);
    await page.getByTestId("hindsight-import").click();
    await page
      .getByText(/exists/)
      .first()
      .waitFor();
    const ids = await bankIds(ctx.app.url, TOKEN);
    expect(ids).not.toContain("e2e-hs-wrong-key");
    await page.getByTestId("hindsight-replace").check();
    await page.getByTestId("hindsight-import").click();
    await page.getByTestId("hindsight-import-result").waitFor();
  });
});
