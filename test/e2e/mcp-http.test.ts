/**
 * An MCP agent pointed at the running inspector (Streamable HTTP at /api/mcp): it asks a
 * question, gets an answer with a link, and the link opens the run in the browser, where the
 * trace can be exported as OTLP.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OtlpTrace } from "@/lib/timeline/otlp";
import { type Browser, launchBrowser, type RunningApp, screenshot, startApp } from "./harness";

const textOf = (r: unknown) => (r as CallToolResult).content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

describe("MCP over Streamable HTTP", () => {
  let app: RunningApp;
  let browser: Browser;
  let client: Client;

  /** Asks through MCP; returns the tool's text and the run link it gives. */
  async function reflectViaMcp(question: string, skill: string) {
    const result = await client.callTool({ name: "memory_reflect", arguments: { question, skill } });
    const text = textOf(result);
    expect(result.isError, `${text}\n${app.logs()}`).toBeFalsy();
    // The SDK client already checked structuredContent against the tool's outputSchema.
    const data = result.structuredContent as { runId: string; links: { inspector: string } };
    return { text, runUrl: /Inspect: (\S+)/.exec(text)?.[1] ?? "", data };
  }

  beforeAll(async () => {
    // A server of its own: INSPECTOR_PUBLIC_URL is the server's environment (the run links MCP hands
    // out are built from it).
    app = await startApp({ INSPECTOR_PUBLIC_URL: "" });
    client = new Client({ name: "http-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/api/mcp`)));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await client?.close();
    await browser?.close();
    await app?.stop();
  });

  it("lists the memory tools", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "memory_experiment",
      "memory_recall",
      "memory_reflect",
      "memory_retain",
    ]);
  });

  it("answers memory_reflect with a link to the run on this inspector, and the run is stored", async () => {
    const { text, runUrl, data } = await reflectViaMcp("What is blocking the SSO rollout?", "blockers");
    expect(text).toMatch(/Cited memories:\n- \[/);
    expect(data.links.inspector).toBe(runUrl);
    expect(runUrl).toMatch(new RegExp(`^${app.url}/runs/run_\\w+$`));
    const runId = runUrl.split("/").pop();

    const events = (await (await fetch(`${app.url}/api/v1/runs/${runId}/events`)).json()) as { status: string };
    expect(events.status).toBe("done");

    const otlp = await fetch(`${app.url}/api/runs/${runId}/otlp`);
    expect(otlp.headers.get("content-disposition")).toBe(`attachment; filename="run-${runId}.otlp.json"`);
    const trace = (await otlp.json()) as OtlpTrace;
    const spans = trace.resourceSpans[0]!.scopeSpans[0]!.spans;
    expect(spans.filter((s) => !s.parentSpanId).map((s) => s.name)).toEqual(["invoke_agent reflect"]);
  });

  it("opens the linked run in the browser with an Export OTLP download", async () => {
    const { runUrl } = await reflectViaMcp("What is blocking the SSO rollout?", "blockers");
    const { page } = browser;
    await page.goto(runUrl);
    await page.locator('[data-testid="run-status"][data-status="done"]').waitFor();
    expect(await page.locator("h1").first().textContent()).toContain("What is blocking the SSO rollout?");
    const link = page.getByRole("link", { name: "Export OTLP" });
    expect(await link.getAttribute("href")).toBe(`/api/runs/${runUrl.split("/").pop()}/otlp`);
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toMatch(/^run-run_\w+\.otlp\.json$/);
    await screenshot(page, "mcp-run-page");
  });

  it("answers GET, PUT, PATCH and DELETE with a JSON-RPC 405 naming POST: the endpoint is stateless", async () => {
    for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
      const res = await fetch(`${app.url}/api/mcp`, { method });
      expect([method, res.status, res.headers.get("allow")]).toEqual([method, 405, "POST"]);
      expect(((await res.json()) as { jsonrpc: string }).jsonrpc).toBe("2.0");
    }
  });

  it("answers a text/plain POST with a JSON-RPC error, not the app's REST error", async () => {
    const res = await fetch(`${app.url}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "text/plain", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(415);
    const body = (await res.json()) as { jsonrpc: string; id: unknown; error: { code: number } };
    expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
  });

  it("lists an output schema for every tool over HTTP", async () => {
    const { tools } = await client.listTools();
    for (const t of tools) expect(t.outputSchema?.type, t.name).toBe("object");
  });
});
