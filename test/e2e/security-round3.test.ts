/**
 * Issue #28 through the production server: a stored fact quoted into an answer with a malformed
 * `#cite-` link never breaks the run page (server render and the browser alike); `?bank=` of an
 * unknown bank is a 404 on every list page; TRACE is a 405, not a 500.
 */
import http from "node:http";
import { describe, expect, it } from "vitest";
import { makeLargeRun } from "@/test/fixtures/timeline/large-run";
import { useSharedApp } from "./harness";
import { seedFinishedRun } from "./seed-run";

/** This file's own copy of the demo bank on the shared app server (harness.ts). */
const BANK = "e2e-security-round3";

/** A raw request (fetch refuses TRACE/TRACK itself). */
function rawRequest(url: string, method: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, timeout: 10_000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => {
        body += d;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end();
  });
}

/** Every malformed-escape form a `#cite-` link (or any link) can carry. */
const MALFORMED = ["%FF", "%", "%E0%A4%A", "%zz", "%ED%A0%80", "%C0%AF", "%F0%9F%98", "a%"];

describe("issue #28: stored text, page parameters and methods never give a 500", () => {
  const ctx = useSharedApp(BANK);

  it("a run whose answer quotes malformed cite links renders them as text, server and client", async () => {
    const runId = "run_malformed_cite_e2e";
    const events = makeLargeRun(12, runId);
    const last = events.at(-1);
    if (last?.type !== "run.finished") throw new Error("no run.finished");
    const links = MALFORMED.map((m, i) => `[see ${i}](#cite-${m})`).join(" ");
    last.payload.answer = `Quokka budget memo ${links} and [a plain one](%FF).`;
    await seedFinishedRun(ctx.app, runId, "What does the quokka budget memo say?", events);

    const res = await fetch(`${ctx.app.url}/runs/${runId}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Quokka budget memo");

    const { page } = ctx.browser;
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${ctx.app.url}/runs/${runId}`);
    await page.getByTestId("answer").getByText("Quokka budget memo").waitFor();
    // Markdown re-encodes some forms (a bare "%" becomes "%25"); the rest stay malformed and render as text.
    expect(await page.getByTestId("malformed-link").count()).toBeGreaterThanOrEqual(MALFORMED.length - 2);
    for (let i = 0; i < MALFORMED.length; i++) await page.getByTestId("answer").getByText(`see ${i}`).waitFor();
    expect(errors).toEqual([]);
  });

  it("?bank= naming no bank is a 404 on the list pages (was 500), and so is a repeated one", async () => {
    for (const path of [
      "/suites?bank=nope",
      "/mental-models?bank=nope",
      "/skills?bank=nope",
      "/memory?bank=nope",
      "/skills/skill-recap?bank=nope",
      "/mental-models/mm-launch-plan?bank=nope",
      "/suites/smoke?bank=nope",
      "/skills?bank=nope&bank=demo",
      "/skills/%25FF",
      "/experiments/%25FF",
    ]) {
      const res = await fetch(`${ctx.app.url}${path}`);
      await res.arrayBuffer();
      expect(res.status, path).toBe(404);
    }
    const ok = await fetch(`${ctx.app.url}/skills?bank=demo&bank=nope`);
    expect(ok.status).toBe(200);
  });

  it("TRACE gets a 405 JSON answer on any path (was 500)", async () => {
    for (const path of ["/", "/api/v1/banks", "/runs/x", "/api/mcp"]) {
      const res = await rawRequest(`${ctx.app.url}${path}`, "TRACE");
      expect(res.status, `TRACE ${path}`).toBe(405);
      expect(JSON.parse(res.body).error.code).toBe("method_not_allowed");
    }
    expect((await fetch(`${ctx.app.url}/api/health`)).status).toBe(200);
  });
});
