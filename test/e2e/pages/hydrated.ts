import type { Page } from "playwright-core";

/**
 * Waits until React has hydrated the element with this test id (it carries React's fiber). A
 * server-rendered control can be typed into before that, and hydration then resets or merges what
 * was typed: fill only after this.
 */
export async function waitForHydrated(page: Page, testId: string): Promise<void> {
  await page.getByTestId(testId).first().waitFor();
  await page.waitForFunction((id) => {
    const el = document.querySelector(`[data-testid="${id}"]`);
    return el !== null && Object.keys(el).some((k) => k.startsWith("__react"));
  }, testId);
}
