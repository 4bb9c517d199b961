/**
 * Review of the UI kit move (components/ui) as a user walks it: labels that find each control,
 * keyboard use of the skill editor, busy buttons, the leave guard and error states wired to their
 * fields (aria-invalid, aria-describedby naming the message).
 */
import { describe, expect, it } from "vitest";
import { useSharedApp } from "./harness";
import { startRunViaApi } from "./pages/api";
import { waitForHydrated } from "./pages/hydrated";
import { openRun } from "./pages/run-page";

describe("UI kit review: skill editor and new-skill form", () => {
  const ctx = useSharedApp("e2e-ui-kit-review");

  it("finds every skill-editor field by its label and reaches them with Tab", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/skills?bank=${ctx.bank}`);
    await waitForHydrated(page, "new-skill-name");
    await page.getByTestId("new-skill-name").fill("kbd");
    await page.getByTestId("new-skill-mission").fill("Answer in one line.");
    await page.getByTestId("new-skill-mission").press("Enter");
    await page.waitForURL(new RegExp(`/skills/[^/?]+\\?bank=${ctx.bank}`));
    await waitForHydrated(page, "skill-editor");
    for (const name of ["Mission", "Disposition", "Output format", "Scope default", "Budget", "Answer format"]) {
      expect(await page.getByLabel(name, { exact: true }).count(), name).toBe(1);
    }
    // Keyboard: focus the mission, type, Tab onwards to the disposition chip box.
    await page.getByLabel("Mission", { exact: true }).focus();
    await page.keyboard.press("End");
    await page.keyboard.type(" Then stop.");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Disposition");
    // The save button is a submit: Enter on it saves.
    const save = page.getByTestId("skill-save");
    if ((await save.count()) === 1) {
      await save.focus();
      await page.keyboard.press("Enter");
      await page.waitForFunction(
        () => !document.querySelector('[data-testid="skill-save"]')?.textContent?.includes("Saving"),
      );
    }
  });

  it("marks the field a refusal names invalid, with the message in its description; a taken name is refused", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/skills?bank=${ctx.bank}`);
    await waitForHydrated(page, "new-skill-name");
    await page.getByTestId("new-skill-name").fill("taken-twice");
    await page.getByTestId("new-skill-mission").fill("Say it once.");
    await page.getByTestId("create-skill").click();
    await page.waitForURL(new RegExp(`/skills/[^/?]+\\?bank=${ctx.bank}`));
    // No mission: refused, and the mission field says so.
    await page.goto(`${ctx.app.url}/skills?bank=${ctx.bank}`);
    await waitForHydrated(page, "new-skill-name");
    await page.getByTestId("new-skill-name").fill("no-mission");
    // Two quick submits: the busy button blocks the second; one refusal is shown.
    await page.getByTestId("create-skill").dblclick();
    await page.getByTestId("create-skill-error").waitFor();
    const mission = page.getByTestId("new-skill-mission");
    expect(await mission.getAttribute("aria-invalid")).toBe("true");
    const describedBy = ((await mission.getAttribute("aria-describedby")) ?? "").split(" ").filter(Boolean);
    const described = await Promise.all(describedBy.map((id) => page.locator(`[id="${id}"]`).textContent()));
    expect(described.join(" ")).toMatch(/mission|required|empty|least/i);
    // A taken name (with a mission): refused, as the API refuses it (409), on the name field.
    await page.getByTestId("new-skill-name").fill("taken-twice");
    await mission.fill("Say it twice.");
    await page.getByTestId("create-skill").click();
    // The first refusal's alert is still on screen until this submit settles: wait for the name
    // field itself to be marked, not for an alert that may be the old one.
    await page.locator('[data-testid="new-skill-name"][aria-invalid="true"]').waitFor({ timeout: 5000 });
    expect(page.url()).toMatch(/\/skills\?bank=/);
    expect(await page.getByTestId("create-skill-error").textContent()).toMatch(/taken|exists|already/i);
    expect(await mission.getAttribute("aria-invalid")).not.toBe("true");
  });

  it("still warns before an in-app link leaves an unsaved edit", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/skills?bank=${ctx.bank}`);
    await page.getByRole("link", { name: "kbd", exact: true }).click();
    await waitForHydrated(page, "skill-editor");
    await page.getByLabel("Output format", { exact: true }).fill("bullets, please");
    const before = page.url();
    await page.locator("nav a[href]").first().click();
    await page.getByText("Leave with unsaved changes?").waitFor({ timeout: 5000 });
    expect(page.url()).toBe(before);
  });

  it("mental-model editor: each field found by its label once; a name error marks the name invalid and describes it", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/mental-models/mm-pricing?bank=${ctx.bank}`);
    await waitForHydrated(page, "model-name");
    for (const name of ["Name", "Tags", "Source query", "Content"]) {
      expect(await page.getByLabel(name, { exact: true }).count(), name).toBe(1);
    }
    const field = page.getByTestId("model-name");
    await field.fill("");
    await page.getByTestId("save-model").click();
    await page.waitForFunction(() => document.querySelector('[data-testid="model-name"][aria-invalid="true"]'), null, {
      timeout: 5000,
    });
    const describedBy = ((await field.getAttribute("aria-describedby")) ?? "").split(" ").filter(Boolean);
    const described = await Promise.all(describedBy.map((id) => page.locator(`[id="${id}"]`).textContent()));
    expect(described.join(" ").length).toBeGreaterThan(0);
  });

  it("versioned editor: a save after another tab's save is refused as a conflict, not lost", async () => {
    const { page, context } = ctx.browser;
    const url = `${ctx.app.url}/mental-models/mm-pricing?bank=${ctx.bank}`;
    await page.goto(url);
    await waitForHydrated(page, "model-name");
    const other = await context.newPage();
    try {
      await other.goto(url);
      await waitForHydrated(other, "model-name");
      await other.getByTestId("model-name").fill("Pricing (other tab)");
      await other.getByTestId("save-model").click();
      await other.waitForFunction(
        () => !document.querySelector('[data-testid="save-model"]')?.textContent?.includes("Saving"),
      );
      await other.getByText(/editing version/).waitFor();
      await page.getByTestId("model-name").fill("Pricing (this tab)");
      // Two quick submits: one request, one conflict.
      await page.getByTestId("save-model").dblclick();
      await page
        .getByText(/newer version|conflict|someone else/i)
        .first()
        .waitFor({ timeout: 5000 });
      expect(await page.getByTestId("model-name").inputValue()).toBe("Pricing (this tab)");
    } finally {
      await other.close();
    }
  });

  it("re-run drawer: each field is found by its own label (no counter or error in its name)", async () => {
    const { page } = ctx.browser;
    const run = { question: "What is our pricing per seat?", skill: "recap", budget: "low", wait: true } as const;
    await openRun(page, ctx.app.url, await startRunViaApi(ctx.app.url, run, ctx.bank));
    await page.getByTestId("open-rerun").focus();
    await page.keyboard.press("Enter");
    const drawer = page.getByRole("dialog", { name: "Re-run with changes" });
    await drawer.waitFor();
    for (const name of ["Question", "Budget", "Mode", "Scope", "Mission", "Disposition (comma-separated)"]) {
      expect(await drawer.getByLabel(name, { exact: true }).count(), name).toBe(1);
    }
  });
});
