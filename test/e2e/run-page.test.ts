/**
 * The run inspector in Chromium against the built app: start a run from the form and follow it
 * live, follow a run over the event stream through a dropped connection, read forced/auto and the
 * freshness verdict, follow a citation to its retrieval row, move with the keyboard, see scripted
 * steering, and open a 5,000-event run. Every test sets up the run it looks at.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "@/test/fixtures/fake-openai-server";
import { startTcpProxy } from "@/test/fixtures/tcp-proxy";
import { makeLargeRun } from "@/test/fixtures/timeline/large-run";
import { screenshot, useAppAndBrowser, useSharedApp } from "./harness";
import { startRunViaApi } from "./pages/api";
import { focusedTestId, waitForFocus } from "./pages/focus";
import { waitForHydratedPage } from "./pages/hydrated";
import { startRunFromForm } from "./pages/new-run-form";
import { openRun, timelineRowIds, waitForEventCount, waitForStatus } from "./pages/run-page";
import { seedFinishedRun, seedRun } from "./seed-run";

/** The demo bank's pricing model is fresh: a low-budget recap short-circuits after the first tier. */
const SHORT_CIRCUIT = { question: "What is our pricing per seat?", skill: "recap", budget: "low" } as const;

/** This file's own copy of the demo bank on the shared app server (harness.ts). */
const BANK = "e2e-run-page";

