/**
 * The API and access control through the real production server: routing, 405 for a wrong
 * method, the live SSE stream, the 401 wall when INSPECTOR_TOKEN is set, the login form, and
 * that the token never reaches the browser (HTML, JS chunks, cookies).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type RunningApp, startApp, useSharedApp } from "./harness";

const TOKEN = "e2e-Token-7f3a9c1b5d";
/** This file's own copy of the demo bank on the shared app server (harness.ts). */
const BANK = "e2e-api";

describe("API without a token (loopback)", () => {
  // The shared server runs without a token (global-setup).
  const ctx = useSharedApp(BANK);
  const app = {
    get url() {
      return ctx.app.url;
    },
  };

  it("serves the OpenAPI document and a reflect that streams its events", async () => {
    const doc = await (await fetch(`${app.url}/api/v1/openapi.json`)).json();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toContain("/banks/{bank}/reflect");

    const started = await fetch(`${app.url}/api/v1/banks/${BANK}/reflect`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ question: "What did we decide about the launch date?", skill: "decisions" }),
    });
    expect(started.status).toBe(202);
    const { links } = await started.json();
    const stream = await fetch(`${app.url}${links.events}`, { headers: { accept: "text/event-stream" } });
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    // Keep-alive comments (": keep-alive") may come first while the run has written nothing yet.
    const text = (await stream.text()).replace(/^(: [^\n]*\n\n)+/, "");
    expect(text).toMatch(/^id: 0\nevent: run\.started\n/);
    expect(text).toMatch(/event: run\.finished\ndata: .*"status":"done"/);

    const run = await (await fetch(`${app.url}${links.self}`)).json();
    expect(run.status).toBe("done");
  });

  it("answers a wrong method with 405 and bad input with a JSON error", async () => {
    const wrong = await fetch(`${app.url}/api/v1/banks/${BANK}/reflect`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST, OPTIONS");
    expect((await wrong.json()).error.code).toBe("method_not_allowed");
    const options = await fetch(`${app.url}/api/v1/banks`, { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    const bad = await fetch(`${app.url}/api/v1/banks/${BANK}/recall`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe("invalid_json");
    // A path no route declares is the API's JSON 404, not the site's HTML page.
    const unknown = await fetch(`${app.url}/api/v1/nope/deeper`);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toMatchObject({ code: "not_found" });
    // A write to it too, whatever its body's type: the route's 404, not a 415 about the body.
    for (const [method, type] of [
      ["POST", "text/plain"],
      ["PATCH", null],
    ] as const) {
      const write = await fetch(`${app.url}/api/v1/nope`, {
        method,
        headers: type ? { "content-type": type } : {},
        body: "x",
      });
      expect(write.status, `${method} ${type}`).toBe(404);
      expect((await write.json()).error.code).toBe("not_found");
    }
    // OPTIONS and HEAD too: no Allow list for a path that does not exist (Next's own OPTIONS
    // answered 204 allowing every method the catch-all exports).
    const unknownOptions = await fetch(`${app.url}/api/v1/nope`, { method: "OPTIONS" });
    expect(unknownOptions.status).toBe(404);
    expect(unknownOptions.headers.get("allow")).toBeNull();
    expect((await unknownOptions.json()).error.code).toBe("not_found");
    expect((await fetch(`${app.url}/api/v1/nope`, { method: "HEAD" })).status).toBe(404);
    // The OTLP receiver names its one method.
    const traces = await fetch(`${app.url}/v1/traces`);
    expect(traces.status).toBe(405);
    expect(traces.headers.get("allow")).toBe("POST, OPTIONS");
    // A declared path still reaches its route.
    expect((await fetch(`${app.url}/api/v1/banks`)).status).toBe(200);
  });
});

describe("access control with INSPECTOR_TOKEN", () => {
  let app: RunningApp;
  // A server of its own: token mode is the server's environment (the shared one has no token).
  beforeAll(async () => {
    app = await startApp({ INSPECTOR_TOKEN: TOKEN });
  });
  afterAll(() => app.stop());

  it("refuses the API without the token with 401 and accepts the bearer token", async () => {
    for (const path of ["/api/v1/runs", "/api/v1/openapi.json", "/api/banks/demo/memory"]) {
      const res = await fetch(`${app.url}${path}`);
      expect(res.status, path).toBe(401);
      expect((await res.json()).error.code).toBe("unauthorized");
    }
    const ok = await fetch(`${app.url}/api/v1/runs`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect((await fetch(`${app.url}/api/health`)).status).toBe(200);
  });

  it("sends pages to the login form; the right token signs in with an httpOnly cookie that is not the token", async () => {
    const redirected = await fetch(`${app.url}/runs`, { redirect: "manual" });
    expect(redirected.status).toBe(307);
    expect(redirected.headers.get("location")).toMatch(/\/login\?next=%2Fruns$/);

    const browser = await launchBrowser();
    try {
      const { page, context } = browser;
      await page.goto(`${app.url}/memory`);
      await page.getByTestId("login-token").fill("wrong");
      await page.getByTestId("login-submit").click();
      // Wait for the refusal itself (Next's route announcer also has role=alert), so the next
      // submit cannot race the first one's redirect.
      await page.waitForURL(/\/login\?error=1/);
      await page.getByText("That token is not right.").waitFor();
      expect(page.url()).toContain("/login");

      await page.getByTestId("login-token").fill(TOKEN);
      await page.getByTestId("login-submit").click();
      await page.waitForURL(`${app.url}/memory`);

      const [cookie] = await context.cookies(app.url);
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict" });
      expect(cookie?.value).not.toContain(TOKEN);

      // Every byte the browser received for these pages, including their scripts. A live event
      // stream (the runs list keeps one open) never ends: the frames it sent so far are read instead.
      const bodies: Promise<string>[] = [];
      page.on("response", (res) => {
        if (res.headers()["content-type"]?.startsWith("text/event-stream")) return;
        bodies.push(res.text().catch(() => ""));
      });
      for (const path of ["/", "/memory", "/runs", "/runs/new", "/login"]) {
        await page.goto(`${app.url}${path}`);
        await page.waitForLoadState("load");
        if (path === "/runs") await page.locator('[data-testid=live-run-table][data-stream="live"]').waitFor();
      }
      const seen = await Promise.all(bodies);
      expect(seen.length).toBeGreaterThan(10);
      expect(seen.filter((body) => body.includes(TOKEN))).toEqual([]);
      const scripts = await page.evaluate(() => [...document.scripts].map((s) => s.src).filter(Boolean));
      for (const src of scripts) expect(await (await fetch(src)).text()).not.toContain(TOKEN);
    } finally {
      await browser.close();
    }
  });
});
