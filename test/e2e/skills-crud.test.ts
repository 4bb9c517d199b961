/** Skills are created and deleted in the UI, with the API's rules (a taken name is refused). */
import { describe, expect, it } from "vitest";
import { useSharedApp } from "./harness";
import { waitForHydrated } from "./pages/hydrated";

describe("skills create and delete", () => {
  const ctx = useSharedApp("e2e-skills-crud");

  it("creates a skill from the skills page, refuses a taken name, and deletes it after confirming", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/skills?bank=${ctx.bank}`);
    await waitForHydrated(page, "new-skill-name");
    await page.getByTestId("new-skill-name").fill("briefing");
    await page.getByTestId("new-skill-mission").fill("Brief a newcomer in three bullets.");
    await page.getByTestId("create-skill").click();
    await page.waitForURL(new RegExp(`/skills/[^/?]+\\?bank=${ctx.bank}`));
    await waitForHydrated(page, "skill-editor");
    expect(await page.getByTestId("skill-title").textContent()).toBe("briefing");
    expect(await page.getByTestId("skill-mission").inputValue()).toBe("Brief a newcomer in three bullets.");

    await page.goto(`${ctx.app.url}/skills?bank=${ctx.bank}`);
    await waitForHydrated(page, "new-skill-name");
    await page.getByTestId("new-skill-name").fill("briefing");
    await page.getByTestId("create-skill").click();
    await page.getByTestId("create-skill-error").waitFor();

    await page.getByRole("link", { name: "briefing", exact: true }).click();
    await waitForHydrated(page, "skill-editor");
    await page.getByTestId("delete-skill").click();
    await page.getByTestId("delete-skill-dialog").waitFor();
    await page.getByTestId("confirm-delete-skill").click();
    await page.waitForURL(new RegExp(`/skills\\?bank=${ctx.bank}$`));
    await page.getByTestId("skill-row").first().waitFor();
    expect(await page.getByRole("link", { name: "briefing", exact: true }).count()).toBe(0);
  });
});
