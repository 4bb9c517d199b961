/**
 * Curation never loses work: unsaved edits ask before a link or Back leaves them, survive a
 * reload as a draft, and a tried skill draft is labelled a draft everywhere and comes back.
 */
import { describe, expect, it } from "vitest";
import { screenshot, useSharedApp } from "./harness";
import { startRunViaApi } from "./pages/api";
import { waitForHydrated } from "./pages/hydrated";
import { createMentalModel } from "./pages/mental-model";
import { runIdOf } from "./pages/run-page";
import { screenshotWidths } from "./pages/shots";

/** This file's own copy of the demo bank on the shared app server (harness.ts). */
const BANK = "e2e-curation-safety";

describe("unsaved edits and drafts", () => {
  const ctx = useSharedApp(BANK);

  it("asks before a nav link or Back leaves an unsaved edit, and restores it after a reload", async () => {
    const { page } = ctx.browser;
    // The reload's own "leave site?" prompt is the browser's: accept it.
    page.on("dialog", (d) => void d.accept());
    await page.goto(`${ctx.app.url}/mental-models/mm-pricing?bank=${BANK}`);
    await waitForHydrated(page, "model-content");
    const content = page.getByTestId("model-content");
    const edited = `${await content.inputValue()}\n\nUnsaved note from the safety test.`;
    await content.fill(edited);

    await page.getByRole("link", { name: "Mental models", exact: true }).first().click();
    const dialog = page.getByTestId("unsaved-dialog");
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(page.url()).toContain("/mental-models/mm-pricing");
    expect(await content.inputValue()).toBe(edited);

    await page.evaluate(() => window.history.back());
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect(page.url()).toContain("/mental-models/mm-pricing");
    expect(await content.inputValue()).toBe(edited);

    await page.reload();
    await page.getByTestId("draft-offer").waitFor();
    expect(await content.inputValue()).not.toBe(edited);
    await screenshot(page, "curation-draft-offer");
    await page.getByTestId("restore-draft").click();
    expect(await content.inputValue()).toBe(edited);

    await page.getByRole("link", { name: "Mental models", exact: true }).first().click();
    await dialog.waitFor();
    await page.getByTestId("confirm-leave").click();
    await page.waitForURL(new RegExp(`/mental-models(\\?bank=${BANK})?$`));
  });

  it("discarding a draft forgets it", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/mental-models/mm-pricing?bank=${BANK}`);
    await page.getByTestId("draft-offer").waitFor();
    await page.getByTestId("discard-draft").click();
    await page.getByTestId("draft-offer").waitFor({ state: "detached" });
    await page.reload();
    await waitForHydrated(page, "mental-model-editor");
    expect(await page.getByTestId("draft-offer").count()).toBe(0);
  });

  it("a tried skill draft is a draft run everywhere, and Back returns to the editor with the draft", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/skills/skill-recap?bank=${BANK}`);
    await waitForHydrated(page, "skill-editor");
    const version = await page.getByTestId("skill-version").textContent();
    await page.getByTestId("skill-mission").fill("Draft mission: answer in one short paragraph.");
    await page.getByTestId("try-question").fill("What did we decide about the launch date?");
    await screenshotWidths(page, "curation-skill-draft");
    await page.getByTestId("try-skill").click();
    await page.waitForURL(/\/runs\/run_/);
    const runId = runIdOf(page.url());
    await page.getByTestId("draft-badge").first().waitFor();
    expect(await page.getByTestId("run-view").textContent()).toContain(`recap draft (based on ${version})`);

    await page.goBack();
    await waitForHydrated(page, "skill-editor");
    await page.getByTestId("draft-restored").waitFor();
    expect(await page.getByTestId("skill-mission").inputValue()).toBe("Draft mission: answer in one short paragraph.");
    expect(await page.getByTestId("skill-version").textContent()).toBe(version);

    // This bank's runs: files beside this one add runs to the shared server's list (50 a page).
    await page.goto(`${ctx.app.url}/runs?bank=${BANK}`);
    await page.locator(`[data-testid=run-row][data-run-id="${runId}"]`).getByTestId("draft-badge").waitFor();

    const otherId = await startRunViaApi(
      ctx.app.url,
      {
        question: "What did we decide about the launch date?",
        wait: true,
      },
      BANK,
    );
    await page.goto(`${ctx.app.url}/runs/compare?a=${otherId}&b=${runId}`);
    await page.getByTestId("compare-run-B").getByTestId("draft-badge").waitFor();
    expect(await page.getByTestId("compare-run-A").getByTestId("draft-badge").count()).toBe(0);
  });

  it("closing the re-run drawer with changes asks first", async () => {
    const { page } = ctx.browser;
    const runId = await startRunViaApi(
      ctx.app.url,
      { question: "What did we decide about pricing?", wait: true },
      BANK,
    );
    await page.goto(`${ctx.app.url}/runs/${runId}`);
    await page.getByTestId("open-rerun").click();
    const drawer = page.getByTestId("rerun-drawer");
    await drawer.waitFor();
    await drawer.locator('textarea[name="question"]').fill("A changed question for the re-run");
    await page.keyboard.press("Escape");
    const confirm = page.getByTestId("rerun-discard-dialog");
    await confirm.waitFor();
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await confirm.waitFor({ state: "detached" });
    expect(await drawer.locator('textarea[name="question"]').inputValue()).toBe("A changed question for the re-run");
    await page.keyboard.press("Escape");
    await confirm.waitFor();
    await page.getByTestId("confirm-discard").click();
    await drawer.waitFor({ state: "detached" });
  });

  it("re-applies an edit on the newer version when the changed fields do not overlap", async () => {
    const first = ctx.browser.page;
    const second = await ctx.browser.context.newPage();
    try {
      for (const page of [first, second]) {
        await page.goto(`${ctx.app.url}/mental-models/mm-hiring?bank=${BANK}`);
        await waitForHydrated(page, "mental-model-editor");
        // A draft left by an earlier test of this model is not this test's edit.
        if (await page.getByTestId("discard-draft").count()) await page.getByTestId("discard-draft").click();
      }
      const loaded = Number((await second.getByTestId("model-version").textContent())?.slice(1));
      await first.getByTestId("model-name").fill("Hiring plan (renamed by the other tab)");
      await first.getByTestId("save-model").click();
      await first.locator('[data-testid="model-version"]', { hasText: `v${loaded + 1}` }).waitFor();

      await second.getByTestId("model-content").fill("My content edit, made on the stale copy.");
      await second.getByTestId("save-model").click();
      await second.getByTestId("conflict-notice").waitFor();
      await second.getByTestId("reapply-edit").click();
      // The merged form is shown first, and the button that saves says so.
      const preview = second.getByTestId("reapply-preview");
      await preview.waitFor();
      expect(await preview.textContent()).toContain("My content edit, made on the stale copy.");
      expect(await second.getByTestId("reapply-save").textContent()).toBe(
        `Save the merged edit as version ${loaded + 2}`,
      );
      await second.getByTestId("reapply-save").click();
      await second.locator('[data-testid="model-version"]', { hasText: `v${loaded + 2}` }).waitFor();
      expect(await second.getByTestId("model-name").inputValue()).toBe("Hiring plan (renamed by the other tab)");
      expect(await second.getByTestId("model-content").inputValue()).toBe("My content edit, made on the stale copy.");
      // The version list shows both saves.
      await second.locator(`[data-testid="version"][data-version="${loaded + 2}"]`).waitFor();
    } finally {
      await second.close();
    }
  });
  it("Restore with an unsaved edit asks first, and the edit comes back as a draft based on the old version", async () => {
    const page = await ctx.browser.context.newPage();
    page.on("dialog", (d) => void d.accept());
    try {
      await createMentalModel(page, ctx.app.url, BANK, {
        name: "Restore safety",
        sourceQuery: "What did we decide about restoring?",
        content: "First version.",
      });
      await page.getByTestId("model-content").fill("Second version.");
      await page.getByTestId("save-model").click();
      await page.locator('[data-testid="model-version"]', { hasText: "v2" }).waitFor();

      const content = page.getByTestId("model-content");
      await content.fill("My unsaved edit on v2.");
      const restore = page.locator('[data-testid="version"][data-version="1"]').getByTestId("restore-version");
      await restore.click();
      const dialog = page.getByTestId("replace-unsaved-dialog");
      await dialog.waitFor();
      expect(await dialog.textContent()).toContain("your edit stays as a draft you can restore");
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "detached" });
      expect(await page.getByTestId("model-version").textContent()).toBe("v2");
      expect(await content.inputValue()).toBe("My unsaved edit on v2.");

      await restore.click();
      await page.getByTestId("confirm-replace-unsaved").click();
      await page.locator('[data-testid="model-version"]', { hasText: "v3" }).waitFor();
      expect(await content.inputValue()).toBe("First version.");

      await page.reload();
      const offer = page.getByTestId("draft-offer");
      await offer.waitFor();
      expect(await offer.textContent()).toContain("draft based on v2");
      await page.getByTestId("restore-draft").click();
      expect(await content.inputValue()).toBe("My unsaved edit on v2.");
      expect(await page.getByTestId("model-version").textContent()).toBe("v3");
    } finally {
      await page.close();
    }
  });

  it("Accept a refresh with an unsaved edit asks first, and the edit is offered as a draft", async () => {
    const page = await ctx.browser.context.newPage();
    try {
      await page.goto(`${ctx.app.url}/mental-models/mm-launch-plan?bank=${BANK}`);
      await waitForHydrated(page, "mental-model-editor");
      const before = Number((await page.getByTestId("model-version").textContent())?.slice(1));
      const content = page.getByTestId("model-content");
      await content.fill("Unsaved launch edit.");
      await page.getByTestId("refresh-now").click();
      await page.getByTestId("refresh-proposal").waitFor({ timeout: 60_000 });
      await page.getByTestId("accept-refresh").click();
      const dialog = page.getByTestId("replace-unsaved-dialog");
      await dialog.waitFor();
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "detached" });
      expect(await page.getByTestId("model-version").textContent()).toBe(`v${before}`);
      expect(await content.inputValue()).toBe("Unsaved launch edit.");

      await page.getByTestId("accept-refresh").click();
      await page.getByTestId("confirm-replace-unsaved").click();
      await page.locator('[data-testid="model-version"]', { hasText: `v${before + 1}` }).waitFor();
      const offer = page.getByTestId("draft-offer");
      await offer.waitFor();
      expect(await offer.textContent()).toContain(`draft based on v${before}`);
      await page.getByTestId("restore-draft").click();
      expect(await content.inputValue()).toBe("Unsaved launch edit.");
    } finally {
      await page.close();
    }
  });

  it("two tabs on one model keep their own drafts: the other tab's save does not delete this tab's", async () => {
    const a = await ctx.browser.context.newPage();
    const b = await ctx.browser.context.newPage();
    a.on("dialog", (d) => void d.accept());
    try {
      // A model of its own, so no earlier test's draft is in the way.
      await createMentalModel(a, ctx.app.url, BANK, {
        name: "Two tabs",
        sourceQuery: "What do two tabs do?",
        content: "Saved text.",
      });
      await b.goto(a.url());
      await waitForHydrated(b, "mental-model-editor");

      await a.getByTestId("model-content").fill("Tab A's unsaved edit.");
      await b.getByTestId("model-content").fill("Tab B's edit, saved.");
      await b.getByTestId("save-model").click();
      await b.locator('[data-testid="model-version"]', { hasText: "v2" }).waitFor();

      await a.reload();
      const offer = a.getByTestId("draft-offer");
      await offer.waitFor();
      expect(await offer.textContent()).toContain("draft based on v1");
      await a.getByTestId("restore-draft").click();
      expect(await a.getByTestId("model-content").inputValue()).toBe("Tab A's unsaved edit.");
      expect(await a.getByTestId("model-version").textContent()).toBe("v2");
    } finally {
      await a.close();
      await b.close();
    }
  });
});
