/**
 * The missed-evidence probe in the browser: a model (fake OpenAI-compatible server) that searches
 * the demo bank with an unrelated query and answers "could not find" is flagged; its run page shows
 * "What the run didn't see" with the fact the question's search ranks first, and the runs list's
 * badge filter finds the run.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "@/test/fixtures/fake-openai-server";
import { useAppAndBrowser } from "./harness";
import { startRunViaApi } from "./pages/api";
import { waitForHydratedPage } from "./pages/hydrated";

const QUESTION = "Who owns SAML SSO for Atlas v1?";
/** Where the lead looks at the section (1440 and 390 px wide). */
const SHOTS = process.env.PROBE_SHOTS_DIR;

describe("missed-evidence probe (scripted model)", () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    let recalled = false;
    fake = await startFakeOpenAI((body) => {
      const choice = body.tool_choice as { function?: { name: string } } | undefined;
      const tools = (body.tools as { function: { name: string } }[] | undefined) ?? [];
      const forced = choice?.function?.name ?? (tools.length === 1 ? tools[0]?.function.name : undefined);
      const search = forced && forced !== "done" ? forced : recalled || forced === "done" ? null : "recall";
      if (search) {
        recalled ||= search === "recall";
        return { tool_calls: [{ name: search, arguments: { reason: "look", query: "scheduled email reports" } }] };
      }
      return {
        tool_calls: [{ name: "done", arguments: { answer: "I could not find who owns SSO.", memory_ids: [] } }],
      };
    });
  });
  afterAll(async () => {
    await fake?.close();
  });
  // A server of its own: the model settings (REFLECT_LLM, OPENAI_BASE_URL) are the server's environment.
  const ctx = useAppAndBrowser(() => ({
    REFLECT_LLM: "openai",
    OPENAI_API_KEY: "sk-e2e",
    OPENAI_BASE_URL: fake.url,
    REFLECT_MODEL: "probe-gpt",
  }));

  it("the run page shows what the run didn't see, and the runs list filters on the flag", async () => {
    const { page } = ctx.browser;
    const runId = await startRunViaApi(ctx.app.url, { question: QUESTION, budget: "low", wait: true });
    await page.goto(`${ctx.app.url}/runs/${runId}`);
    const section = page.getByTestId("probe-section");
    await section.waitFor();
    expect(await section.getAttribute("data-missed")).toBe("true");
    expect(await section.getByRole("heading", { name: "What the run didn't see" }).count()).toBe(1);
    // The time shown is the run's wait after its answer (the question's searches start with the run), and says so.
    expect(await section.textContent()).toMatch(/\d+ ms after the answer/);
    const hits = section.getByTestId("probe-hit");
    const texts = await hits.allInnerTexts();
    expect(texts.some((t) => t.includes("Jonah Weiss owns it"))).toBe(true);
    const strong = section.locator('[data-testid="probe-hit"][data-strong="true"]');
    expect(await strong.count()).toBeGreaterThan(0);
    expect(await page.getByTestId("run-view").getByText("missed evidence").count()).toBeGreaterThan(0);
    // The hit links to the memory page by its id, which shows exactly that memory.
    const jonah = hits.filter({ hasText: "Jonah Weiss owns it" }).first();
    const jonahId = await jonah.getAttribute("data-id");
    await jonah.getByTestId("probe-hit-memory-link").click();
    await page.waitForURL(/\/memory\?/);
    expect(new URL(page.url()).searchParams.get("id")).toBe(jonahId);
    expect(await page.getByTestId("memory-focus").textContent()).toContain(jonahId);
    expect(await page.getByText("Jonah Weiss owns it").count()).toBeGreaterThan(0);
    await page.goBack();
    await section.waitFor();
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await section.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, "run-page-1440.png"), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await section.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, "run-page-390.png"), fullPage: true });
      await section.screenshot({ path: join(SHOTS, "section-390.png") });
      await page.setViewportSize({ width: 1440, height: 900 });
      await section.screenshot({ path: join(SHOTS, "section-1440.png") });
    }

    // The runs list's badge filter (a plain GET form) finds the flagged run.
    await page.goto(`${ctx.app.url}/runs`);
    await waitForHydratedPage(page);
    await page.getByLabel("Badge").selectOption("missed_evidence");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/badge=missed_evidence/);
    await page.locator(`a[href="/runs/${runId}"]`).first().waitFor();
    expect(await page.getByTestId("run-flag").filter({ hasText: "missed evidence" }).count()).toBeGreaterThan(0);
  });
});
