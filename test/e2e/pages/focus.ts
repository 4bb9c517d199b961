/** Where keyboard focus is, named by data-testid (the element's own or its closest ancestor's). */
import type { Page } from "playwright-core";

export function focusedTestId(page: Page): Promise<string | null> {
  return page.evaluate(() => document.activeElement?.closest("[data-testid]")?.getAttribute("data-testid") ?? null);
}

/** Waits until focus is on (or inside) the element with this data-testid. */
export async function waitForFocus(page: Page, testId: string): Promise<void> {
  await page.waitForFunction(
    (id) => document.activeElement?.closest("[data-testid]")?.getAttribute("data-testid") === id,
    testId,
    { timeout: 5_000 },
  );
}
