/**
 * Trace navigation as a user does it, in Chromium against the built app: a click opens a row's
 * detail; a memory chip's card shows the memory and links to it in /memory, which opens that
 * memory; JSON folds and copy writes the clipboard; search narrows the timeline and `?step=`
 * opens the run at a row after a reload; where the time went; compare from the runs list and
 * from the picker; the favicon loads without a console error; a 5,000-event run's first render
 * and filter latency (printed, not asserted).
 */
import { describe, expect, it } from "vitest";
import { makeLargeRun } from "@/test/fixtures/timeline/large-run";
import { useSharedApp } from "./harness";
import { startRunViaApi } from "./pages/api";
import { waitForHydratedPage } from "./pages/hydrated";
import { openRun, waitForEventCount } from "./pages/run-page";
import { seedFinishedRun } from "./seed-run";

/** This file's own copy of the demo bank on the shared app server (harness.ts). */
const BANK = "e2e-trace-navigation";

/** The launch plan is stale: the run searches all three tiers, so every kind of memory chip shows. */
const THREE_TIERS = { question: "What did we decide about the launch date?", skill: "recap", budget: "low" } as const;

describe("trace navigation", () => {
  const ctx = useSharedApp(BANK);
  let runId = "";
  const run = async () => {
    runId ||= await startRunViaApi(ctx.app.url, { ...THREE_TIERS, wait: true }, BANK);
    return runId;
  };

  it("loads the runs list with a favicon and no console error", async () => {
    const { page } = ctx.browser;
    const errors: string[] = [];
    const onConsole = (m: { type: () => string; text: () => string }) => {
      if (m.type() === "error") errors.push(m.text());
    };
    page.on("console", onConsole);
    try {
      await page.goto(`${ctx.app.url}/runs`);
      await page.getByTestId("live-run-table").waitFor();
      await page.waitForLoadState("load");
      const icon = await fetch(`${ctx.app.url}/favicon.ico`);
      expect(icon.status).toBe(200);
      expect(icon.headers.get("content-type")).toMatch(/icon/);
      const hrefs = await page.locator('link[rel="icon"]').evaluateAll((els) => els.map((e) => e.getAttribute("href")));
      expect(hrefs).toEqual(expect.arrayContaining(["/favicon.svg"]));
      expect(errors).toEqual([]);
    } finally {
      page.off("console", onConsole);
    }
  });

  it("a click on a row opens its detail, with folding JSON and a copy button that writes the clipboard", async () => {
    const { page, context } = ctx.browser;
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: ctx.app.url });
    await openRun(page, ctx.app.url, await run());
    const row = page.locator('[data-testid=timeline-row][data-kind="tier"]').first();
    const rowId = await row.getAttribute("data-row-id");
    await row.click();
    const detail = page.getByTestId("row-detail");
    await detail.waitFor();
    expect(await detail.textContent()).toContain(rowId ?? "?");

    // The tool result's content is shown parsed, not as one escaped string.
    const result = detail.locator('[data-testid=row-detail-event][data-type="tool.result"]');
    const content = result.getByTestId("json-view").last();
    expect(await content.textContent()).not.toContain('\\"');
    const node = content.getByTestId("json-node").first();
    expect(await node.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(true);
    await node.locator("summary").first().click();
    expect(await node.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
    await node.locator("summary").first().click();
    expect(await node.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(true);

    const copy = result.getByTestId("copy-json");
    await copy.click();
    await result.locator('[data-testid=copy-json][data-state="copied"]').waitFor();
    expect(await copy.textContent()).toMatch(/copied/);
    const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as { callId?: string };
    expect(typeof copied.callId).toBe("string");

    await page.keyboard.press("Escape");
    await detail.waitFor({ state: "detached" });
    await page.getByTestId("copy-answer").click();
    const answer = await page.evaluate(() => navigator.clipboard.readText());
    // The answer's markdown, not the JSON copied before.
    expect(answer.length).toBeGreaterThan(10);
    expect(answer.startsWith("{")).toBe(false);
  });

  it("a memory chip's card shows the memory and its link opens that memory in /memory", async () => {
    const { page } = ctx.browser;
    await openRun(page, ctx.app.url, await run());
    const chip = page.getByTestId("memory-chip").last();
    const id = await chip.getAttribute("data-memory-id");
    await chip.hover();
    const card = page.locator(`[data-testid=memory-card][data-memory-id="${id}"]`);
    await card.waitFor();
    expect((await card.getByTestId("memory-card-text").textContent())?.length).toBeGreaterThan(10);
    expect(await card.textContent()).toMatch(/#\d+ in the result/);
    expect(await card.getByTestId("memory-card-cited").textContent()).toMatch(/cited in the answer|not cited/);
    await card.getByTestId("memory-card-link").click();
    await page.waitForURL(/\/memory\?/);
    expect(new URL(page.url()).searchParams.get("id")).toBe(id);
    await page.getByTestId("memory-focus").waitFor();
    const shown = page.locator("[data-memory-id]");
    expect(await shown.count()).toBe(1);
    expect(await shown.getAttribute("data-memory-id")).toBe(id);
    // "Show all" goes back to the whole tier.
    await page.getByRole("button", { name: "Show all" }).click();
    await page.waitForFunction(() => document.querySelectorAll("[data-memory-id]").length > 1);
    await page.waitForURL((u) => !u.searchParams.has("id"));
  });

  it("search narrows the timeline, and ?step= opens the run at the selected row after a reload", async () => {
    const { page } = ctx.browser;
    await openRun(page, ctx.app.url, await run());
    const rows = page.getByTestId("timeline-row");
    // Count the rows once the whole log is shown (the run is finished; its rows arrive with the log).
    await page.waitForFunction(
      () =>
        document.querySelector("[data-testid=run-status]")?.getAttribute("data-status") !== "running" &&
        document.querySelectorAll("[data-testid=timeline-row]").length > 1,
    );
    const before = await rows.count();
    await page.getByTestId("timeline-filter-kind").selectOption("freshness");
    await page.getByTestId("timeline-filter-count").waitFor();
    await page.waitForFunction(() => {
      const shown = [...document.querySelectorAll("[data-testid=timeline-row]")];
      return shown.length > 0 && shown.every((e) => e.getAttribute("data-kind") === "freshness");
    });
    const kinds = await rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-kind")));
    expect(kinds.length).toBeGreaterThan(0);
    expect(new Set(kinds)).toEqual(new Set(["freshness"]));
    await page.getByRole("button", { name: "Clear" }).click();
    await page.waitForFunction((n) => document.querySelectorAll("[data-testid=timeline-row]").length === n, before);

    await page.getByTestId("timeline-search").fill("zzz-no-such-words");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=timeline-row]").length === 0);
    await page.getByTestId("timeline-search").fill("");

    // Select the last row: the URL names its step; a reload opens the run with it selected.
    const last = rows.last();
    const lastId = await last.getAttribute("data-row-id");
    await last.click();
    await page.keyboard.press("Escape");
    await page.waitForURL(/[?&]step=\d+/);
    expect(`e${new URL(page.url()).searchParams.get("step")}`).toBe(lastId);
    await page.reload();
    await page.locator(`[data-testid=timeline-row][data-row-id="${lastId}"][data-selected="true"]`).waitFor();
  });

  it("says where the run's time went and draws one waterfall bar per iteration", async () => {
    const { page } = ctx.browser;
    await openRun(page, ctx.app.url, await run());
    const shares = await page.getByTestId("run-timing-shares").textContent();
    const [model, tools, other] = [...(shares ?? "").matchAll(/(\d+) %/g)].map((m) => Number(m[1]));
    expect((model ?? 0) + (tools ?? 0) + (other ?? 0)).toBe(100);
    // Both counted in one read of the DOM: the virtualized list may re-render between two reads.
    const [bars, iterations] = await page.evaluate(() => [
      document.querySelectorAll("[data-testid=iteration-waterfall]").length,
      document.querySelectorAll("[data-testid=timeline-iteration]").length,
    ]);
    expect(iterations).toBeGreaterThan(0);
    expect(bars).toBe(iterations);
  });

  it("compares two runs ticked in the runs list, and two runs picked on the compare page", async () => {
    const { page } = ctx.browser;
    const a = await run();
    const b = await startRunViaApi(ctx.app.url, { ...THREE_TIERS, budget: "mid", wait: true }, BANK);
    // This bank's runs: files beside this one add runs to the shared server's list (50 a page).
    await page.goto(`${ctx.app.url}/runs?bank=${BANK}`);
    await waitForHydratedPage(page);
    await page.locator(`[data-testid=run-row][data-run-id="${a}"] [data-testid=run-compare-check]`).check();
    await page.locator(`[data-testid=run-row][data-run-id="${b}"] [data-testid=run-compare-check]`).check();
    await page.getByTestId("compare-selected").click();
    await page.getByTestId("compare-view").waitFor();
    expect(new URL(page.url()).searchParams.get("a")).toBe(a);
    expect(new URL(page.url()).searchParams.get("b")).toBe(b);

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Compare" }).click();
    await page.getByTestId("compare-pick-a").waitFor();
    // The picker suggests recent runs (the server's newest 100, every bank's) by question: b, made
    // seconds ago, is among them whatever the files beside this one add meanwhile.
    const options = await page
      .locator("#recent-runs option")
      .evaluateAll((els) => els.map((e) => ({ value: e.getAttribute("value"), label: e.getAttribute("label") })));
    expect(options).toEqual(expect.arrayContaining([expect.objectContaining({ value: b })]));
    expect(options.find((o) => o.value === b)?.label).toContain(THREE_TIERS.question);
    await page.getByTestId("compare-pick-a").fill(b);
    await page.getByTestId("compare-pick-b").fill(a);
    await page.getByTestId("compare-pick-submit").click();
    await page.getByTestId("compare-view").waitFor();
    expect(new URL(page.url()).searchParams.get("a")).toBe(b);
  });

  it("a 5,000-event run: first render and filter latency (printed)", async () => {
    const id = "run_trace_large_e2e";
    const events = makeLargeRun(5000, id);
    await seedFinishedRun(ctx.app, id, "A generated 5,000-event run", events);
    const { page } = ctx.browser;
    const started = Date.now();
    await openRun(page, ctx.app.url, id);
    await page.getByTestId("timeline-row").first().waitFor();
    const firstRow = Date.now() - started;
    await waitForEventCount(page, 5000, 30_000);
    const allEvents = Date.now() - started;
    const filterStarted = Date.now();
    await page.getByTestId("timeline-filter-tier").selectOption("raw_facts");
    await page.getByTestId("timeline-filter-count").waitFor();
    await page.waitForFunction(() =>
      [...document.querySelectorAll("[data-testid=timeline-row]")].every((r) => r.getAttribute("data-kind") === "tier"),
    );
    const filtered = Date.now() - filterStarted;
    const textStarted = Date.now();
    await page.getByTestId("timeline-search").fill("migration");
    await page.waitForFunction(() => document.querySelector("[data-testid=timeline-filter-count]") !== null);
    const typed = Date.now() - textStarted;
    console.log(
      `e2e: 5,000-event run: first row ${firstRow} ms, all events ${allEvents} ms, tier filter ${filtered} ms, text search ${typed} ms; rows in the DOM ${await page.getByTestId("timeline-row").count()}`,
    );
    expect(await page.getByTestId("timeline-row").count()).toBeLessThan(200);
  });
});
