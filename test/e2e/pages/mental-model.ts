import type { Page } from "playwright-core";
import { waitForHydrated } from "./hydrated";

/** Creates a mental model in `bank` through the editor and waits for its page (v1). */
export async function createMentalModel(
  page: Page,
  appUrl: string,
  bank: string,
  model: { name: string; sourceQuery: string; content: string },
): Promise<void> {
  await page.goto(`${appUrl}/mental-models/new?bank=${encodeURIComponent(bank)}`);
  await waitForHydrated(page, "model-name");
  await page.getByTestId("model-name").fill(model.name);
  await page.getByTestId("model-source-query").fill(model.sourceQuery);
  await page.getByTestId("model-content").fill(model.content);
  await page.getByTestId("save-model").click();
  await page.locator('[data-testid="model-version"]', { hasText: "v1" }).waitFor();
}
