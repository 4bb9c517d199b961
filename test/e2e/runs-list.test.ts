/**
 * The runs list, live, in Chromium: a run started through the API while the list is open appears
 * within a second and its status changes show without a reload, under the list's filters. The
 * model answers slowly (a fake OpenAI-compatible server) so the run is seen running first.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "@/test/fixtures/fake-openai-server";
import { screenshot, useAppAndBrowser } from "./harness";
import { startRunViaApi } from "./pages/api";

/** Each model call takes this long; a low-budget run makes a few, so it runs for seconds. */
const MODEL_DELAY_MS = 800;

describe("runs list (slow scripted model)", () => {
  let fake: FakeOpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAI((body) => {
      const choice = body.tool_choice as { function?: { name: string } } | undefined;
      const forced = choice?.function?.name;
      if (forced && forced !== "done") {
        return {
          tool_calls: [{ name: forced, arguments: { reason: "forced", query: "launch date" } }],
          delayMs: MODEL_DELAY_MS,
        };
      }
      return {
        tool_calls: [{ name: "done", arguments: { answer: "Atlas GA is October 20.", memory_ids: [] } }],
        delayMs: MODEL_DELAY_MS,
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
    REFLECT_MODEL: "slow-gpt",
  }));

  it("a run started through the API appears within a second and turns done without a reload", async () => {
    const { page, context } = ctx.browser;
    const runningOnly = await context.newPage();
    try {
      await page.goto(`${ctx.app.url}/runs`);
      await runningOnly.goto(`${ctx.app.url}/runs?status=running`);
      for (const p of [page, runningOnly])
        await p.locator('[data-testid=live-run-table][data-stream="live"]').waitFor();
      // A reload would drop this marker.
      await page.evaluate(() => Object.assign(window, { e2eMarker: "same page" }));

      const started = Date.now();
      const runId = await startRunViaApi(ctx.app.url, {
        question: "What did we decide about the launch date?",
        skill: "recap",
        budget: "low",
      });
      const row = (p = page) => p.locator(`[data-testid=run-row][data-run-id="${runId}"]`);
      await row().waitFor({ timeout: 1_000 });
      console.log(`e2e: a run started through the API was listed after ${Date.now() - started} ms`);
      expect(await row().getAttribute("data-status")).toBe("running");
      expect(await page.getByTestId("run-row").first().getAttribute("data-run-id")).toBe(runId);
      await row(runningOnly).waitFor({ timeout: 1_000 });
      await screenshot(page, "runs-list-live-running");

      await page
        .locator(`[data-testid=run-row][data-run-id="${runId}"][data-status="done"]`)
        .waitFor({ timeout: 30_000 });
      expect(await row().getByTestId("run-status").textContent()).toBe("done");
      expect(Number(await row().getByTestId("run-llm-calls").textContent())).toBeGreaterThan(0);
      // The list filtered to running runs lets it go once it is done.
      await row(runningOnly).waitFor({ state: "detached", timeout: 5_000 });
      expect(await page.evaluate(() => (window as { e2eMarker?: string }).e2eMarker)).toBe("same page");
      await screenshot(page, "runs-list-live-done");
    } finally {
      await runningOnly.close();
    }
  });

  it("says which URL parameters it ignored, keeps the valid filters, and a bad cursor shows the newest page", async () => {
    const { page } = ctx.browser;
    const res = await page.goto(`${ctx.app.url}/runs?cursor=garbage`);
    expect(res?.status()).toBe(200);
    const notice = page.getByTestId("runs-ignored");
    expect(await notice.textContent()).toMatch(/cursor.*newest runs/);
    await page.locator('[data-testid=live-run-table][data-stream="live"]').waitFor();

    await startRunViaApi(ctx.app.url, { question: "Who owns SSO now?", skill: "recap", budget: "low" });
    await page.goto(`${ctx.app.url}/runs?status=bogus&skill=recap&bank=demo&bank=other&flag=halted&kind=judges`);
    const text = await notice.textContent();
    expect(text).toMatch(/not valid here: bank, status, kind, flag\./);
    // What the list does take, and what a bad value may be.
    expect(text).toMatch(/filters by bank, skill, status, badge, kind, q, cursor, limit\./);
    expect(text).toMatch(/status is one of running, done, /);
    expect(text).toMatch(/kind is one of answer, judge/);
    // The valid filter still applies: every listed run used the recap skill.
    const skills = await page.getByTestId("run-row").getByTestId("run-skill").allTextContents();
    expect(skills.length).toBeGreaterThan(0);
    expect(skills.every((s) => s.startsWith("recap"))).toBe(true);
  });
});
