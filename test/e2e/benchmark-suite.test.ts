/**
 * A benchmark as a suite, end to end: a LoCoMo conversation (the small hand-written fixture, so CI
 * needs no external data; the shared development file's first conversation too when it is present)
 * is imported through the API, its suite runs as an experiment, the experiment page shows a
 * per-category scorecard, and a failed question's run opens from its row with the reason and the
 * memory the missed-evidence probe named. "Add to suite" on the run the probe flagged suggests the
 * expectations that guard against it, and the suite they make fails for the reason the probe gave.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BenchmarkImportResult } from "@/lib/contracts/benchmarks";
import type { Experiment } from "@/lib/contracts/experiments";
import { MINI_LOCOMO } from "@/test/fixtures/locomo/mini";
import { type RunningApp, startApp, useSharedApp } from "./harness";

/** This file's own copy of the demo bank on the shared app server (harness.ts). */
const BANK = "e2e-benchmark-suite";

/** The development half beside the project (never committed: CC BY-NC); the test is skipped without it. */
const SHARED = resolve(process.cwd(), "..", "shared", "benchmarks", "locomo", "locomo-dev.json");
const SHOTS = process.env.BENCH_SHOTS_DIR;

async function post<T>(url: string, body: unknown): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Starts the suite's experiment through the API and waits until it has finished. */
async function runSuite(appUrl: string, bank: string, suite: string): Promise<Experiment> {
  const { id } = await post<{ id: string }>(`${appUrl}/api/v1/experiments`, { bank, suite, concurrency: 4 });
  for (let i = 0; i < 600; i++) {
    const e = (await (await fetch(`${appUrl}/api/v1/experiments/${id}`)).json()) as Experiment;
    if (e.status !== "running") return e;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`experiment ${id} did not finish`);
}

async function shot(page: Page, name: string) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