describe("run inspector (offline model)", () => {
  const ctx = useSharedApp(BANK);

  it("starts a run from the form and follows it live to a short-circuited answer", async () => {
    const { page } = ctx.browser;
    await startRunFromForm(page, ctx.app.url, SHORT_CIRCUIT, BANK);
    await waitForStatus(page, "done");

    const modes = await page
      .getByTestId("timeline-iteration")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-mode")));
    expect(modes).toEqual(["forced", "auto"]);
    const freshness = page.locator('[data-testid=timeline-row][data-kind="freshness"]');
    await expect(freshness.textContent()).resolves.toMatch(/release/i);
    await expect(page.getByTestId("run-badge").allTextContents()).resolves.toEqual(
      expect.arrayContaining([expect.stringMatching(/short-circuit/i)]),
    );
    // Finished: the page no longer follows the stream.
    expect(await page.getByTestId("live-state").count()).toBe(0);
    // The header shows answered calls and every request sent (issue 27.6): the offline model retries nothing.
    const header = await page.locator("dl").first().textContent();
    expect(header).toMatch(/LLM calls\s*2/);
    expect(header).toMatch(/Model requests\s*2/);
    await screenshot(page, "run-page-short-circuit");
  });

  it("follows a running run over the event stream to its end, through a dropped connection, with no row twice", async () => {
    const runId = "run_live_drop_e2e";
    const events = makeLargeRun(40, runId);
    const proxy = await startTcpProxy(ctx.app.url);
    const run = await seedRun(ctx.app, runId, "A run written while the page watches");
    try {
      const { page } = ctx.browser;
      await run.append(events.slice(0, 10));
      // Through the proxy, so the test can cut the page's connections.
      await openRun(page, proxy.url, runId);
      await waitForEventCount(page, 10);
      // Connected at once, though the stream has nothing to send yet.
      await page.locator('[data-testid=live-state][data-state="live"]').waitFor({ timeout: 3_000 });

      await run.append(events.slice(10, 20));
      await waitForEventCount(page, 20);

      proxy.cut();
      await page.locator('[data-testid=live-state][data-state="reconnecting"]').waitFor();
      await run.append(events.slice(20, 39));
      await screenshot(page, "run-page-reconnecting");
      proxy.restore();
      await page.locator('[data-testid=live-state][data-state="live"]').waitFor({ timeout: 10_000 });
      await waitForEventCount(page, 39);

      await run.append(events.slice(39));
      await run.finish(events);
      await waitForStatus(page, "done", 10_000);
      await waitForEventCount(page, 40);
      expect(await page.getByTestId("live-state").count()).toBe(0);

      // What the page folded live is exactly what a fresh load of the finished run shows.
      const followed = await timelineRowIds(page);
      expect(new Set(followed).size).toBe(followed.length);
      await openRun(page, ctx.app.url, runId);
      await waitForEventCount(page, 40);
      expect(followed).toEqual(await timelineRowIds(page));
      expect(followed.length).toBeGreaterThan(5);
    } finally {
      run.close();
      await proxy.close();
    }
  });

  it("says a run was interrupted when it stops without finishing, and stops following it", async () => {
    const runId = "run_interrupted_e2e";
    const events = makeLargeRun(30, runId);
    const run = await seedRun(ctx.app, runId, "A run whose process dies");
    try {
      const { page } = ctx.browser;
      await run.append(events.slice(0, 12));
      await openRun(page, ctx.app.url, runId);
      await page.locator('[data-testid=live-state][data-state="live"]').waitFor({ timeout: 3_000 });
      await run.append(events.slice(12, 20));
      await run.interrupt();
      await waitForStatus(page, "interrupted", 10_000);
      await waitForEventCount(page, 20);
      expect(await page.getByTestId("live-state").count()).toBe(0);
      expect(await page.getByTestId("run-status").first().textContent()).toBe("interrupted");
    } finally {
      run.close();
    }
  });

  it("a citation chip shows the memory and highlights the row that retrieved it", async () => {
    const { page } = ctx.browser;
    await openRun(page, ctx.app.url, await startRunViaApi(ctx.app.url, { ...SHORT_CIRCUIT, wait: true }, BANK));
    const chip = page.getByTestId("citation-chip").first();
    await chip.click();
    await page.getByTestId("citation-detail").waitFor();
    const highlighted = page.locator('[data-testid=timeline-row][data-highlighted="true"]');
    await highlighted.waitFor();
    expect(await highlighted.getAttribute("data-kind")).toBe("tier");
    expect((await page.getByTestId("citation-detail").textContent())?.length).toBeGreaterThan(20);
  });

  it("moves between rows with j/k, opens a row's detail with Enter and closes it with Escape", async () => {
    const { page } = ctx.browser;
    await openRun(page, ctx.app.url, await startRunViaApi(ctx.app.url, { ...SHORT_CIRCUIT, wait: true }, BANK));
    const timeline = page.getByTestId("timeline");
    await timeline.focus();
    const active = () => timeline.getAttribute("aria-activedescendant");
    // Focusing the list makes its first row active (a render later).
    await page.locator("[data-testid=timeline][aria-activedescendant]").waitFor();
    const first = await active();
    await page.keyboard.press("j");
    const second = await active();
    expect(second).not.toBe(first);
    await page.keyboard.press("k");
    expect(await active()).toBe(first);
    // Walk down to the first typed row (iteration headers sit between rows) and open it.
    for (let i = 0; i < 10; i++) {
      const id = await active();
      if (id && (await page.locator(`#${id} [data-testid=timeline-row]`).count()) > 0) break;
      await page.keyboard.press("j");
    }
    const opened = await active();
    await page.keyboard.press("Enter");
    const detail = page.getByRole("dialog");
    await detail.waitFor();
    expect(await detail.getAttribute("data-testid")).toBe("row-detail");
    await waitForFocus(page, "row-detail");

    await page.keyboard.press("Escape");
    await detail.waitFor({ state: "detached" });
    await waitForFocus(page, "timeline");
    expect(await active()).toBe(opened);
  });

  it("moves between the Answer and Messages tabs with the arrow keys", async () => {
    const { page } = ctx.browser;
    await openRun(page, ctx.app.url, await startRunViaApi(ctx.app.url, { ...SHORT_CIRCUIT, wait: true }, BANK));
    const tabs = page.getByRole("tablist", { name: "Run output" }).getByRole("tab");
    expect(await tabs.allTextContents()).toEqual(["Answer", "Messages"]);
    const answer = page.getByRole("tab", { name: "Answer" });
    const messages = page.getByRole("tab", { name: "Messages" });
    await answer.focus();
    await page.keyboard.press("ArrowRight");
    await page.locator('[data-testid=run-tab-messages][aria-selected="true"]').waitFor();
    expect(await focusedTestId(page)).toBe("run-tab-messages");
    // The selected tab names the panel it shows.
    const panel = page.getByRole("tabpanel");
    expect(await panel.getAttribute("id")).toBe(await messages.getAttribute("aria-controls"));
    await panel.getByTestId("model-call").first().waitFor();

    await page.keyboard.press("ArrowLeft");
    await page.locator('[data-testid=run-tab-answer][aria-selected="true"]').waitFor();
    expect(await focusedTestId(page)).toBe("run-tab-answer");
    expect(await page.getByRole("tabpanel").getAttribute("id")).toBe(await answer.getAttribute("aria-controls"));
  });

  it("the re-run drawer keeps focus inside and gives it back to its button on Escape", async () => {
    const { page } = ctx.browser;
    await openRun(page, ctx.app.url, await startRunViaApi(ctx.app.url, { ...SHORT_CIRCUIT, wait: true }, BANK));
    await page.getByTestId("open-rerun").click();
    const drawer = page.getByRole("dialog", { name: "Re-run with changes" });
    await drawer.waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("question");
    await screenshot(page, "rerun-drawer");

    // Tab through more stops than the drawer has, both ways: focus never leaves it.
    for (const key of ["Tab", "Shift+Tab"]) {
      for (let i = 0; i < 25; i++) {
        await page.keyboard.press(key);
        expect(await drawer.evaluate((el) => el.contains(document.activeElement))).toBe(true);
      }
    }

    await page.keyboard.press("Escape");
    await drawer.waitFor({ state: "detached" });
    await waitForFocus(page, "open-rerun");
  });

  it("lists a short-circuited run on /runs with its badges and filters by badge", async () => {
    const runId = await startRunViaApi(ctx.app.url, { ...SHORT_CIRCUIT, wait: true }, BANK);
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/runs?badge=short_circuited&bank=${BANK}`);
    await page.locator(`[data-testid=run-row][data-run-id="${runId}"]`).waitFor();
    await screenshot(page, "runs-list");
    // Within this file's bank: other files on the shared server may have halted runs of their own.
    await page.goto(`${ctx.app.url}/runs?badge=halted&bank=${BANK}`);
    await page.getByText("No runs match.").waitFor();
  });

  it("shows field errors from the server for a malformed start-run form and writes nothing", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/runs/new`);
    await waitForHydratedPage(page);
    await page.getByRole("combobox", { name: "Scope" }).fill("team:");
    await page.getByTestId("start-run").click();
    await page.getByTestId("field-error-question").waitFor();
    await page.getByTestId("field-error-scope").waitFor();
    expect(page.url()).toMatch(/\/runs\/new$/);
  });

  it("an unknown run id is a proper not-found page", async () => {
    const { page } = ctx.browser;
    const res = await page.goto(`${ctx.app.url}/runs/run_does_not_exist`);
    expect(res?.status()).toBe(404);
    await page.getByTestId("not-found").waitFor();
  });

  it("opens a 5,000-event run quickly and scrolls through it", async () => {
    const runId = "run_large_e2e";
    const events = makeLargeRun(5000, runId);
    await seedFinishedRun(ctx.app, runId, "A generated 5,000-event run", events);
    const { page } = ctx.browser;
    // Main-thread tasks over 50 ms while the page loads: what a user feels as jank.
    await page.addInitScript(() => {
      const longTasks: number[] = [];
      Object.assign(window, { longTasks });
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) longTasks.push(Math.round(entry.duration));
      }).observe({ type: "longtask", buffered: true });
    });
    const started = Date.now();
    await page.goto(`${ctx.app.url}/runs/${runId}`);
    await page.getByTestId("timeline-row").first().waitFor();
    console.log(`e2e: 5,000-event run page to first timeline row in ${Date.now() - started} ms`);
    // The first events paint at once; the rest of the log streams in right after.
    await waitForEventCount(page, 5000);
    const longTasks = await page.evaluate(() => (window as unknown as { longTasks: number[] }).longTasks);
    console.log(
      `e2e: 5,000-event run page to all events in ${Date.now() - started} ms; long tasks (ms): ${longTasks.join(", ") || "none"}`,
    );
    const timeline = page.getByTestId("timeline");
    const firstRow = await page.getByTestId("timeline-row").first().getAttribute("data-row-id");
    await timeline.evaluate((el) => {
      el.scrollTop = el.scrollHeight / 2;
    });
    await page.waitForFunction(
      (before) => document.querySelector("[data-testid=timeline-row]")?.getAttribute("data-row-id") !== before,
      firstRow,
    );
    const inDom = await page.getByTestId("timeline-row").count();
    expect(inDom).toBeLessThan(200);
    await screenshot(page, "run-page-5k-events");
  });
});

