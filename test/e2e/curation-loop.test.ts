/**
 * The README's curation loop, followed literally in the browser on the demo bank: a run that paid
 * for all three tiers because the launch plan is stale → in the re-run drawer, edit the model and
 * set its override to fresh → Re-run with the draft → the child short-circuits, badged draft →
 * compare shows the first divergence at the freshness check. Nothing was saved by any of it; the
 * explicit "Save these changes" then keeps only what is chosen (the text, not the permanent
 * override), and the demo suite still passes afterwards.
 */
import { describe, expect, it } from "vitest";
import { screenshot, useSharedApp } from "./harness";
import { startRunFromForm } from "./pages/new-run-form";
import { openRun, waitForStatus } from "./pages/run-page";
import { screenshotWidths } from "./pages/shots";

/** This file's own copy of the demo bank on the shared app server (harness.ts). */
const BANK = "e2e-curation-loop";

const QUESTION = "What did we decide about the launch date?";
/** The README's words for the fix: "say 'Atlas GA: Tuesday, October 20'". */
const FIXED_HEADLINE = "Atlas GA: Tuesday, October 20";

interface StoredModel {
  version: number;
  content: string;
  staleOverride: string | null;
}

async function launchPlan(appUrl: string): Promise<StoredModel> {
  const res = await fetch(`${appUrl}/api/v1/banks/${BANK}/mental-models/mm-launch-plan`);
  return ((await res.json()) as { mentalModel: StoredModel }).mentalModel;
}

