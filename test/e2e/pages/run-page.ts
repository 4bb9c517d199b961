/** The run page (/runs/<id>): open it, wait for a status, read what the timeline shows. */
import type { Page } from "playwright-core";

export const runIdOf = (url: string): string => {
  const id = /\/runs\/(run_[\w-]+)/.exec(url)?.[1];
  if (!id) throw new Error(`not a run page: ${url}`);
  return id;
};

export async function openRun(page: Page, appUrl: string, runId: string): Promise<void> {
  await page.goto(`${appUrl}/runs/${runId}`);
  await page.getByTestId("run-view").waitFor();
  // The page's HTML already shows the first rows; clicks and keys work once the list is ready.
  await page.locator("[data-testid=timeline][data-ready]").waitFor();
}

export async function waitForStatus(page: Page, status: string, timeout = 30_000): Promise<void> {
  await page.locator(`[data-testid=run-status][data-status="${status}"]`).first().waitFor({ timeout });
}

/** The timeline's "N iterations · M events" line. */
export async function waitForEventCount(page: Page, events: number, timeout = 10_000): Promise<void> {
  await page
    .getByTestId("timeline-counts")
    .filter({ hasText: ` ${events} events` })
    .waitFor({ timeout });
}

/** Ids of the timeline rows in the DOM, in order (short runs: every row is rendered). */
export function timelineRowIds(page: Page): Promise<string[]> {
  return page.getByTestId("timeline-row").evaluateAll((els) => els.map((e) => e.getAttribute("data-row-id") ?? ""));
}
