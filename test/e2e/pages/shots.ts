/** Screenshots of one state at desktop (1440 px) and phone (390 px) width, for a human to look at. */
import type { Page } from "playwright-core";
import { SCREENSHOTS, screenshot } from "../harness";

export async function screenshotWidths(page: Page, name: string): Promise<void> {
  // Off unless E2E_SCREENSHOTS=1 (harness.ts): then the viewport is not resized either.
  if (!SCREENSHOTS) return;
  const before = page.viewportSize() ?? { width: 1440, height: 900 };
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await screenshot(page, `${name}-${width}`);
  }
  await page.setViewportSize(before);
}
