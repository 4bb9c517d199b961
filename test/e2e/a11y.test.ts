/**
 * Accessibility: axe-core (injected from node_modules, no network) in Chromium on every page and
 * state a user reaches — runs list, a run with its detail drawer open, a forked run with dimmed
 * replayed rows, compare, each memory tier and the tabs switched in the page, an observation's
 * facts, the import page with an error, home, glossary, a refresh run's open proposal, the re-run drawer's save dialog, a
 * deleted skill, both editors, new run, login — in the light and the
 * dark colour scheme. No critical and no serious violation may remain.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useSharedApp } from "./harness";
import { startRunViaApi } from "./pages/api";
import { waitForHydrated } from "./pages/hydrated";
import { openRun, runIdOf, waitForStatus } from "./pages/run-page";

/** This file's own copy of the demo bank on the shared app server (harness.ts). */
const BANK = "e2e-a11y";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** Runs axe on the page as it is now; returns the critical and serious violations. */
async function audit(page: Page): Promise<Violation[]> {
  // Evaluated through the devtools protocol, so the page's CSP (nonce-only scripts) does not block it.
  const injected = await page.evaluate(() => "axe" in window);
  if (!injected) await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<unknown> } }).axe;
    return axe.run(document, { resultTypes: ["violations"] });
  });
  const { violations } = result as { violations: Violation[] };
  return violations.filter((v) => v.impact === "critical" || v.impact === "serious");
}

function describeViolations(where: string, violations: Violation[]): string {
  return violations
    .map(
      (v) =>
        `${where}: ${v.impact} ${v.id} (${v.nodes.length}) ${v.help}\n${v.nodes
          .slice(0, 4)
          .map((n) => `    ${n.target.join(" ")} — ${n.failureSummary?.split("\n").slice(1, 2).join("") ?? ""}`)
          .join("\n")}`,
    )
    .join("\n");
}

const SCHEMES = ["light", "dark"] as const;