describe("run inspector (scripted OpenAI-compatible model)", () => {
  let fake: FakeOpenAI;

  beforeAll(async () => {
    // Forced turns obey; under auto the model repeats one empty search until the ladder halts it.
    fake = await startFakeOpenAI((body) => {
      const choice = body.tool_choice as { function?: { name: string } } | undefined;
      const forced = choice?.function?.name;
      if (forced === "done")
        return { tool_calls: [{ name: "done", arguments: { answer: "Atlas GA is October 20.", memory_ids: [] } }] };
      if (forced)
        return { tool_calls: [{ name: forced, arguments: { reason: "forced", query: "launch date decision" } }] };
      return {
        content: "Searching again.",
        tool_calls: [{ name: "recall", arguments: { reason: "retry", query: "qqq zzz" } }],
      };
    });
  });
  afterAll(async () => {
    await fake?.close();
  });
  // Registered after the fake server's hooks, so the app starts pointed at it. A server of its
  // own: the model settings (REFLECT_LLM, OPENAI_BASE_URL) are the server's environment.
  const ctx = useAppAndBrowser(() => ({
    REFLECT_LLM: "openai",
    OPENAI_API_KEY: "sk-e2e-secret",
    OPENAI_BASE_URL: fake.url,
    REFLECT_MODEL: "scripted-gpt",
  }));

  it("shows the nudge and the halt with their exact injected text", async () => {
    const { page } = ctx.browser;
    await startRunFromForm(page, ctx.app.url, {
      question: "What did we decide about the launch date?",
      skill: "recap",
    });
    await waitForStatus(page, "halted");
    const steering = page.locator('[data-testid=timeline-row][data-kind="steering"]');
    const texts = await steering.allTextContents();
    expect(texts.some((t) => /nudge/i.test(t) && /No progress since iteration/.test(t))).toBe(true);
    expect(texts.some((t) => /halt/i.test(t))).toBe(true);
    const html = await page.content();
    expect(html).not.toContain("sk-e2e-secret");
    await screenshot(page, "run-page-halted");
  });
});

