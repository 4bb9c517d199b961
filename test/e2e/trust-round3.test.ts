/**
 * Trust, round 3 (issue #27, items 10, 12 and 13) in Chromium against the built app: refresh
 * proposals are decided from the run page and the editor's list; empty states and labels say
 * what is true; the home page shows the loop, every badge leads to the glossary, and tier 3 has
 * one name. (Item 9 — re-run saves nothing behind the user's back — is curation-loop.test.ts.)
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { makeLargeRun } from "@/test/fixtures/timeline/large-run";
import { useSharedApp } from "./harness";
import { startRunViaApi } from "./pages/api";
import { waitForHydrated } from "./pages/hydrated";
import { openRun, waitForStatus } from "./pages/run-page";
import { screenshotWidths } from "./pages/shots";
import { seedFinishedRun } from "./seed-run";

/** This file's own copy of the demo bank on the shared app server (harness.ts). */
const BANK = "e2e-trust-round3";

const LAUNCH = { question: "What did we decide about the launch date?", skill: "recap", budget: "low" } as const;

async function modelVersion(appUrl: string, id: string): Promise<number> {
  const res = await fetch(`${appUrl}/api/v1/banks/${BANK}/mental-models/${id}`);
  return ((await res.json()) as { mentalModel: { version: number } }).mentalModel.version;
}

/** Refresh now in the editor, waiting for the proposal; returns the refresh run's id. */
async function proposeRefresh(page: Page, appUrl: string, id: string): Promise<string> {
  await page.goto(`${appUrl}/mental-models/${id}?bank=${BANK}`);
  await waitForHydrated(page, "refresh-now");
  await page.getByTestId("refresh-now").click();
  await page.getByTestId("refresh-proposal").waitFor({ timeout: 60_000 });
  const href = await page.getByTestId("refresh-run-link").getAttribute("href");
  const runId = /\/runs\/(run_[\w-]+)/.exec(href ?? "")?.[1];
  if (!runId) throw new Error(`no refresh run link: ${href}`);
  return runId;
}

