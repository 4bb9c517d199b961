/**
 * The run inspector in Chromium against the built app: start a run from the form and follow it
 * live, read forced/auto and the freshness verdict, follow a citation to its retrieval row, move
 * with the keyboard, see scripted steering, and open a 5,000-event run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "@/db/client";
import { createRun, createRunSink } from "@/db/runs";
import { type FakeOpenAI, startFakeOpenAI } from "@/test/fixtures/fake-openai-server";
import { makeLargeRun } from "@/test/fixtures/timeline/large-run";
import { screenshot, useAppAndBrowser } from "./harness";

describe("run inspector (offline model)", () => {
  const ctx = useAppAndBrowser();

  it("starts a run from the form and follows it live to a short-circuited answer", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/runs/new`);
    await page.locator("textarea[name=question]").fill("What is our pricing per seat?");
    await page.locator("select[name=skill]").selectOption("recap");
    await page.locator("select[name=budget]").selectOption("low");
    await page.getByTestId("start-run").click();
    await page.waitForURL(/\/runs\/run_/);
    await page.locator('[data-testid=run-status][data-status="done"]').waitFor({ timeout: 30_000 });

    const modes = await page
      .getByTestId("timeline-iteration")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-mode")));
    expect(modes).toEqual(["forced", "auto"]);
    const freshness = page.locator('[data-testid=timeline-row][data-kind="freshness"]');
    await expect(freshness.textContent()).resolves.toMatch(/release/i);
    await expect(page.getByTestId("run-badge").allTextContents()).resolves.toEqual(
      expect.arrayContaining([expect.stringMatching(/short-circuit/i)]),
    );
    await screenshot(page, "run-page-short-circuit");
  });

  it("a citation chip shows the memory and highlights the row that retrieved it", async () => {
    const { page } = ctx.browser;
    const chip = page.getByTestId("citation-chip").first();
    await chip.click();
    await page.getByTestId("citation-detail").waitFor();
    const highlighted = page.locator('[data-testid=timeline-row][data-highlighted="true"]');
    await highlighted.waitFor();
    expect(await highlighted.getAttribute("data-kind")).toBe("tier");
    expect((await page.getByTestId("citation-detail").textContent())?.length).toBeGreaterThan(20);
  });

  it("moves focus between rows with j/k and opens a row's detail with Enter", async () => {
    const { page } = ctx.browser;
    const timeline = page.getByTestId("timeline");
    await timeline.focus();
    const active = () => timeline.getAttribute("aria-activedescendant");
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
    await page.keyboard.press("Enter");
    await page.getByTestId("row-detail").waitFor();
  });

  it("lists the run on /runs with its badges and filters by badge", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/runs?badge=short_circuited`);
    await page.getByTestId("run-row").first().waitFor();
    expect(await page.getByTestId("run-row").count()).toBeGreaterThan(0);
    await screenshot(page, "runs-list");
    await page.goto(`${ctx.app.url}/runs?badge=halted`);
    await page.getByText("No runs match.").waitFor();
  });

  it("shows field errors from the server for a malformed start-run form and writes nothing", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/runs/new`);
    await page.locator("input[name=scope]").fill("team:");
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
    const db = await openDb(ctx.app.dbUrl);
    const runId = "run_large_e2e";
    try {
      const events = makeLargeRun(5000, runId);
      await createRun(db, {
        id: runId,
        bankId: "demo",
        question: "A generated 5,000-event run",
        skill: null,
        budget: "high",
        mode: "synthesize",
        scope: "personal",
        model: { kind: "scripted", name: "generator" },
      });
      const sink = createRunSink(db, runId);
      for (const e of events) await sink.append(e);
    } finally {
      db.$client.close();
    }
    const { page } = ctx.browser;
    const started = Date.now();
    await page.goto(`${ctx.app.url}/runs/${runId}`);
    await page.getByTestId("timeline-row").first().waitFor();
    console.log(`e2e: 5,000-event run page to first timeline row in ${Date.now() - started} ms`);
    // The first events paint at once; the rest of the log streams in right after.
    await page.getByText("5000 events").waitFor();
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
  // Registered after the fake server's hooks, so the app starts pointed at it.
  const ctx = useAppAndBrowser(() => ({
    REFLECT_LLM: "openai",
    OPENAI_API_KEY: "sk-e2e-secret",
    OPENAI_BASE_URL: fake.url,
    REFLECT_MODEL: "scripted-gpt",
  }));

  it("shows the nudge and the halt with their exact injected text", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/runs/new`);
    await page.locator("textarea[name=question]").fill("What did we decide about the launch date?");
    await page.locator("select[name=skill]").selectOption("recap");
    await page.getByTestId("start-run").click();
    await page.waitForURL(/\/runs\/run_/);
    await page.locator('[data-testid=run-status][data-status="halted"]').waitFor({ timeout: 30_000 });
    const steering = page.locator('[data-testid=timeline-row][data-kind="steering"]');
    const texts = await steering.allTextContents();
    expect(texts.some((t) => /nudge/i.test(t) && /No progress since step/.test(t))).toBe(true);
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
  const ctx = useAppAndBrowser(() => ({
    REFLECT_LLM: "openai",
    OPENAI_API_KEY: "sk-e2e-secret",
    OPENAI_BASE_URL: fake.url,
    REFLECT_MODEL: "slow-gpt",
  }));

  it("once the run stops, the re-run drawer lists the mental models it read", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/runs/new`);
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
