/**
 * The curation loop in the browser on the demo bank: a run that paid for all three tiers because
 * the launch plan is stale → fix the model in the re-run drawer → the child short-circuits →
 * compare shows the first divergence at the freshness check and the answer/citation diff.
 */
import { describe, expect, it } from "vitest";
import { screenshot, useAppAndBrowser } from "./harness";
import { startRunFromForm } from "./pages/new-run-form";
import { waitForStatus } from "./pages/run-page";

const QUESTION = "What did we decide about the launch date?";
/** The curator's fix in their own words: neither "decide" nor "date" appears, the date itself answers. */
const FIXED_HEADLINE = "**Atlas GA: Tuesday, October 20, 2026** (moved again at the September 22 go/no-go).";

describe("curation loop on the demo bank", () => {
  const ctx = useAppAndBrowser();

  it("fix a stale mental model, re-run, and compare: fewer model calls, divergence at the freshness check", async () => {
    const { page } = ctx.browser;
    const began = Date.now();
    const parentId = await startRunFromForm(page, ctx.app.url, { question: QUESTION, skill: "recap", budget: "low" });
    await waitForStatus(page, "done");
    // The stale launch plan kept the forced path through all three tiers.
    await expect(page.locator('[data-testid="timeline-iteration"][data-mode="forced"]').count()).resolves.toBe(3);
    await screenshot(page, "curation-parent-run");

    await page.getByTestId("open-rerun").click();
    const drawer = page.getByTestId("rerun-drawer");
    await drawer.waitFor();
    expect(await drawer.locator('textarea[name="question"]').inputValue()).toBe(QUESTION);
    expect(await drawer.locator('select[name="budget"]').inputValue()).toBe("low");
    expect(await drawer.locator('textarea[name="mission"]').inputValue()).toMatch(/^Catch the reader up/);

    const plan = drawer.locator('[data-testid="rerun-model"][data-model-id="mm-launch-plan"]');
    await plan.getByTestId("rerun-model-edit").click();
    const content = plan.getByTestId("rerun-model-content");
    const old = await content.inputValue();
    expect(old).toContain("October 6");
    await content.fill(old.replace(/^.*$/m, FIXED_HEADLINE));
    await plan.getByTestId("rerun-model-override").selectOption("fresh");
    await screenshot(page, "curation-rerun-drawer");

    await drawer.getByTestId("rerun-submit").click();
    await page.waitForURL((url) => url.pathname.startsWith("/runs/run_") && !url.href.includes(parentId));
    await waitForStatus(page, "done");
    await page.locator('[data-testid="run-badge"][data-flag="short_circuited"]').waitFor();
    await expect(page.locator('[data-testid="timeline-iteration"]').count()).resolves.toBe(2);
    await screenshot(page, "curation-child-run");

    await page.getByTestId("compare-with-parent").click();
    await page.getByTestId("compare-view").waitFor();
    const first = page.locator('[data-testid="compare-step"][data-first-divergence="true"]');
    expect(await first.getAttribute("data-iteration")).toBe("0");
    expect(await first.getByTestId("step-difference").first().getAttribute("data-aspect")).toBe("freshness");
    const calls = await page.getByTestId("compare-llm-calls").allTextContents();
    expect(Number(calls[1])).toBeLessThan(Number(calls[0]));
    await page.locator('[data-testid="answer-diff"] ins').first().waitFor();
    const addedModels = await page
      .locator('[data-testid="citation-diff"] tr[data-tier="mental_models"] [data-testid="citations-added"]')
      .textContent();
    expect(addedModels).toContain("mm-launch-plan");
    const change = page.locator('[data-testid="mental-model-change"][data-model-id="mm-launch-plan"]');
    expect(await change.textContent()).toContain("October 20");
    await screenshot(page, "curation-compare");
    expect(Date.now() - began).toBeLessThan(60_000);

    // Which memory the parent's step read: the stale version it saw, diffed against today's fix.
    await page.goto(`${ctx.app.url}/runs/${parentId}`);
    const seenLink = page.locator('[data-testid="model-version-link"][href*="mm-launch-plan"]');
    await seenLink.click();
    await page.getByTestId("seen-version").waitFor();
    const seen = await page.getByTestId("seen-version").textContent();
    expect(seen).toMatch(/Version 2, as a run read it → current version 3/);
    expect(seen).toContain("October 20");
    await screenshot(page, "curation-seen-version");
  });
});