describe("a LoCoMo conversation as a suite", () => {
  const ctx = useSharedApp(BANK);
  /** The bank and suite the import made (the suite is named after the conversation). */
  let bank = "";
  let suiteName = "";

  it("import over the API, run its suite, read the scorecard by category, open a failed question's run", async () => {
    const { page } = ctx.browser;
    const url = ctx.app.url;
    const imported = await post<BenchmarkImportResult>(`${url}/api/v1/benchmarks/locomo?prefix=e2e-`, MINI_LOCOMO);
    expect(imported.banks.map((b) => [b.bankId, b.suite])).toEqual([["e2e-mini-1", "locomo-mini-1"]]);
    bank = imported.banks[0]?.bankId ?? "";
    suiteName = imported.banks[0]?.suite ?? "";

    const e = await runSuite(url, bank, suiteName);
    expect(e.status).toBe("done");
    await page.goto(`${url}/experiments/${e.id}`);
    const card = page.getByTestId("scorecard");
    await card.waitFor();
    const tags = await card
      .getByTestId("scorecard-line")
      .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-tag")));
    expect(tags).toEqual(["adversarial", "multi-hop", "open-domain", "single-hop", "temporal", "all"]);
    // Each line says what the API says: the single-hop questions (2) both pass here.
    const singleHop = card.locator('[data-tag="single-hop"]');
    expect(await singleHop.locator('[data-col="Questions"]').textContent()).toBe("2");
    const line = e.scorecard.byTag.find((l) => l.tag === "single-hop");
    expect(await singleHop.locator('[data-col="Pass rate"]').textContent()).toBe(
      `${Math.round((line?.passRate ?? 0) * 100)}%`,
    );
    expect(await card.locator('[data-tag="all"] [data-col="p95"]').textContent()).toMatch(/^\d[\d,]* ms$/);
    await shot(page, "scorecard");

    // The suite's page charts its experiments' pass rate over time: this one, at its rate.
    await page.goto(`${url}/suites/${encodeURIComponent(suiteName)}?bank=${encodeURIComponent(bank)}`);
    const points = page.getByTestId("pass-rate-point");
    await points.first().waitFor();
    expect(await points.count()).toBe(1);
    expect(Number(await points.first().getAttribute("data-rate"))).toBeCloseTo(e.totals.passRate ?? -1);
    await page.goto(`${url}/experiments/${e.id}`);
    await card.waitFor();

    // A failed question's run, opened from its row: the reason is on the row and on the run page.
    const miss = e.rows.find((r) => r.passed === false);
    const failure = miss?.failures[0];
    expect(failure).toBeDefined();
    const failed = page
      .locator('[data-testid="experiment-row"][data-passed="false"]')
      .filter({ hasText: miss?.question ?? "" });
    expect(await failed.textContent()).toContain(`${failure?.expectation} — ${failure?.detail}`);
    await failed.getByRole("link", { name: miss?.question ?? "" }).click();
    await page.waitForURL(/\/runs\/run_/);
    const verdict = page.getByTestId("experiment-verdict");
    await verdict.waitFor();
    expect(await verdict.getAttribute("data-passed")).toBe("false");
    expect(await verdict.textContent()).toContain(`${failure?.expectation}: ${failure?.detail}`);
  });

  it("a right decline is neither ungrounded nor flagged, and Add to suite keeps it as it is", async () => {
    const { page } = ctx.browser;
    const url = ctx.app.url;
    const e = (await (await fetch(`${url}/api/v1/experiments?bank=e2e-mini-1`)).json()) as {
      experiments: { id: string }[];
    };
    const full = (await (await fetch(`${url}/api/v1/experiments/${e.experiments[0]?.id}`)).json()) as Experiment;
    // Ben named the puppy, not Ana: the reader declines. The decline cites nothing, and it is an
    // abstention — not ungrounded — and the probe reads Ben's turn as Ben's, so nothing is flagged.
    const decline = full.rows.find((r) => r.question === "What did Ana name her puppy?");
    expect(decline?.passed).toBe(true);
    expect(decline?.flags).not.toContain("missed_evidence");
    expect(decline?.flags).not.toContain("ungrounded");
    expect(full.rows.filter((r) => r.flags.includes("missed_evidence"))).toEqual([]);
    await page.goto(`${url}/runs/${decline?.runId}`);
    await page.locator("[data-testid=timeline][data-ready]").waitFor();
    expect(await page.getByText("declined", { exact: true }).count()).toBeGreaterThan(0);

    // Nothing was wrong with the run, so the suggestion is the run as it is, and the guard passes.
    await page.getByTestId("open-add-to-suite").click();
    expect(await page.getByTestId("suggest-why").count()).toBe(0);
    // Pinned as a decline (citing nothing would guard nothing).
    expect(await page.getByTestId("keep-abstains").isChecked()).toBe(true);
    await page.getByTestId("suite-select").selectOption("__new");
    await page.getByTestId("new-suite-name").fill("puppy-guard");
    await page.getByTestId("add-to-suite").click();
    await page.getByTestId("added-to-suite").waitFor();
    const guard = await runSuite(url, bank, "puppy-guard");
    expect(guard.rows.map((r) => [r.question, r.passed])).toEqual([["What did Ana name her puppy?", true]]);
    await shot(page, "declined-run");
  });
});

describe.skipIf(!existsSync(SHARED))("the shared development file's first conversation", () => {
  // A server of its own: its suite makes 40 runs in seconds, which would crowd the shared
  // server's global lists (the runs list's pages, the compare picker's 100 recent runs) under the
  // files running beside this one.
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("imports and its suite scores by category", async () => {
    const url = app.url;
    const [first] = JSON.parse(readFileSync(SHARED, "utf8")) as { qa: { category: number }[] }[];
    // The whole conversation (every session and turn) with its first 8 questions of each category:
    // every category still scores, in about a fifth of the runs of all 199 (the suite's scoring
    // of every question is the LoCoMo bench's, `npm run bench -- locomo`).
    const asked = new Map<number, number>();
    const qa = (first?.qa ?? []).filter((q) => {
      const n = asked.get(q.category) ?? 0;
      asked.set(q.category, n + 1);
      return n < 8;
    });
    const imported = await post<BenchmarkImportResult>(`${url}/api/v1/benchmarks/locomo?prefix=dev-`, [
      { ...first, qa },
    ]);
    const bank = imported.banks[0]?.bankId ?? "";
    const e = await runSuite(url, bank, imported.banks[0]?.suite ?? "");
    expect(e.status).toBe("done");
    expect(e.rows).toHaveLength(qa.length);
    expect(e.scorecard.byTag.length).toBeGreaterThanOrEqual(4);
    expect(
      e.rows.filter((r) => r.passed === false).every((r) => r.failures.every((f) => !f.detail.includes("\n"))),
    ).toBe(true);
  });
});
