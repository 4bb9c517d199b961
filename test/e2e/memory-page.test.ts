import { describe, expect, it } from "vitest";
import { screenshot, useSharedApp } from "./harness";
import { focusedTestId } from "./pages/focus";
import { waitForHydrated } from "./pages/hydrated";

describe("memory page on the demo bank", () => {
  const ctx = useSharedApp("e2e-memory-page");

  it("shows the demo bank's mental models with fresh and stale badges and their reasons", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/memory?bank=${ctx.bank}`);
    await page.getByTestId("bank-name").waitFor();
    expect(await page.getByTestId("bank-name").textContent()).toContain("Northwind Atlas");
    const badges = page.getByTestId("staleness-badge");
    await badges.first().waitFor();
    const states = await badges.evaluateAll((els) => els.map((e) => e.getAttribute("data-state")));
    expect(states).toEqual(expect.arrayContaining(["fresh", "stale", "never_refreshed", "unusable"]));
    const launch = page.locator('[data-testid="mental-model"][data-model-id="mm-launch-plan"]');
    await expect(launch.getByTestId("staleness-reason").textContent()).resolves.toMatch(/newer memor(y|ies) in scope/);
    expect(await page.getByTestId("provider-status").textContent()).toContain("offline");
    await screenshot(page, "memory-mental-models");
  });

  it("searches raw facts with BM25 and labels a team the bank does not permit", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/memory?bank=${ctx.bank}`);
    await waitForHydrated(page, "memory-search");
    await page.getByTestId("tier-tab-raw_facts").click();
    await page.getByTestId("memory-search").fill("SSO blocker");
    await page.waitForURL(/q=SSO/);
    await page.getByTestId("fact").first().waitFor();
    const first = await page.getByTestId("fact").first().textContent();
    expect(first?.toLowerCase()).toMatch(/sso|saml/);
    await screenshot(page, "memory-facts-search");
    await page.getByTestId("memory-search").fill("budget");
    await page.waitForURL(/q=budget/);
    await page.getByText("not permitted").first().waitFor();
  });

  it("moves between the tier tabs with the arrow keys, each tab naming its panel", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/memory?bank=${ctx.bank}`);
    const tabs = page.getByRole("tablist", { name: "Memory tiers" }).getByRole("tab");
    expect(await tabs.count()).toBe(3);
    await page.getByTestId("tier-tab-mental_models").focus();
    await page.keyboard.press("ArrowRight");
    await page.locator('[data-testid=tier-tab-observations][aria-selected="true"]').waitFor();
    await page.waitForURL(/tier=observations/);
    await page.getByTestId("observation").first().waitFor();
    const panel = page.getByRole("tabpanel");
    expect(await panel.getAttribute("id")).toBe(
      await page.getByTestId("tier-tab-observations").getAttribute("aria-controls"),
    );
    // End jumps to the last tab; the arrows wrap around.
    await page.keyboard.press("End");
    await page.locator('[data-testid=tier-tab-raw_facts][aria-selected="true"]').waitFor();
    await page.keyboard.press("ArrowRight");
    await page.locator('[data-testid=tier-tab-mental_models][aria-selected="true"]').waitFor();
    expect(await focusedTestId(page)).toBe("tier-tab-mental_models");
  });
});