describe("accessibility (axe-core, light and dark)", () => {
  const ctx = useSharedApp(BANK);

  it("has no critical or serious violation on any page or state", async () => {
    const { page } = ctx.browser;
    const url = ctx.app.url;
    // A run that goes through all three tiers (the launch plan is stale), then a fork of it.
    const parentId = await startRunViaApi(
      url,
      {
        question: "What did we decide about the launch date?",
        skill: "recap",
        budget: "low",
        wait: true,
      },
      BANK,
    );
    await openRun(page, url, parentId);
    await page.getByTestId("fork-at").selectOption("1");
    await page.getByTestId("fork").click();
    await page.waitForURL((u) => !u.pathname.endsWith(parentId) && /\/runs\/run_/.test(u.pathname));
    const forkId = runIdOf(page.url());
    await waitForStatus(page, "done");

    let refreshRunId = "";
    let deletedSkill = "";
    /** Refresh now on the pricing model: the proposal's run, left open. */
    const proposeRefresh = async () => {
      await page.goto(`${url}/mental-models/mm-pricing?bank=${BANK}`);
      await waitForHydrated(page, "refresh-now");
      await page.getByTestId("refresh-now").click();
      await page.getByTestId("refresh-proposal").waitFor({ timeout: 60_000 });
      const href = (await page.getByTestId("refresh-run-link").getAttribute("href")) ?? "";
      return href.replace("/runs/", "");
    };
    const states: { name: string; open: () => Promise<void> }[] = [
      {
        name: "runs list",
        // This bank's runs: the whole server's list holds whatever the file beside this one is
        // running at that moment (live rows changing under the audit), never the same page twice.
        open: () => page.goto(`${url}/runs?bank=${BANK}`).then(() => page.getByTestId("run-table").waitFor()),
      },
      {
        name: "run page with detail drawer",
        open: async () => {
          await openRun(page, url, parentId);
          await page.getByTestId("timeline-row").first().click();
          await page.getByTestId("row-detail").waitFor();
        },
      },
      {
        name: "run page with a memory card open and the timeline filtered",
        open: async () => {
          await openRun(page, url, parentId);
          await page.getByTestId("timeline-filter-kind").selectOption("tier");
          await page.getByTestId("memory-chip").first().hover();
          await page.getByTestId("memory-card").waitFor();
        },
      },
      {
        name: "forked run",
        open: async () => {
          await openRun(page, url, forkId);
          await page.getByTestId("timeline-row").first().waitFor();
        },
      },
      {
        name: "run messages tab",
        open: async () => {
          await openRun(page, url, parentId);
          await page.getByTestId("run-tab-messages").click();
        },
      },
      {
        name: "compare",
        open: () =>
          page
            .goto(`${url}/runs/compare?a=${parentId}&b=${forkId}`)
            .then(() => page.getByTestId("compare-view").waitFor()),
      },
      { name: "compare picker", open: () => page.goto(`${url}/runs/compare`).then(() => undefined) },
      ...(["mental_models", "observations", "facts"] as const).map((tier) => ({
        name: `memory ${tier}`,
        open: async () => {
          await page.goto(`${url}/memory?bank=${BANK}&tier=${tier}`);
          await page.getByRole("tabpanel").waitFor();
        },
      })),
      {
        name: "memory after switching tabs in the page",
        open: async () => {
          await page.goto(`${url}/memory?bank=${BANK}`);
          await waitForHydrated(page, "tier-tab-observations");
          await page.getByTestId("tier-tab-observations").click();
          await page.getByTestId("observation").first().waitFor();
          await page.getByTestId("tier-tab-raw_facts").click();
          await page.getByTestId("fact").first().waitFor();
          await page.getByTestId("tier-tab-mental_models").click();
          await page.getByTestId("mental-model").first().waitFor();
          await page.waitForLoadState("networkidle");
        },
      },
      {
        name: "an observation's raw facts",
        open: async () => {
          await page.goto(`${url}/memory?bank=${BANK}&tier=observations`);
          await page.getByTestId("observation-sources").first().click();
          await page.getByTestId("memory-focus").waitFor();
        },
      },
      {
        name: "import a bank, with a bundle's error shown",
        open: async () => {
          await page.goto(`${url}/memory/import`);
          await waitForHydrated(page, "bundle-file");
          await page.getByTestId("bundle-file").setInputFiles({
            name: "bad.json",
            mimeType: "application/json",
            buffer: Buffer.from("{ not json"),
          });
          await page.getByTestId("bundle-import").click();
          await page.getByTestId("bundle-import-error").waitFor();
        },
      },
      { name: "home", open: () => page.goto(`${url}/`).then(() => page.getByTestId("home-loop").waitFor()) },
      { name: "glossary", open: () => page.goto(`${url}/glossary#forced`).then(() => undefined) },
      {
        name: "a refresh run's page with its open proposal",
        open: async () => {
          refreshRunId ||= await proposeRefresh();
          await page.goto(`${url}/runs/${refreshRunId}`);
          await page.getByTestId("refresh-run-notice").waitFor();
        },
      },
      {
        name: "re-run drawer: save these changes",
        open: async () => {
          await openRun(page, url, parentId);
          await page.getByTestId("open-rerun").click();
          const plan = page.locator('[data-testid="rerun-model"][data-model-id="mm-launch-plan"]');
          await plan.getByTestId("rerun-model-edit").click();
          await plan.getByTestId("rerun-model-content").fill("Atlas GA: Tuesday, October 20");
          await plan.getByTestId("rerun-model-override").selectOption("fresh");
          await page.getByTestId("rerun-save-changes").click();
          await page.getByTestId("save-changes-dialog").waitFor();
        },
      },
      {
        name: "a deleted skill",
        open: async () => {
          if (!deletedSkill) {
            const made = await fetch(`${url}/api/v1/banks/${BANK}/skills`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ name: "Short lived", mission: "m", retrieval: { types: ["observation"] } }),
            });
            deletedSkill = ((await made.json()) as { id: string }).id;
            await fetch(`${url}/api/v1/banks/${BANK}/skills/${deletedSkill}`, { method: "DELETE" });
          }
          await page.goto(`${url}/skills/${deletedSkill}?bank=${BANK}`);
          await page.getByTestId("skill-deleted").waitFor();
        },
      },
      {
        name: "mental-model editor",
        open: () => page.goto(`${url}/mental-models/mm-launch-plan?bank=${BANK}`).then(() => undefined),
      },
      { name: "mental-model list", open: () => page.goto(`${url}/mental-models`).then(() => undefined) },
      { name: "skill editor", open: () => page.goto(`${url}/skills/skill-recap?bank=${BANK}`).then(() => undefined) },
      { name: "skill list", open: () => page.goto(`${url}/skills`).then(() => undefined) },
      { name: "new run", open: () => page.goto(`${url}/runs/new`).then(() => undefined) },
      { name: "login", open: () => page.goto(`${url}/login`).then(() => undefined) },
    ];

    const report: string[] = [];
    let total = 0;
    // Each state is reached once and audited in both schemes: the dark theme is CSS alone (a
    // prefers-color-scheme block of colour tokens, app/globals.css; no script reads the scheme), so
    // switching the emulated scheme on the open page is what loading it in the dark scheme shows.
    for (const state of states) {
      await page.emulateMedia({ colorScheme: SCHEMES[0] });
      await state.open();
      await page.waitForLoadState("load");
      const surfaces: string[] = [];
      for (const colorScheme of SCHEMES) {
        await page.emulateMedia({ colorScheme });
        // The page now draws with this scheme's colour tokens (the card surface differs per scheme),
        // so the audit below reads this scheme's contrast, not the one the page was loaded in.
        surfaces.push(
          await page.evaluate(() =>
            getComputedStyle(document.documentElement).getPropertyValue("--color-white").trim(),
          ),
        );
        const found = await audit(page);
        total += found.reduce((n, v) => n + v.nodes.length, 0);
        if (found.length > 0) report.push(describeViolations(`${colorScheme} · ${state.name}`, found));
      }
      expect(new Set(surfaces).size, `${state.name}: one surface colour for ${SCHEMES.join(" and ")}`).toBe(
        SCHEMES.length,
      );
    }
    await page.emulateMedia({ colorScheme: "light" });
    console.log(`a11y: ${total} critical/serious nodes\n${report.join("\n")}`);
    expect(report.join("\n")).toBe("");
  });
});
