/**
 * Where the UI could mislead, it says what happened: a run under an experiment's mental-model
 * draft is a draft everywhere (and its memory card shows the text it read), refresh runs say what
 * became of each proposal, a save conflict refreshes Versions without losing the edit, one Back
 * leaves after a save, over-limit text disables Submit with the reason, no page overflows at 390 px,
 * and a row's memory chips are one Tab stop.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useSharedApp } from "./harness";
import { startRunViaApi } from "./pages/api";
import { waitForHydrated } from "./pages/hydrated";
import { openRun, waitForStatus } from "./pages/run-page";
import { screenshotWidths } from "./pages/shots";

/** This file's own copy of the demo bank on the shared app server (harness.ts). */
const BANK = "e2e-trust-ui";

const DRAFT = "DRAFT-ONLY pricing: the Team plan costs $59 per editor seat per month.";

async function api<T>(url: string, method = "GET", body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** How far the page scrolls sideways (0: it fits). */
const overflowX = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe("the UI says what actually happened", () => {
  const ctx = useSharedApp(BANK);
  let draftRunId = "";

  it("a run under an experiment's mental-model draft is badged a draft, and its memory card shows the draft text", async () => {
    const { page } = ctx.browser;
    const url = ctx.app.url;
    const saved = await api<{ mentalModel: { version: number; content: string; name: string } }>(
      `${url}/api/v1/banks/${BANK}/mental-models/mm-pricing`,
    );
    await api(`${url}/api/v1/banks/${BANK}/suites`, "POST", {
      name: "pricing-draft",
      description: "",
      questions: [{ question: "How much does the Team plan cost?", skill: "recap" }],
    });
    const started = await api<{ id: string }>(`${url}/api/v1/experiments`, "POST", {
      bank: BANK,
      suite: "pricing-draft",
      config: { mentalModels: [{ id: "mm-pricing", content: DRAFT, staleOverride: "fresh" }] },
    });
    let experiment = await api<{ status: string; rows: { runId: string | null }[] }>(
      `${url}/api/v1/experiments/${started.id}`,
    );
    for (let i = 0; experiment.status === "running" && i < 300; i++) {
      await new Promise((r) => setTimeout(r, 200));
      experiment = await api(`${url}/api/v1/experiments/${started.id}`);
    }
    expect(experiment.status).toBe("done");
    draftRunId = experiment.rows[0]?.runId ?? "";

    const label = `mental-model draft: ${saved.mentalModel.name} (based on v${saved.mentalModel.version})`;
    // The run page's header.
    await openRun(page, url, draftRunId);
    await waitForStatus(page, "done");
    await page
      .getByRole("region", { name: "Run summary" })
      .getByTestId("mental-model-draft")
      .filter({ hasText: label })
      .waitFor();
    // The memory card shows the text the run read, and says it was a draft.
    await page.locator('[data-testid="memory-chip"][data-memory-id="mm-pricing"]').first().hover();
    const card = page.getByTestId("memory-card");
    await card.waitFor();
    expect(await card.getByTestId("memory-card-text").textContent()).toContain(DRAFT);
    expect(await card.getByTestId("memory-card-draft").textContent()).toContain(
      `based on v${saved.mentalModel.version}`,
    );
    await screenshotWidths(page, "run-mental-model-draft");
    await page.mouse.move(0, 0);
    // The freshness check's version link says the run read a draft on that version.
    const versionLink = page.locator('[data-testid="model-version-link"][href*="mm-pricing"]').first();
    expect(await versionLink.textContent()).toContain(`draft on v${saved.mentalModel.version}`);

    // The runs list.
    // This bank's runs: files beside this one add runs to the shared server's list (50 a page).
    await page.goto(`${url}/runs?bank=${BANK}`);
    const row = page.locator(`tr:has(a[href="/runs/${draftRunId}"])`);
    await row.getByTestId("mental-model-draft").filter({ hasText: label }).waitFor();
    await screenshotWidths(page, "runs-list-draft");

    // Compare.
    const other = await startRunViaApi(
      url,
      {
        question: "How much does the Team plan cost?",
        skill: "recap",
        wait: true,
      },
      BANK,
    );
    await page.goto(`${url}/runs/compare?a=${draftRunId}&b=${other}`);
    await page.getByTestId("compare-run-A").getByTestId("mental-model-draft").filter({ hasText: label }).waitFor();
    expect(await page.getByTestId("compare-run-B").getByTestId("mental-model-draft").count()).toBe(0);
    await screenshotWidths(page, "compare-draft");

    // The saved model is unchanged, and its page shows the saved text.
    const after = await api<{ mentalModel: { version: number; content: string } }>(
      `${url}/api/v1/banks/${BANK}/mental-models/mm-pricing`,
    );
    expect(after.mentalModel).toMatchObject({ version: saved.mentalModel.version, content: saved.mentalModel.content });
  });

  it("no horizontal overflow at 390 px on /runs, the run page and /runs/compare", async () => {
    const { page } = ctx.browser;
    const url = ctx.app.url;
    const other = await startRunViaApi(url, { question: "When did Atlas launch?", skill: "recap", wait: true }, BANK);
    await page.setViewportSize({ width: 390, height: 900 });
    try {
      const pages = [
        { path: "/runs", ready: "run-table" },
        { path: `/runs/${draftRunId}`, ready: "timeline" },
        { path: `/runs/compare?a=${draftRunId}&b=${other}`, ready: "compare-run-B" },
        { path: "/runs/compare", ready: "compare-pick-submit" },
      ];
      for (const { path, ready } of pages) {
        await page.goto(`${url}${path}`);
        await page.getByTestId(ready).first().waitFor();
        expect({ path, overflow: await overflowX(page) }).toEqual({ path, overflow: 0 });
      }
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }
  });

  it("a row's memory chips are one Tab stop; arrow keys move between them", async () => {
    const { page } = ctx.browser;
    await openRun(page, ctx.app.url, draftRunId);
    await waitForStatus(page, "done");
    const group = page.locator('ul:has([data-testid="memory-chip"])').first();
    const chips = group.getByTestId("memory-chip");
    const n = await chips.count();
    expect(n).toBeGreaterThan(1);
    expect(await group.locator('[data-testid="memory-chip"][tabindex="0"]').count()).toBe(1);
    expect(await group.locator('[data-testid="memory-chip"][tabindex="-1"]').count()).toBe(n - 1);
    await chips.first().focus();
    await page.keyboard.press("ArrowRight");
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute("data-memory-id"));
    expect(await focused()).toBe(await chips.nth(1).getAttribute("data-memory-id"));
    await page.keyboard.press("End");
    expect(await focused()).toBe(await chips.nth(n - 1).getAttribute("data-memory-id"));
    // The chip last moved to is the group's Tab stop now.
    expect(await chips.nth(n - 1).getAttribute("tabindex")).toBe("0");
    expect(await chips.first().getAttribute("tabindex")).toBe("-1");
  });

  it("refresh runs say what became of each proposal: open, discarded, accepted as vN", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/mental-models/mm-launch-plan?bank=${BANK}`);
    await waitForHydrated(page, "mental-model-editor");
    const version = Number((await page.getByTestId("model-version").textContent())?.slice(1));
    const newest = page.getByTestId("refresh-runs").getByTestId("run-ref-outcome").first();

    await page.getByTestId("refresh-now").click();
    await page.getByTestId("refresh-proposal").waitFor({ timeout: 60_000 });
    await page.locator('[data-testid="refresh-runs"] [data-outcome="open"]').first().waitFor();
    expect(await newest.textContent()).toBe("open proposal");
    await page.getByTestId("discard-refresh").click();
    await page.getByTestId("refresh-proposal").waitFor({ state: "detached" });
    await page.locator('[data-testid="refresh-runs"] [data-outcome="discarded"]').first().waitFor();
    expect(await newest.textContent()).toBe("discarded");

    await page.getByTestId("refresh-now").click();
    await page.getByTestId("accept-refresh").click();
    await page.locator('[data-testid="model-version"]', { hasText: `v${version + 1}` }).waitFor();
    await page.locator('[data-testid="refresh-runs"] [data-outcome="accepted"]').first().waitFor();
    const outcomes = await page
      .getByTestId("refresh-runs")
      .getByTestId("run-ref-outcome")
      .evaluateAll((els) => els.map((e) => e.textContent));
    expect(outcomes.slice(0, 2)).toEqual([`accepted as v${version + 1}`, "discarded"]);
    await screenshotWidths(page, "refresh-runs");
  });

  it("after a save conflict Versions show the other tab's version and the edit stays in the form", async () => {
    const first = ctx.browser.page;
    const second = await ctx.browser.context.newPage();
    try {
      for (const page of [first, second]) {
        await page.goto(`${ctx.app.url}/mental-models/mm-hiring?bank=${BANK}`);
        await waitForHydrated(page, "mental-model-editor");
      }
      const loaded = Number((await second.getByTestId("model-version").textContent())?.slice(1));
      await first.getByTestId("model-content").fill("Saved by the other tab.");
      await first.getByTestId("save-model").click();
      await first.locator('[data-testid="model-version"]', { hasText: `v${loaded + 1}` }).waitFor();

      const mine = "My edit, made on the stale copy.";
      await second.getByTestId("model-content").fill(mine);
      await second.getByTestId("save-model").click();
      await second.getByTestId("conflict-notice").waitFor();
      // The page shows the newer version ...
      await second.locator(`[data-testid="version"][data-version="${loaded + 1}"]`).waitFor();
      await second.locator('[data-testid="model-version"]', { hasText: `v${loaded + 1}` }).waitFor();
      // ... and the form still holds the edit, with the conflict shown.
      expect(await second.getByTestId("model-content").inputValue()).toBe(mine);
      expect(await second.getByTestId("conflict-notice").count()).toBe(1);
      // Saving again would only conflict again: the button says what to do instead.
      expect(await second.getByTestId("save-model").isDisabled()).toBe(true);
      expect(await second.getByTestId("over-limit-reason").textContent()).toContain(
        `Version ${loaded + 1} was saved meanwhile`,
      );
      await screenshotWidths(second, "model-conflict");
      // Loading the newer version replaces the form and offers the edit back as a draft.
      await second.getByTestId("load-newer").click();
      await second.getByTestId("draft-offer").waitFor();
      expect(await second.getByTestId("model-content").inputValue()).toBe("Saved by the other tab.");
      await second.getByTestId("discard-draft").click();
    } finally {
      await second.close();
    }
  });

  it("one Back leaves the editor after an edit was saved, and after one was reverted", async () => {
    const { page } = ctx.browser;
    const url = ctx.app.url;
    for (const how of ["saved", "reverted"] as const) {
      await page.goto(`${url}/mental-models?bank=${BANK}`);
      await page.goto(`${url}/mental-models/mm-quality?bank=${BANK}`);
      await waitForHydrated(page, "mental-model-editor");
      if (await page.getByTestId("discard-draft").count()) await page.getByTestId("discard-draft").click();
      const content = page.getByTestId("model-content");
      const original = await content.inputValue();
      await content.fill(`${original}\n\nOne more line.`);
      if (how === "saved") {
        const version = Number((await page.getByTestId("model-version").textContent())?.slice(1));
        await page.getByTestId("save-model").click();
        await page.locator('[data-testid="model-version"]', { hasText: `v${version + 1}` }).waitFor();
      } else {
        await content.fill(original);
      }
      await page.evaluate(() => window.history.back());
      await page.waitForURL((u) => u.pathname === "/mental-models");
      expect(await page.getByTestId("unsaved-dialog").count()).toBe(0);
    }
  });

  it("over-limit text disables Submit and says why beside it", async () => {
    const { page } = ctx.browser;
    const url = ctx.app.url;
    const describedReason = async (button: string) => {
      const b = page.getByTestId(button);
      expect(await b.isDisabled()).toBe(true);
      const id = await b.getAttribute("aria-describedby");
      expect(id).toBeTruthy();
      return page.locator(`[id="${id}"]`).textContent();
    };

    await page.goto(`${url}/runs/new`);
    // Typed before hydration, text is reset by React: fill only once each form is live.
    await waitForHydrated(page, "start-run");
    const question = page.locator('textarea[name="question"]');
    await question.fill("q".repeat(4_001));
    expect(await describedReason("start-run")).toContain("the question is 1 character over the limit");
    await question.fill("q".repeat(4_000));
    expect(await page.getByTestId("start-run").isDisabled()).toBe(false);
    expect(await page.getByTestId("start-run").getAttribute("aria-describedby")).toBeNull();

    await page.goto(`${url}/mental-models/mm-pipeline?bank=${BANK}`);
    await waitForHydrated(page, "model-content");
    await page.getByTestId("model-content").fill("c".repeat(50_001));
    expect(await describedReason("save-model")).toContain("the content is 1 character over the limit");
    await screenshotWidths(page, "model-over-limit");
    await page.getByTestId("model-content").fill("c".repeat(50_000));
    expect(await page.getByTestId("save-model").isDisabled()).toBe(false);
    await page.getByTestId("model-content").fill("c".repeat(50_001));

    await page.goto(`${url}/skills/skill-recap?bank=${BANK}`);
    const mission = page.getByTestId("skill-mission");
    await waitForHydrated(page, "skill-mission");
    await mission.fill("m".repeat(4_001));
    expect(await describedReason("save-skill")).toContain("the mission is 1 character over the limit");
    expect(await describedReason("try-skill")).toContain("the mission is 1 character over the limit");
  });
});