/** Runs the demo suite over the API and waits for it: the totals. */
async function runDemoTour(appUrl: string) {
  const res = await fetch(`${appUrl}/api/v1/experiments`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ bank: BANK, suite: "demo-tour" }),
  });
  expect(res.status).toBe(202);
  const { id } = (await res.json()) as { id: string };
  const deadline = Date.now() + 90_000;
  for (;;) {
    const e = (await (await fetch(`${appUrl}/api/v1/experiments/${id}`)).json()) as {
      status: string;
      totals: { questions: number; passed: number; failed: number };
      rows: { question: string; passed: boolean | null; failures: unknown[] }[];
    };
    if (e.status !== "running") return e;
    if (Date.now() > deadline) throw new Error("demo-tour did not finish");
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe("the README's curation loop on the demo bank", () => {
  const ctx = useSharedApp(BANK);

  it("re-runs the fix as a draft (nothing saved), short-circuits, compares, then saves only what is chosen", async () => {
    const { page } = ctx.browser;
    const saved = await launchPlan(ctx.app.url);
    const parentId = await startRunFromForm(
      page,
      ctx.app.url,
      { question: QUESTION, skill: "recap", budget: "low" },
      BANK,
    );
    await waitForStatus(page, "done");
    // The stale launch plan kept the forced path through all three tiers.
    await expect(page.locator('[data-testid="timeline-iteration"][data-mode="forced"]').count()).resolves.toBe(3);
    await screenshot(page, "curation-parent-run");

    await page.getByTestId("open-rerun").click();
    const drawer = page.getByTestId("rerun-drawer");
    await drawer.waitFor();
    expect(await drawer.locator('textarea[name="question"]').inputValue()).toBe(QUESTION);
    expect(await drawer.locator('select[name="budget"]').inputValue()).toBe("low");

    const plan = drawer.locator('[data-testid="rerun-model"][data-model-id="mm-launch-plan"]');
    await plan.getByTestId("rerun-model-edit").click();
    const content = plan.getByTestId("rerun-model-content");
    const old = await content.inputValue();
    expect(old).toContain("October 6");
    await content.fill(old.replace(/^.*$/m, FIXED_HEADLINE));
    await plan.getByTestId("rerun-model-override").selectOption("fresh");
    // The drawer says the re-run saves nothing — and no footer claims a save beside the suite button.
    const footer = (await drawer.getByTestId("rerun-saves").textContent()) ?? "";
    expect(footer).toContain("nothing is saved");
    expect(footer).not.toMatch(/Saves \d/);
    expect(await drawer.textContent()).not.toMatch(/Saves \d+ mental model/);
    await screenshotWidths(page, "curation-rerun-drawer");

    await drawer.getByTestId("rerun-submit").click();
    await page.waitForURL((url) => url.pathname.startsWith("/runs/run_") && !url.href.includes(parentId));
    const childId = /\/runs\/(run_[\w-]+)/.exec(page.url())?.[1] ?? "";
    await waitForStatus(page, "done");
    await page.locator('[data-testid="run-badge"][data-flag="short_circuited"]').waitFor();
    await expect(page.locator('[data-testid="timeline-iteration"]').count()).resolves.toBe(2);
    expect(await page.getByTestId("mental-model-draft").first().textContent()).toContain(
      "mental-model draft: Launch plan (based on v",
    );
    await screenshot(page, "curation-child-run");

    // Nothing permanent happened: the model's text, version and override are as they were.
    expect(await launchPlan(ctx.app.url)).toEqual(saved);

    await page.getByTestId("compare-with-parent").click();
    await page.getByTestId("compare-view").waitFor();
    const first = page.locator('[data-testid="compare-step"][data-first-divergence="true"]');
    expect(await first.getAttribute("data-iteration")).toBe("0");
    expect(await first.getByTestId("step-difference").first().getAttribute("data-aspect")).toBe("freshness");
    const calls = await page.getByTestId("compare-llm-calls").allTextContents();
    expect(Number(calls[1])).toBeLessThan(Number(calls[0]));
    const addedModels = await page
      .locator('[data-testid="citation-diff"] tr[data-tier="mental_models"] [data-testid="citations-added"]')
      .textContent();
    expect(addedModels).toContain("mm-launch-plan");
    const change = page.locator('[data-testid="mental-model-change"][data-model-id="mm-launch-plan"]');
    expect(await change.textContent()).toContain("October 20");
    await screenshot(page, "curation-compare");

    // To keep it: the child's drawer opens with the draft it read; Save these changes lists each
    // change, and the permanent override is saved only if ticked (here it is not).
    await openRun(page, ctx.app.url, childId);
    await page.getByTestId("open-rerun").click();
    await drawer.waitFor();
    await plan.getByTestId("rerun-model-edited").waitFor();
    await drawer.getByTestId("rerun-save-changes").click();
    const dialog = page.getByTestId("save-changes-dialog");
    await dialog.waitFor();
    const changes = await dialog
      .getByTestId("save-change")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-kind")));
    expect(changes).toEqual(["content", "override"]);
    expect(await dialog.textContent()).toContain("It is permanent");
    expect(await dialog.getByTestId("keep-override").isChecked()).toBe(false);
    expect(await page.getByTestId("confirm-save-changes").textContent()).toBe("Save 1 change");
    await screenshotWidths(page, "curation-save-changes");
    await page.getByTestId("confirm-save-changes").click();
    await page.getByTestId("rerun-saved").waitFor();
    const after = await launchPlan(ctx.app.url);
    expect(after).toMatchObject({ version: saved.version + 1, staleOverride: saved.staleOverride });
    expect(after.content.split("\n")[0]).toBe(FIXED_HEADLINE);

    // Which memory the parent's step read: the version it saw, diffed against the saved fix.
    await page.goto(`${ctx.app.url}/runs/${parentId}`);
    await page.locator('[data-testid="model-version-link"][href*="mm-launch-plan"]').click();
    await page.getByTestId("seen-version").waitFor();
    const seen = await page.getByTestId("seen-version").textContent();
    expect(seen).toContain(`Version ${saved.version}, as a run read it → current version ${saved.version + 1}`);
    expect(seen).toContain("October 20");

    // The demo suite still passes after the loop.
    const tour = await runDemoTour(ctx.app.url);
    expect(
      tour.rows.filter((r) => r.passed !== true).map((r) => [r.question, r.failures]),
      "demo-tour failures",
    ).toEqual([]);
    expect(tour.totals.passed).toBe(tour.totals.questions);
  });
});
