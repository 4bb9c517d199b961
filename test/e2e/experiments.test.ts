/**
 * Suites and experiments in the browser on the demo bank: build a suite from two runs ("Add to
 * suite"), run it as the baseline, run it again under a skill draft (a saved version other than
 * the current one), compare with the baseline, and open a regressed question's run compare.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useSharedApp } from "./harness";
import { startRunViaApi } from "./pages/api";
import { waitForHydratedPage } from "./pages/hydrated";
import { openRun, waitForStatus } from "./pages/run-page";
import { screenshotWidths } from "./pages/shots";

/** This file's own copy of the demo bank on the shared app server (harness.ts). */
const BANK = "e2e-experiments";

async function api(url: string, method: string, body: unknown) {
  const res = await fetch(url, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function waitForExperiment(page: Page, status: string) {
  await page.locator(`[data-testid="experiment"][data-status="${status}"]`).waitFor({ timeout: 60_000 });
}

describe("suites and experiments on the demo bank", () => {
  const ctx = useSharedApp(BANK);

  it("a suite from two runs, a baseline, a skill draft that regresses, and the run compare", async () => {
    const { page } = ctx.browser;
    const url = ctx.app.url;

    // Two runs, each added to the suite from its run page, with the expectations it suggests.
    const runs = [
      await startRunViaApi(url, { question: "When did Atlas launch?", skill: "recap", wait: true }, BANK),
      await startRunViaApi(url, { question: "What caused the October 23 incident?", skill: "recap", wait: true }, BANK),
    ];
    for (const [i, runId] of runs.entries()) {
      await openRun(page, url, runId);
      await waitForStatus(page, "done");
      await page.getByTestId("open-add-to-suite").click();
      if (i === 0) {
        await page.getByTestId("suite-select").selectOption("__new");
        await page.getByTestId("new-suite-name").fill("e2e-gate");
      } else {
        await page.getByTestId("suite-select").selectOption("e2e-gate");
      }
      await page.getByTestId("add-to-suite").click();
      await page
        .getByTestId("added-to-suite")
        .filter({ hasText: `question ${i + 1} of e2e-gate` })
        .waitFor();
    }

    // The suite editor shows both questions with their suggested expectations.
    await page.goto(`${url}/suites/e2e-gate?bank=${BANK}`);
    await expect(page.getByTestId("suite-question").count()).resolves.toBe(2);
    expect(await page.getByTestId("expect-must-cite").first().inputValue()).toContain("f-152");
    await screenshotWidths(page, "suite-editor");

    // Baseline: the current state.
    await page.getByTestId("start-experiment").click();
    await page.waitForURL(/\/experiments\/exp_/);
    await waitForExperiment(page, "done");
    const baseline = /\/experiments\/(exp_\w+)/.exec(page.url())?.[1] ?? "";
    await expect(page.locator('[data-testid="experiment-row"][data-passed="true"]').count()).resolves.toBe(2);

    // A skill version that only reads hiring memories, then the recap skill restored as the current one.
    const skill = `${url}/api/v1/banks/${BANK}/skills/skill-recap`;
    const recap = (await (await fetch(skill)).json()) as { skill: { version: number; retrieval: unknown } };
    const narrow = await api(skill, "PUT", {
      retrieval: { tags: ["hiring"], types: ["observation", "episodic"], scope: "personal" },
      expectedVersion: recap.skill.version,
    });
    await api(skill, "PUT", { retrieval: recap.skill.retrieval, expectedVersion: narrow.version });

    // The experiment under the draft (the narrow version), compared with the baseline.
    await page.goto(`${url}/suites/e2e-gate?bank=${BANK}`);
    await waitForHydratedPage(page);
    const form = page.getByTestId("run-experiment");
    await form.getByRole("combobox", { name: "Skill draft" }).selectOption("recap");
    await form.getByRole("combobox", { name: "Version" }).selectOption(String(narrow.version));
    await form.getByRole("combobox", { name: "Compare with" }).selectOption(baseline);
    await page.getByTestId("start-experiment").click();
    await page.waitForURL((u) => /\/experiments\/exp_/.test(u.pathname) && !u.pathname.includes(baseline));
    await waitForExperiment(page, "done");
    await page.getByTestId("baseline-summary").filter({ hasText: "2 regressed" }).waitFor();
    await expect(page.locator('[data-testid="experiment-row"][data-regressed="true"]').count()).resolves.toBe(2);
    await expect(page.locator('[data-testid="experiment-row"][data-passed="false"]').count()).resolves.toBe(2);
    await page.getByTestId("filter-failed").click();
    await screenshotWidths(page, "experiment");

    // Compare the two experiments, then open a regressed question's step-aligned run compare.
    await page.getByTestId("baseline-summary").getByRole("link", { name: "compare" }).click();
    await page.getByTestId("experiment-compare").waitFor();
    await expect(page.locator('[data-testid="compare-row"][data-regression="true"]').count()).resolves.toBe(2);
    await page.getByTestId("compare-totals").filter({ hasText: "2 regressed" }).waitFor();
    // The head ran an older skill version: the page says a difference may come from the draft.
    expect(await page.getByTestId("compare-draft").textContent()).toContain("The head ran under a draft");
    await screenshotWidths(page, "experiment-compare");
    await page.getByTestId("open-run-compare").first().click();
    await page.waitForURL(/\/runs\/compare\?a=run_\w+&b=run_\w+/);
    // The baseline's run of the question against the draft's: two runs the experiments made, not the originals.
    const params = new URL(page.url()).searchParams;
    expect(params.get("a")).not.toBe(params.get("b"));
    expect(runs).not.toContain(params.get("a"));

    // From the re-run drawer: the suite under an unsaved mission; the skill is not saved.
    const before = (await (await fetch(skill)).json()) as { skill: { version: number } };
    await openRun(page, url, runs[0] ?? "");
    await page.getByTestId("open-rerun").click();
    const drawer = page.getByTestId("rerun-drawer");
    await drawer.locator('textarea[name="mission"]').fill("Answer in one sentence, citing the memory that says it.");
    await drawer.getByRole("combobox", { name: "Suite to run" }).selectOption("e2e-gate");
    await drawer.getByTestId("rerun-run-suite").click();
    await page.waitForURL(/\/experiments\/exp_/);
    await waitForExperiment(page, "done");
    await page.getByText("(unsaved mission)").waitFor();
    const after = (await (await fetch(skill)).json()) as { skill: { version: number } };
    expect(after.skill.version).toBe(before.skill.version);
  });
});