describe("trust, round 3", () => {
  const ctx = useSharedApp(BANK);

  describe("refresh proposals (item 10)", () => {
    it("a proposal left in the editor is accepted from its run page, which says it is a refresh", async () => {
      const { page } = ctx.browser;
      const before = await modelVersion(ctx.app.url, "mm-customer-pilots");
      const runId = await proposeRefresh(page, ctx.app.url, "mm-customer-pilots");
      // Leave the editor: the proposal is no longer on screen there.
      await page.goto(`${ctx.app.url}/runs/${runId}`);
      const notice = page.getByTestId("refresh-run-notice");
      await notice.waitFor();
      expect(await notice.getAttribute("data-outcome")).toBe("open");
      expect(await notice.textContent()).toContain("Refresh of mental model Customer pilots");
      await page.getByTestId("refresh-run-diff").waitFor();
      await screenshotWidths(page, "round3-refresh-run-open");
      await waitForHydrated(page, "proposal-accept");
      await page.getByTestId("proposal-accept").click();
      await page.locator('[data-testid="refresh-run-notice"][data-outcome="accepted"]').waitFor();
      expect(await page.getByTestId("refresh-run-outcome").textContent()).toBe(`accepted as v${before + 1}`);
      expect(await page.getByTestId("proposal-accept").count()).toBe(0);
      expect(await modelVersion(ctx.app.url, "mm-customer-pilots")).toBe(before + 1);
    });

    it("the editor's Refresh runs list offers Accept only on the open proposal", async () => {
      const { page } = ctx.browser;
      const first = await proposeRefresh(page, ctx.app.url, "mm-hiring");
      await page.getByTestId("discard-refresh").click();
      await page.getByTestId("refresh-proposal").waitFor({ state: "detached" });
      const open = await proposeRefresh(page, ctx.app.url, "mm-hiring");
      const before = await modelVersion(ctx.app.url, "mm-hiring");
      // A reload drops the proposal from the editor; the list still has it, with Accept.
      await page.reload();
      const row = (id: string) =>
        page.locator(`[data-testid="refresh-runs"] [data-testid="run-ref"][data-run-id="${id}"]`);
      await row(open).getByTestId("proposal-accept").waitFor();
      expect(await row(first).getByTestId("proposal-accept").count()).toBe(0);
      expect(await row(first).getByTestId("run-ref-outcome").textContent()).toBe("discarded");
      await waitForHydrated(page, "proposal-accept");
      await row(open).getByTestId("proposal-accept").click();
      await row(open).locator('[data-outcome="accepted"]').waitFor();
      expect(await page.locator('[data-testid="refresh-runs"] [data-testid="proposal-accept"]').count()).toBe(0);
      expect(await modelVersion(ctx.app.url, "mm-hiring")).toBe(before + 1);
    });
  });

  describe("empty states and labels (item 12)", () => {
    let runId = "";
    const launchRun = async () => {
      runId ||= await startRunViaApi(ctx.app.url, { ...LAUNCH, wait: true }, BANK);
      return runId;
    };

    it("a filter that matches no row says so, not that the run made no call", async () => {
      const { page } = ctx.browser;
      await openRun(page, ctx.app.url, await launchRun());
      await page.getByTestId("timeline-search").fill("zzz-nothing-matches-this");
      const empty = page.getByTestId("timeline-empty");
      await empty.waitFor();
      expect(await empty.textContent()).toMatch(/^No row matches this filter \(\d+ rows hidden\)/);
    });

    it("?step= outside the run is said, and j/k move the step in the URL", async () => {
      const { page } = ctx.browser;
      const id = await launchRun();
      await page.goto(`${ctx.app.url}/runs/${id}?step=99999`);
      await page.locator("[data-testid=timeline][data-ready]").waitFor();
      const notice = page.getByTestId("step-not-found");
      await notice.waitFor();
      expect(await notice.textContent()).toContain("step 99999 is not in this run");

      await openRun(page, ctx.app.url, id);
      expect(new URL(page.url()).searchParams.get("step")).toBeNull();
      await page.locator('[role="treegrid"]').focus();
      // Section and iteration headers sit between rows: walk until a row is focused, then on to the next.
      const stepNow = () => new URL(page.url()).searchParams.get("step");
      for (let i = 0; i < 8 && stepNow() === null; i++) await page.keyboard.press("j");
      const first = stepNow();
      expect(first).toMatch(/^\d+$/);
      for (let i = 0; i < 8 && stepNow() === first; i++) await page.keyboard.press("j");
      expect(Number(stepNow())).toBeGreaterThan(Number(first));
    });

    it("memory tab switches load each tier (no 400 for an empty search) and nothing stays dimmed", async () => {
      const { page } = ctx.browser;
      const failed: string[] = [];
      const onResponse = (r: { url: () => string; status: () => number }) => {
        if (r.url().includes("/memory?") && r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
      };
      page.on("response", onResponse);
      try {
        await page.goto(`${ctx.app.url}/memory?bank=${BANK}`);
        await waitForHydrated(page, "tier-tab-observations");
        await page.getByTestId("tier-tab-observations").click();
        await page.getByTestId("observation").first().waitFor();
        await page.getByTestId("tier-tab-raw_facts").click();
        await page.getByTestId("fact").first().waitFor();
        await page.getByTestId("tier-tab-mental_models").click();
        await page.getByTestId("mental-model").first().waitFor();
        await page.waitForLoadState("networkidle");
      } finally {
        page.off("response", onResponse);
      }
      expect(failed).toEqual([]);
      expect(await page.locator('main [role="alert"]').count()).toBe(0);
      expect(await page.locator(".opacity-70").count()).toBe(0);
    });

    it("an observation's “from N raw facts” opens exactly those facts", async () => {
      const { page } = ctx.browser;
      await page.goto(`${ctx.app.url}/memory?bank=${BANK}&tier=observations`);
      const link = page.getByTestId("observation-sources").first();
      const n = Number(/from (\d+) raw facts?/.exec((await link.textContent()) ?? "")?.[1]);
      expect(n).toBeGreaterThan(0);
      await link.click();
      await page.waitForURL(/tier=raw_facts/);
      await page.getByTestId("memory-focus").waitFor();
      await expect
        .poll(() => page.locator('[role="tabpanel"] li[data-memory-id]').count(), { timeout: 10_000 })
        .toBe(n);
      await screenshotWidths(page, "round3-observation-facts");
    });

    it("a 3,400-character question is cut in the heading and the tab title; a long word wraps in the answer", async () => {
      const { page } = ctx.browser;
      const question = `What about ${"the launch date and its dependencies ".repeat(100)}`.slice(0, 3400);
      const id = await startRunViaApi(ctx.app.url, { question, budget: "low", wait: true }, BANK);
      await openRun(page, ctx.app.url, id);
      expect((await page.title()).length).toBeLessThan(120);
      const heading = (await page.getByTestId("run-question-cut").textContent()) ?? "";
      expect(heading.length).toBeLessThanOrEqual(281);
      expect(await page.getByTestId("run-question-full").textContent()).toBe(question);

      const word = `Supercalifragilistic${"x".repeat(400)}`;
      const events = makeLargeRun(12, "run_long_word");
      const last = events.at(-1);
      if (last?.type !== "run.finished") throw new Error("no run.finished");
      last.payload.answer = `The one word: ${word}.`;
      await seedFinishedRun(ctx.app, "run_long_word", "A run whose answer holds a very long word", events);
      await openRun(page, ctx.app.url, "run_long_word");
      const overflow = await page
        .getByTestId("answer")
        .evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      expect(overflow.scroll).toBeLessThanOrEqual(overflow.client);
      await page.setViewportSize({ width: 390, height: 900 });
      const narrow = await page.getByTestId("answer").evaluate((el) => el.scrollWidth <= el.clientWidth);
      await page.setViewportSize({ width: 1440, height: 900 });
      expect(narrow).toBe(true);
    });

    it("a run of over a thousand iterations takes its fork point as a number, not a list of them all", async () => {
      const { page } = ctx.browser;
      await seedFinishedRun(
        ctx.app,
        "run_many_iterations",
        "A very long run",
        makeLargeRun(5000, "run_many_iterations"),
      );
      await openRun(page, ctx.app.url, "run_many_iterations");
      const picker = page.getByTestId("fork-at");
      expect(await picker.evaluate((el) => el.tagName)).toBe("INPUT");
      expect(Number(await picker.getAttribute("max"))).toBeGreaterThan(1000);
      expect(await page.locator("option").count()).toBeLessThan(50);
    });

    it("a deleted skill has a page that says so; a new skill's id is a slug of its name", async () => {
      const { page } = ctx.browser;
      await page.goto(`${ctx.app.url}/skills?bank=${BANK}`);
      await waitForHydrated(page, "new-skill-name");
      await page.getByTestId("new-skill-name").fill("Launch Risks");
      await page.getByTestId("new-skill-mission").fill("List what could still delay the launch.");
      await page
        .getByTestId("new-skill-form")
        .getByRole("button", { name: /create/i })
        .click();
      await page.waitForURL(/\/skills\/launch-risks\?/);
      const res = await fetch(`${ctx.app.url}/api/v1/banks/${BANK}/skills/launch-risks`, { method: "DELETE" });
      expect(res.status).toBe(204);
      await page.goto(`${ctx.app.url}/skills/launch-risks?bank=${BANK}`);
      const deleted = page.getByTestId("skill-deleted");
      await deleted.waitFor();
      expect(await deleted.textContent()).toContain("Skill Launch Risks launch-risks was deleted");
      expect(await page.getByTestId("not-found").count()).toBe(0);
      await screenshotWidths(page, "round3-skill-deleted");
    });

    it("a second tab is not offered the first tab's draft while the first is open, and cannot discard it", async () => {
      const a = await ctx.browser.context.newPage();
      let b: Page | null = null;
      a.on("dialog", (d) => void d.accept());
      try {
        await a.goto(`${ctx.app.url}/mental-models/mm-incident-review?bank=${BANK}`);
        await waitForHydrated(a, "model-content");
        await a.getByTestId("model-content").fill("Tab A's edit in progress.");
        b = await ctx.browser.context.newPage();
        await b.goto(a.url());
        await waitForHydrated(b, "model-content");
        await b.waitForTimeout(500);
        expect(await b.getByTestId("draft-offer").count()).toBe(0);
        // Tab A still has its edit, and after a reload it is offered back to A.
        await a.reload();
        await a.getByTestId("draft-offer").waitFor();
        await a.getByTestId("restore-draft").click();
        expect(await a.getByTestId("model-content").inputValue()).toBe("Tab A's edit in progress.");
        // Once A is closed, its draft is B's to restore.
        await a.close();
        await b.reload();
        await b.getByTestId("draft-offer").waitFor();
      } finally {
        if (!a.isClosed()) await a.close();
        await b?.close();
      }
    });
  });

  describe("the first minute (item 13)", () => {
    it("the home page shows the loop on one screen, each step linking to where it is done", async () => {
      const { page } = ctx.browser;
      await page.goto(ctx.app.url);
      await page.getByTestId("home-loop").waitFor();
      const steps = await page
        .getByTestId("loop-step")
        .evaluateAll((els) => els.map((e) => e.getAttribute("data-step")));
      expect(steps).toEqual(["Ask", "Inspect", "Fix memory", "Re-run", "Compare", "Gate with a suite"]);
      for (const step of await page.getByTestId("loop-step").all()) {
        expect(await step.getByRole("link").count()).toBeGreaterThan(0);
      }
      // All six fit in one 1440×900 screen.
      const bottom = await page.getByTestId("home-loop").evaluate((el) => el.getBoundingClientRect().bottom);
      expect(bottom).toBeLessThanOrEqual(900);
      await screenshotWidths(page, "round3-home");
      await page.getByTestId("home-glossary").click();
      await page.getByTestId("glossary").waitFor();
      await screenshotWidths(page, "round3-glossary");
    });

    it("every run badge, the status and the forced badge link to their glossary entry", async () => {
      const { page } = ctx.browser;
      // The pricing model is fresh: the run short-circuits (a badge) after a forced first iteration.
      const id = await startRunViaApi(
        ctx.app.url,
        {
          question: "What is our pricing per seat?",
          skill: "recap",
          budget: "low",
          wait: true,
        },
        BANK,
      );
      await openRun(page, ctx.app.url, id);
      await waitForStatus(page, "done");
      const terms = await page
        .locator('[data-testid="run-badge"] a[data-testid="glossary-badge"]')
        .evaluateAll((els) => els.map((e) => e.getAttribute("data-term")));
      expect(terms.length).toBeGreaterThan(0);
      const forced = page
        .locator('[data-testid="timeline-iteration"][data-mode="forced"] a[data-term="forced"]')
        .first();
      expect(await forced.getAttribute("href")).toBe("/glossary#forced");
      await page.goto(`${ctx.app.url}/glossary`);
      const entries = await page.getByTestId("glossary-entry").evaluateAll((els) => els.map((e) => e.id));
      for (const t of [...terms, "forced", "short-circuited", "anchored", "release-miss", "nudged", "raw-facts"]) {
        expect(entries).toContain(t);
      }
      await page.goto(`${ctx.app.url}/runs`);
      const flag = page.getByTestId("run-flag").first();
      await flag.click();
      await page.waitForURL(/\/glossary#/);
      const anchor = new URL(page.url()).hash.slice(1);
      await page.locator(`[data-testid="glossary-entry"][id="${anchor}"]`).waitFor();
    });

    it("tier 3 reads “raw facts” wherever a person reads it, never “episodic”", async () => {
      const { page } = ctx.browser;
      for (const path of [`/skills/skill-recap?bank=${BANK}`, `/memory?bank=${BANK}&tier=facts`, "/", "/glossary"]) {
        await page.goto(`${ctx.app.url}${path}`);
        await page.waitForLoadState("load");
        const text = (await page.locator("main").textContent()) ?? "";
        if (path === "/glossary") expect(text).toContain("raw facts");
        else expect(text.toLowerCase()).not.toContain("episodic");
      }
      await page.goto(`${ctx.app.url}/skills/skill-recap?bank=${BANK}`);
      await page.getByRole("checkbox", { name: "raw facts" }).waitFor();
      await page.getByRole("checkbox", { name: "observations" }).waitFor();
    });
  });
});
