/**
 * The OTLP receiver end to end, in the production build behind its proxy: a GenAI trace posted as
 * protobuf to /v1/traces becomes an imported run that the runs list shows under its badge, the
 * timeline opens with its rows, and compare sets beside a native run; a native run's own OTLP
 * export posted back as JSON opens as an imported run with the same rows.
 */
import { describe, expect, it } from "vitest";
import { toProtobuf } from "@/test/fixtures/otlp/protobuf";
import { GENAI_TRACE_ID, genAiTrace, LARGE_TRACE_ID, largeGenAiTrace } from "@/test/fixtures/otlp/traces";
import { useSharedApp } from "./harness";
import { startRunViaApi } from "./pages/api";

/** This file's own copy of the demo bank on the shared app server (harness.ts). */
const BANK = "e2e-otlp-receiver";

describe("OTLP receiver", () => {
  const ctx = useSharedApp(BANK);

  it("ingests a trace over HTTP, opens it in the timeline and compares it with a native run", async () => {
    const { page } = ctx.browser;
    const res = await fetch(`${ctx.app.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/x-protobuf" },
      body: Buffer.from(toProtobuf(genAiTrace())),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-protobuf");
    const importedId = `otlp_${GENAI_TRACE_ID}`;
    expect(res.headers.get("x-imported-runs")).toBe(importedId);

    await page.goto(`${ctx.app.url}/runs?badge=imported`);
    const row = page.locator(`[data-testid=run-row][data-run-id="${importedId}"]`);
    await row.waitFor();

    await page.goto(`${ctx.app.url}/runs/${importedId}`);
    await page.locator('[data-testid=run-badge][data-flag="imported"]').waitFor();
    await page.getByTestId("answer").getByText("Ana works at Globex.").waitFor();
    await page.locator("[data-testid=timeline-row][data-kind=tier]").first().waitFor();
    expect(await page.locator("[data-testid=timeline-row]").count()).toBeGreaterThanOrEqual(3);
    expect(await page.getByTestId("run-warnings").textContent()).toMatch(
      /Imported over OTLP from service "memory-agent"/,
    );
    // Read-only: no re-run or fork controls.
    expect(await page.getByTestId("open-rerun").count()).toBe(0);

    const nativeId = await startRunViaApi(ctx.app.url, { question: "Where does Ana work?", wait: true }, BANK);
    await page.goto(`${ctx.app.url}/runs/compare?a=${nativeId}&b=${importedId}`);
    await page
      .getByTestId("compare-run-B")
      .getByText(/imported/)
      .first()
      .waitFor();
    await page.getByTestId("compare-run-A").waitFor();
  });

  it("a native run's own OTLP export, posted back, opens with the same rows", async () => {
    const { page } = ctx.browser;
    const nativeId = await startRunViaApi(
      ctx.app.url,
      {
        question: "What did we decide about the launch date?",
        wait: true,
      },
      BANK,
    );
    const exported = await fetch(`${ctx.app.url}/api/v1/runs/${nativeId}/otlp`);
    expect(exported.status).toBe(200);
    const res = await fetch(`${ctx.app.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: await exported.text(),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    const importedId = res.headers.get("x-imported-runs") ?? "";
    expect(importedId).toMatch(/^otlp_[0-9a-f]{32}$/);

    const rowsOf = async (id: string) => {
      await page.goto(`${ctx.app.url}/runs/${id}`);
      await page.locator("[data-testid=timeline-row]").first().waitFor();
      return page
        .locator("[data-testid=timeline-row]")
        .evaluateAll((els) => els.map((e) => e.getAttribute("data-kind")));
    };
    const native = await rowsOf(nativeId);
    const imported = await rowsOf(importedId);
    expect(imported).toEqual(native);
    expect(native.length).toBeGreaterThan(0);
  });

  it("a 5k-span trace ingested over HTTP is taken whole and opens in the timeline (timed in the timeline bench)", async () => {
    const { page } = ctx.browser;
    const res = await fetch(`${ctx.app.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/x-protobuf" },
      body: Buffer.from(toProtobuf(largeGenAiTrace(5000))),
    });
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBe(0); // no partial success: every span taken
    await page.goto(`${ctx.app.url}/runs/otlp_${LARGE_TRACE_ID}`);
    await page.waitForSelector('[data-testid="timeline-row"]', { timeout: 30_000 });
  });
});
