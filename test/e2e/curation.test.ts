import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, useSharedApp } from "./harness";
import { waitForFocus } from "./pages/focus";
import { waitForHydrated } from "./pages/hydrated";
import { screenshotWidths } from "./pages/shots";

/** This file's own copy of the demo bank on the shared app server (harness.ts). */
const BANK = "e2e-curation";

/** The version the skill editor has loaded ("v3" → 3). */
async function skillVersion(page: Page): Promise<number> {
  return Number((await page.getByTestId("skill-version").textContent())?.replace(/^v/, ""));
}

describe("curation loop on the demo bank", () => {
  const ctx = useSharedApp(BANK);

  it("lists mental models with their staleness, last refresh and readers", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/mental-models?bank=${BANK}`);
    await page.getByTestId("mental-model-row").first().waitFor();
    const states = await page
      .getByTestId("staleness-badge")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-state")));
    expect(states).toEqual(
      expect.arrayContaining(["fresh", "stale", "never_refreshed", "overridden_fresh", "overridden_stale"]),
    );
    const launch = page.locator('[data-testid="mental-model-row"][data-model-id="mm-launch-plan"]');
    expect(await launch.getByTestId("staleness-reason").textContent()).toMatch(/newer memor(y|ies) in scope/);
    await screenshot(page, "curation-mental-models");
  });

  it("refresh proposes a diff; accept saves the next version and discard changes nothing", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/mental-models/mm-launch-plan?bank=${BANK}`);
    await waitForHydrated(page, "mental-model-editor");
    const before = Number((await page.getByTestId("model-version").textContent())?.slice(1));
    // Discard: the proposal goes away and nothing was saved.
    await page.getByTestId("refresh-now").click();
    await page.getByTestId("refresh-proposal").waitFor({ timeout: 60_000 });
    expect(await page.getByTestId("refresh-proposal").getAttribute("data-usable")).toBe("true");
    await page.getByTestId("discard-refresh").click();
    await page.getByTestId("refresh-proposal").waitFor({ state: "detached" });
    await page.reload();
    await waitForHydrated(page, "mental-model-editor");
    expect(await page.getByTestId("model-version").textContent()).toBe(`v${before}`);
    // Accept: the diff shows the proposed lines, then it is saved as the next version, fresh.
    await page.getByTestId("refresh-now").click();
    await page.getByTestId("refresh-proposal").waitFor({ timeout: 60_000 });
    expect(await page.getByTestId("refresh-diff").locator('[data-op="add"]').count()).toBeGreaterThan(0);
    expect(await page.getByTestId("model-version").textContent()).toBe(`v${before}`);
    await screenshotWidths(page, "curation-refresh-proposal");
    await page.getByTestId("accept-refresh").click();
    await page.getByTestId("refresh-outcome").waitFor();
    expect(await page.getByTestId("refresh-outcome").textContent()).toContain(`Refreshed as version ${before + 1}`);
    await page.locator(`[data-testid="version"][data-version="${before + 1}"]`).waitFor();
    await page.locator('[data-testid="model-version"]', { hasText: `v${before + 1}` }).waitFor();
    expect(await page.getByTestId("staleness-badge").first().getAttribute("data-state")).toBe("fresh");
    await page.getByTestId("content-tab-preview").click();
    await page.getByTestId("markdown-preview").waitFor();
    await screenshot(page, "curation-mental-model-refreshed");
    await page.getByTestId("refresh-runs").getByRole("link").first().click();
    await page.waitForURL(/\/runs\/run_/);
  });

  it("shows an unusable refresh as such and offers no accept", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/mental-models/new?bank=${BANK}`);
    await waitForHydrated(page, "model-name");
    await page.getByTestId("model-name").fill("Swallow airspeed");
    await page.getByTestId("model-source-query").fill("What is the airspeed velocity of an unladen swallow?");
    await page.getByTestId("model-content").fill("Curated by hand: about 11 metres per second.");
    await page.getByTestId("save-model").click();
    await page.waitForURL(/\/mental-models\/mm-swallow-airspeed/);
    await page.getByTestId("refresh-now").click();
    await page.getByTestId("refresh-proposal").waitFor({ timeout: 60_000 });
    expect(await page.getByTestId("refresh-proposal").getAttribute("data-usable")).toBe("false");
    expect(await page.getByTestId("refresh-unusable").textContent()).toMatch(/cannot be accepted/);
    expect(await page.getByTestId("accept-refresh").count()).toBe(0);
    await page.getByTestId("discard-refresh").click();
    await page.reload();
    await waitForHydrated(page, "mental-model-editor");
    expect(await page.getByTestId("model-version").textContent()).toBe("v1");
    expect(await page.getByTestId("model-content").inputValue()).toBe("Curated by hand: about 11 metres per second.");
  });

  it("restores an old version as a new version with its content", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/mental-models/mm-swallow-airspeed?bank=${BANK}`);
    await waitForHydrated(page, "mental-model-editor");
    await page.getByTestId("model-content").fill("Second thoughts: African or European?");
    await page.getByTestId("save-model").click();
    await page.locator('[data-testid="model-version"]', { hasText: "v2" }).waitFor();
    await page.locator('[data-testid="version"][data-version="1"]').getByTestId("restore-version").click();
    await page.locator('[data-testid="model-version"]', { hasText: "v3" }).waitFor();
    expect(await page.getByTestId("model-content").inputValue()).toBe("Curated by hand: about 11 metres per second.");
    expect(await page.locator('[data-testid="version"]').count()).toBe(3);
  });

  it("saves a skill mission edit as a version whose diff shows the change", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/skills?bank=${BANK}`);
    await page.getByTestId("skill-row").first().waitFor();
    await screenshot(page, "curation-skills");
    await page.getByRole("link", { name: "recap", exact: true }).click();
    await waitForHydrated(page, "skill-editor");
    const before = await skillVersion(page);
    const mission = page.getByTestId("skill-mission");
    const original = (await mission.inputValue()) ?? "";
    expect(original).toContain("Lead with the outcome");
    await mission.fill(original.replace("Lead with the outcome", "Open with the decision"));
    await page.getByTestId("save-skill").click();
    const saved = page.locator(`[data-testid="version"][data-version="${before + 1}"]`);
    await saved.waitFor();
    expect(await skillVersion(page)).toBe(before + 1);
    const missionDiff = saved.locator('[data-field="mission"]');
    expect(await missionDiff.locator('[data-op="remove"]').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining("Lead")]),
    );
    expect(await missionDiff.locator('[data-op="add"]').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining("Open")]),
    );
    await screenshot(page, "curation-skill-versions");
  });

  it("refuses a save from a second page that loaded an older version and shows the newer one", async () => {
    const first = ctx.browser.page;
    const second = await ctx.browser.context.newPage();
    try {
      for (const page of [first, second]) {
        await page.goto(`${ctx.app.url}/skills/skill-decisions?bank=${BANK}`);
        await waitForHydrated(page, "skill-editor");
      }
      const loaded = await skillVersion(second);

      await first.getByTestId("skill-mission").fill("Saved first by the other tab.");
      await first.getByTestId("save-skill").click();
      await first.locator(`[data-testid="version"][data-version="${loaded + 1}"]`).waitFor();

      await second.getByTestId("skill-mission").fill("My edit on the stale copy.");
      await second.getByTestId("save-skill").click();
      await second.getByTestId("conflict-notice").waitFor();
      expect(await second.getByTestId("conflict-message").textContent()).toContain(
        `saved by someone else as version ${loaded + 1}`,
      );
      const added = (await second.locator('[data-testid="conflict-notice"] [data-op="add"]').allTextContents()).join(
        "",
      );
      expect(added).toContain("Saved first by");
      // Words both texts share ("the", the final ".") are not marked as added.
      expect(added).toContain("other tab");
      expect(await second.getByTestId("skill-mission").inputValue()).toBe("My edit on the stale copy.");
      await screenshot(second, "curation-skill-conflict");

      await second.getByTestId("load-newer").click();
      await second.locator('[data-testid="skill-version"]', { hasText: `v${loaded + 1}` }).waitFor();
      expect(await second.getByTestId("skill-mission").inputValue()).toBe("Saved first by the other tab.");
      expect(await second.locator('[data-testid="version"]').count()).toBe(loaded + 1);
    } finally {
      await second.close();
    }
  });

  it("tries an unsaved skill draft in a run and leaves the saved skill alone", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/skills/skill-recap?bank=${BANK}`);
    await waitForHydrated(page, "skill-editor");
    const version = await page.getByTestId("skill-version").textContent();
    await page.getByTestId("skill-mission").fill("Answer in one short paragraph.");
    await page.getByTestId("try-question").fill("What did we decide about the launch date?");
    await page.getByTestId("try-skill").click();
    await page.waitForURL(/\/runs\/run_/);
    await page.goto(`${ctx.app.url}/skills/skill-recap?bank=${BANK}`);
    await waitForHydrated(page, "skill-editor");
    expect(await page.getByTestId("skill-version").textContent()).toBe(version);
    // The editor brings the tried draft back (said so); the saved skill is unchanged.
    await page.getByTestId("draft-restored").waitFor();
    const saved = (await (await fetch(`${ctx.app.url}/api/v1/banks/${BANK}/skills/skill-recap`)).json()) as {
      skill: { mission: string; version: number };
    };
    expect(`v${saved.skill.version}`).toBe(version);
    expect(saved.skill.mission).not.toBe("Answer in one short paragraph.");
  });

  it("creates a mental model and deletes it after confirming", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/mental-models?bank=${BANK}`);
    await waitForHydrated(page, "new-model");
    await page.getByTestId("new-model").click();
    await page.getByTestId("model-name").fill("Onboarding checklist");
    await page.getByTestId("model-source-query").fill("What must a new Atlas engineer do in week one?");
    await page.getByTestId("model-content").fill("# Week one\n\n- Get SSO access\n- Pair on the pipeline");
    await page.getByTestId("save-model").click();
    await page.waitForURL(/\/mental-models\/mm-onboarding-checklist/);
    expect(await page.getByTestId("model-title").textContent()).toBe("Onboarding checklist");
    expect(await page.getByTestId("staleness-badge").first().getAttribute("data-state")).toBe("never_refreshed");
    // Escape closes the confirmation without deleting and gives focus back to its button.
    await page.getByTestId("delete-model").click();
    const dialog = page.getByRole("alertdialog", { name: "Delete “Onboarding checklist”?" });
    await dialog.waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await waitForFocus(page, "delete-model");
    expect(await page.getByTestId("model-title").textContent()).toBe("Onboarding checklist");

    await page.getByTestId("delete-model").click();
    await page.getByTestId("delete-dialog").waitFor();
    await screenshot(page, "curation-delete-dialog");
    await page.getByTestId("confirm-delete").click();
    await page.waitForURL(new RegExp(`/mental-models\\?bank=${BANK}$`));
    await page.getByTestId("mental-model-row").first().waitFor();
    expect(await page.locator('[data-model-id="mm-onboarding-checklist"]').count()).toBe(0);
    // A tombstone: a run's link to v1 still opens, read-only and marked deleted.
    await page.goto(`${ctx.app.url}/mental-models/mm-onboarding-checklist?bank=${BANK}&seen=1`);
    await page.getByTestId("model-deleted").waitFor();
    expect(await page.getByTestId("deleted-content").textContent()).toContain("Get SSO access");
    expect(await page.getByTestId("mental-model-editor").count()).toBe(0);
    expect(await page.getByTestId("refresh-now").count()).toBe(0);
  });
});
