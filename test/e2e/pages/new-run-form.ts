/** The "New run" form at /runs/new. */
import type { Page } from "playwright-core";
import { runIdOf } from "./run-page";

export interface RunForm {
  question: string;
  skill?: string;
  budget?: "low" | "mid" | "high";
}

/** Fills the form (on `bank`, or the default bank), starts the run and waits for its page; returns the run id. */
export async function startRunFromForm(page: Page, appUrl: string, run: RunForm, bank?: string): Promise<string> {
  await page.goto(bank ? `${appUrl}/runs/new?bank=${encodeURIComponent(bank)}` : `${appUrl}/runs/new`);
  await page.getByRole("textbox", { name: "Question" }).fill(run.question);
  if (run.skill) await page.getByRole("combobox", { name: "Skill" }).selectOption(run.skill);
  if (run.budget) await page.getByRole("combobox", { name: "Budget" }).selectOption(run.budget);
  await page.getByTestId("start-run").click();
  await page.waitForURL(/\/runs\/run_/);
  return runIdOf(page.url());
}