describe("run inspector (a model slow enough that the page opens mid-run)", () => {
  let fake: FakeOpenAI;

  beforeAll(async () => {
    // Every reply takes 400 ms: the run page is rendered while the run is still running.
    fake = await startFakeOpenAI((body) => {
      const forced = (body.tool_choice as { function?: { name: string } } | undefined)?.function?.name;
      if (forced && forced !== "done")
        return { delayMs: 400, tool_calls: [{ name: forced, arguments: { reason: "forced", query: "launch date" } }] };
      return {
        delayMs: 400,
        tool_calls: [{ name: "done", arguments: { answer: "Atlas GA is October 20.", memory_ids: [] } }],
      };
    });
  });
  afterAll(async () => {
    await fake?.close();
  });
  // A server of its own: the model settings (REFLECT_LLM, OPENAI_BASE_URL) are the server's environment.
  const ctx = useAppAndBrowser(() => ({
    REFLECT_LLM: "openai",
    OPENAI_API_KEY: "sk-e2e-secret",
    OPENAI_BASE_URL: fake.url,
    REFLECT_MODEL: "slow-gpt",
  }));

  it("once the run stops, the re-run drawer lists the mental models it read", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/runs/new`);
    await waitForHydratedPage(page);
    await page.locator("textarea[name=question]").fill("What did we decide about the launch date?");
    await page.locator("select[name=skill]").selectOption("recap");
    await page.getByTestId("start-run").click();
    await page.waitForURL(/\/runs\/run_/);
    // Rendered mid-run: the drawer's server-read data did not have the models yet.
    await page.locator('[data-testid=run-status][data-status="running"]').first().waitFor();
    await page.locator('[data-testid=run-status]:not([data-status="running"])').first().waitFor({ timeout: 30_000 });
    await page.getByTestId("open-rerun").click();
    await page
      .getByTestId("rerun-drawer")
      .locator('[data-testid="rerun-model"][data-model-id="mm-launch-plan"]')
      .waitFor({ timeout: 10_000 });
  });
});
