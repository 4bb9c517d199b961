import type { Page } from "playwright-core";

/**
 * Waits until the element with this test id is on the page and React has hydrated the page (the
 * app marks <html data-hydrated> from an effect, app/providers.tsx). A server-rendered control can
 * be typed into before that, and hydration then resets or merges what was typed: fill only after this.
 */
export async function waitForHydrated(page: Page, testId: string): Promise<void> {
  await page.getByTestId(testId).first().waitFor();
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
}

/** The same wait for a page whose control is found by role or label rather than a test id. */
export async function waitForHydratedPage(page: Page): Promise<void> {
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
}
