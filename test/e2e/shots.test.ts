/**
 * Screenshots of the inspector's pages at 1440 and 390 px, light and dark, for a person to look
 * at. Runs only when SHOTS_DIR names where to put them (the suite does not need them).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "vitest";
import { useSharedApp } from "./harness";
import { startRunViaApi } from "./pages/api";
import { waitForHydrated } from "./pages/hydrated";
import { openRun } from "./pages/run-page";

/** This file's own copy of the demo bank on the shared app server (harness.ts). */
const BANK = "e2e-shots";

const dir = process.env.SHOTS_DIR;

describe.skipIf(!dir)("screenshots", () => {
  const ctx = useSharedApp(BANK);

  it("takes every changed page at 1440 and 390 px, light and dark", async () => {
    const out = dir as string;
    mkdirSync(out, { recursive: true });
    const { page } = ctx.browser;
    const url = ctx.app.url;
    const q = { question: "What did we decide about the launch date?", skill: "recap", budget: "low" } as const;
    const a = await startRunViaApi(url, { ...q, wait: true }, BANK);
    const b = await startRunViaApi(url, { ...q, budget: "mid", wait: true }, BANK);
    const long = await startRunViaApi(
      url,
      {
        question: `What about ${"the launch date and what it depends on ".repeat(90)}`.slice(0, 3400),
        budget: "low",
        wait: true,
      },
      BANK,
    );
    const made = await fetch(`${url}/api/v1/banks/${BANK}/skills`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Short lived", mission: "m", retrieval: { types: ["observation"] } }),
    });
    const gone = ((await made.json()) as { id: string }).id;
    await fetch(`${url}/api/v1/banks/${BANK}/skills/${gone}`, { method: "DELETE" });
    let refreshRun = "";
    const proposeRefresh = async () => {
      await page.goto(`${url}/mental-models/mm-pricing?bank=${BANK}`);
      await waitForHydrated(page, "refresh-now");
      await page.getByTestId("refresh-now").click();
      await page.getByTestId("refresh-proposal").waitFor({ timeout: 60_000 });
      return ((await page.getByTestId("refresh-run-link").getAttribute("href")) ?? "").replace("/runs/", "");
    };
    const pages: { name: string; open: () => Promise<void> }[] = [
      { name: "runs", open: async () => void (await page.goto(`${url}/runs`)) },
      { name: "run", open: () => openRun(page, url, a) },
      {
        name: "run-detail",
        open: async () => {
          await openRun(page, url, a);
          await page.locator('[data-testid=timeline-row][data-kind="tier"]').first().click();
          await page.getByTestId("row-detail").waitFor();
        },
      },
      {
        name: "run-memory-card",
        open: async () => {
          await openRun(page, url, a);
          await page.getByTestId("memory-chip").first().hover();
          await page.getByTestId("memory-card").waitFor();
        },
      },
      {
        name: "run-filtered",
        open: async () => {
          await openRun(page, url, a);
          await page.getByTestId("timeline-search").fill("launch");
          await page.getByTestId("timeline-filter-count").waitFor();
        },
      },
      { name: "compare", open: async () => void (await page.goto(`${url}/runs/compare?a=${a}&b=${b}`)) },
      { name: "compare-picker", open: async () => void (await page.goto(`${url}/runs/compare`)) },
      { name: "memory-models", open: async () => void (await page.goto(`${url}/memory?bank=${BANK}`)) },
      { name: "memory-facts", open: async () => void (await page.goto(`${url}/memory?bank=${BANK}&tier=facts`)) },
      {
        name: "memory-import",
        open: async () => {
          await page.goto(`${url}/memory/import`);
          await waitForHydrated(page, "bundle-file");
          await page.getByTestId("bundle-file").setInputFiles({
            name: "bad.json",
            mimeType: "application/json",
            buffer: Buffer.from(
              JSON.stringify({ version: 1, bank: { id: "x", name: "X", permittedTeams: [] }, facts: [{}] }),
            ),
          });
          await page.getByTestId("bundle-import").click();
          await page.getByTestId("bundle-import-error").waitFor();
        },
      },
      { name: "home", open: async () => void (await page.goto(`${url}/`)) },
      { name: "glossary", open: async () => void (await page.goto(`${url}/glossary#short-circuited`)) },
      {
        name: "memory-observation-facts",
        open: async () => {
          await page.goto(`${url}/memory?bank=${BANK}&tier=observations`);
          await page.getByTestId("observation-sources").first().click();
          await page.getByTestId("memory-focus").waitFor();
        },
      },
      {
        name: "refresh-run",
        open: async () => {
          refreshRun ||= await proposeRefresh();
          await page.goto(`${url}/runs/${refreshRun}`);
          await page.getByTestId("refresh-run-notice").waitFor();
        },
      },
      {
        name: "rerun-save-changes",
        open: async () => {
          await openRun(page, url, a);
          await page.getByTestId("open-rerun").click();
          const plan = page.locator('[data-testid="rerun-model"][data-model-id="mm-launch-plan"]');
          await plan.getByTestId("rerun-model-edit").click();
          await plan.getByTestId("rerun-model-content").fill("Atlas GA: Tuesday, October 20");
          await plan.getByTestId("rerun-model-override").selectOption("fresh");
          await page.getByTestId("rerun-save-changes").click();
          await page.getByTestId("save-changes-dialog").waitFor();
        },
      },
      { name: "run-long-question", open: () => openRun(page, url, long) },
      { name: "skill-editor", open: async () => void (await page.goto(`${url}/skills/skill-recap?bank=${BANK}`)) },
      { name: "skill-deleted", open: async () => void (await page.goto(`${url}/skills/${gone}?bank=${BANK}`)) },
    ];
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [1440, 390]) {
        await page.setViewportSize({ width, height: 900 });
        for (const p of pages) {
          await p.open();
          await page.waitForLoadState("load");
          await page.screenshot({ path: join(out, `${p.name}-${width}-${scheme}.png`), fullPage: false });
        }
      }
    }
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1440, height: 900 });
  });
});
