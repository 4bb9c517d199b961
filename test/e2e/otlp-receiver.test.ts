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

  it("a hostile trace (parent cycles, missing parents, wrong attribute types, NUL and lone surrogates, a 1 MB value) opens, compares and exports without an error", async () => {
    const { page } = ctx.browser;
    const traceId = "c7f7651916cd43dd8448eb211c80319d";
    const span = (id: string, parent: string | undefined, name: string, attributes: Record<string, unknown>) => ({
      traceId,
      spanId: id,
      parentSpanId: parent,
      name,
      kind: 1,
      startTimeUnixNano: "1700000000000000000",
      endTimeUnixNano: "1700000001000000000",
      attributes: Object.entries(attributes).map(([key, value]) => ({ key, value })),
    });
    const spans = [
      span("c700000000000001", undefined, "invoke_agent hostile", {
        "gen_ai.operation.name": { stringValue: "invoke_agent" },
        "input.value": { stringValue: "Who \u0000 is \ud800 here?" },
        "output.value": { kvlistValue: { values: [{ key: "x", value: { intValue: "1" } }] } },
        "openinference.span.kind": { intValue: "7" },
        "gen_ai.usage.input_tokens": { stringValue: "lots" },
      }),
      // Two spans that are each other's parent, one its own parent, one under a span never sent.
      span("c700000000000002", "c700000000000003", "chat m", {
        "gen_ai.operation.name": { stringValue: "chat" },
        "gen_ai.usage.input_tokens": { doubleValue: -1e308 },
        "gen_ai.usage.output_tokens": { intValue: "9223372036854775807" },
        "gen_ai.input.messages": { intValue: "3" },
        "gen_ai.output.messages": { stringValue: "{not json" },
      }),
      span("c700000000000003", "c700000000000002", "execute_tool search_observations", {
        "gen_ai.tool.name": { stringValue: "search_observations" },
        "gen_ai.tool.call.arguments": { stringValue: "[[[[" },
        "gen_ai.tool.call.result": { stringValue: "\udfff\u0000".repeat(10) },
      }),
      span("c700000000000004", "c700000000000004", "retrieval self", {
        "openinference.span.kind": { stringValue: "RETRIEVER" },
        "retrieval.documents.0.document.score": { stringValue: "NaN" },
        "retrieval.documents.0.document.id": { intValue: "12" },
        "retrieval.documents.0.document.content": { stringValue: "x".repeat(1_000_000) },
      }),
      span("c700000000000005", "ffff000000000005", "execute_tool done", {
        "gen_ai.tool.name": { stringValue: "done" },
        "gen_ai.tool.call.arguments": { stringValue: '{"answer":5,"memory_ids":"x"}' },
      }),
    ];
    const body = JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans }] }] });
    const res = await fetch(`${ctx.app.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(res.status).toBe(200);
    const importedId = `otlp_${traceId}`;
    expect(res.headers.get("x-imported-runs")).toBe(importedId);

    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const html = await fetch(`${ctx.app.url}/runs/${importedId}`);
    expect(html.status).toBe(200);
    await page.goto(`${ctx.app.url}/runs/${importedId}`);
    await page.locator('[data-testid=run-badge][data-flag="imported"]').waitFor();
    await page.locator("[data-testid=timeline-row]").first().waitFor();

    const nativeId = await startRunViaApi(ctx.app.url, { question: "Who is here?", wait: true }, BANK);
    await page.goto(`${ctx.app.url}/runs/compare?a=${nativeId}&b=${importedId}`);
    await page.getByTestId("compare-run-B").waitFor();
    await page.getByTestId("compare-run-A").waitFor();
    expect(errors).toEqual([]);

    // Exported again, and that export ingested again.
    const exported = await fetch(`${ctx.app.url}/api/v1/runs/${importedId}/otlp`);
    expect(exported.status).toBe(200);
    const again = await fetch(`${ctx.app.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: await exported.text(),
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({});
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
