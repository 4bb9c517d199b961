/**
 * Review of the UI kit move (components/ui) as a user walks it: labels that find each control,
 * keyboard use of the skill editor, busy buttons, the leave guard and error states wired to their
 * fields (aria-invalid, aria-describedby naming the message).
 */
import { describe, expect, it } from "vitest";
import { useSharedApp } from "./harness";

describe("UI kit review: skill editor and new-skill form", () => {
  const ctx = useSharedApp("e2e-ui-kit-review");

  it("finds every skill-editor field by its label and reaches them with Tab", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/skills?bank=${ctx.bank}`);
    await page.getByTestId("new-skill-name").fill("kbd");
    await page.getByTestId("new-skill-mission").fill("Answer in one line.");
    await page.getByTestId("new-skill-mission").press("Enter");
    await page.waitForURL(new RegExp(`/skills/[^/?]+\\?bank=${ctx.bank}`));
    await page.getByTestId("skill-editor").waitFor();
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
      await page.waitForFunction(() => !document.querySelector('[data-testid="skill-save"]')?.textContent?.includes("Saving"));
    }
  });

  it("marks the name field invalid, with the message in its description, when a taken name is refused", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/skills?bank=${ctx.bank}`);
    await page.getByTestId("new-skill-name").fill("taken-twice");
    await page.getByTestId("new-skill-mission").fill("Say it once.");
    await page.getByTestId("create-skill").click();
    await page.waitForURL(new RegExp(`/skills/[^/?]+\\?bank=${ctx.bank}`));
    await page.goto(`${ctx.app.url}/skills?bank=${ctx.bank}`);
    await page.getByTestId("new-skill-name").fill("taken-twice");
    // Two quick submits: the busy button blocks the second; one refusal is shown.
    await page.getByTestId("create-skill").dblclick();
    const alert = page.getByTestId("create-skill-error");
    await alert.waitFor();
    const message = (await alert.textContent()) ?? "";
    const name = page.getByTestId("new-skill-name");
    expect(await name.getAttribute("aria-invalid")).toBe("true");
    const describedBy = ((await name.getAttribute("aria-describedby")) ?? "").split(" ").filter(Boolean);
    const described = await Promise.all(describedBy.map((id) => page.locator(`[id="${id}"]`).textContent()));
    expect(described.join(" ")).toContain(message.trim());
  });

  it("still warns before an in-app link leaves an unsaved edit", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/skills?bank=${ctx.bank}`);
    await page.getByRole("link", { name: "kbd", exact: true }).click();
    await page.getByTestId("skill-editor").waitFor();
    await page.getByLabel("Output format", { exact: true }).fill("bullets, please");
    const before = page.url();
    await page.locator("nav a[href]").first().click();
    await page.getByText("Leave with unsaved changes?").waitFor({ timeout: 5000 });
    expect(page.url()).toBe(before);
  });
});
