/**
 * Issue 18 in the browser: a run against an OpenAI-compatible server whose model returns its
 * reasoning and writes its final call as text shows both in the timeline, and the model page's
 * "Check model" probes that same server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "@/test/fixtures/fake-openai-server";
import { screenshot, useAppAndBrowser } from "./harness";
import { startRunFromForm } from "./pages/new-run-form";
import { waitForStatus } from "./pages/run-page";

const FORCED_THOUGHT = "The question is about the launch date; search the forced tier for it.";
const FINAL_THOUGHT = "The retrieved memories say October 20, so I can finish.";

describe("a reasoning model without server-side tool parsing", () => {
  let fake: FakeOpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAI((body) => {
      const tools = (body.tools as { function: { name: string } }[] | undefined) ?? [];
      const forced = (body.tool_choice as { function?: { name: string } } | undefined)?.function?.name;
      if (tools.length === 0) return { content: "ready" };
      if (forced && forced !== "done") {
        return {
          reasoning_content: FORCED_THOUGHT,
          reasoning_tokens: 17,
          tool_calls: [{ name: forced, arguments: { reason: "forced", query: "launch date decision" } }],
        };
      }
      if (tools.some((t) => t.function.name === "lookup")) {
        return { tool_calls: [{ name: "lookup", arguments: { query: "ping" } }] };
      }
      const done = { name: "done", arguments: { answer: "Atlas GA is October 20.", memory_ids: [] } };
      return { content: `<think>${FINAL_THOUGHT}</think>\n<tool_call>\n${JSON.stringify(done)}\n</tool_call>` };
    });
  });
  afterAll(async () => {
    await fake?.close();
  });
  // A server of its own: the model settings (REFLECT_LLM, OPENAI_BASE_URL) are the server's environment.
  const ctx = useAppAndBrowser(() => ({
    REFLECT_LLM: "openai",
    OPENAI_API_KEY: "sk-e2e-provider-secret",
    OPENAI_BASE_URL: fake.url,
    REFLECT_MODEL: "thinking-qwen",
  }));

  it("shows each response's reasoning folded in its iteration, and the tool call read from text", async () => {
    const { page } = ctx.browser;
    await startRunFromForm(page, ctx.app.url, {
      question: "What did we decide about the launch date?",
      skill: "recap",
    });
    await waitForStatus(page, "done");

    const blocks = page.getByTestId("reasoning-block");
    expect(await blocks.count()).toBeGreaterThanOrEqual(2);
    const first = blocks.first();
    expect(await first.textContent()).toMatch(new RegExp(`Reasoning\\s*· ${FORCED_THOUGHT.length} chars · 17 tokens`));
    // Folded: the full text is not rendered until opened.
    expect(await page.getByTestId("reasoning-text").count()).toBe(0);
    await first.getByRole("button").click();
    await expect(first.getByTestId("reasoning-text").textContent()).resolves.toBe(FORCED_THOUGHT);

    const last = blocks.last();
    expect(await last.textContent()).toContain(`${FINAL_THOUGHT.length} chars`);
    const textCall = page.getByTestId("text-tool-call");
    expect(await textCall.textContent()).toMatch(/Tool calls read from text.*Hermes <tool_call>/);

    const answer = await page.getByTestId("answer").textContent();
    expect(answer).toContain("Atlas GA is October 20.");
    expect(answer).not.toMatch(/<think>|<tool_call>|October 20, so I can finish/);
    expect(await page.content()).not.toContain("sk-e2e-provider-secret");
    await screenshot(page, "run-page-reasoning");
  });

  it("the model page checks the configured server and shows what works", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/`);
    await page.getByTestId("provider-status").click();
    await page.waitForURL(/\/model$/);
    await page.getByTestId("check-model").click();
    const report = page.getByTestId("model-check-report");
    await report.waitFor({ timeout: 30_000 });
    expect(await report.getAttribute("data-tool-calls")).toBe("structured");
    expect(await page.getByTestId("model-check-probe").count()).toBe(5);
    expect(await page.getByTestId("model-check-recommendation").textContent()).toContain("named");
    expect(await page.content()).not.toContain("sk-e2e-provider-secret");
    await screenshot(page, "model-check");
  });
});
