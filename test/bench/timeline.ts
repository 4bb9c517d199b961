/**
 * §6 Timeline: fold time of 5k- and 50k-event runs, and time to first render of the run page in
 * Chromium for a 5k-event run served by `next start` (navigation start → first timeline row in the
 * DOM, recorded in the page by a MutationObserver installed before any page script runs). The first
 * rows come in the page's HTML; the time the list is ready (hydrated: keys and clicks work) is
 * reported beside it. The same for an imported run: a 5k-span GenAI trace posted to the OTLP
 * receiver (/v1/traces; its ingest rate is a row too), then its run page.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { InValue } from "@libsql/client";
import { openDb } from "@/db/client";
import { createRun, finishRun } from "@/db/queries/runs";
import type { EventPayload } from "@/lib/reflect/events";
import { foldRun } from "@/lib/timeline/fold";
import { launchBrowser, startApp } from "@/test/e2e/harness";
import { toProtobuf } from "@/test/fixtures/otlp/protobuf";
import { LARGE_TRACE_ID, largeGenAiTrace } from "@/test/fixtures/otlp/traces";
import { RECAP_SKILL } from "@/test/fixtures/timeline/builder";
import { makeLargeRun } from "@/test/fixtures/timeline/large-run";
import { atMost, type BenchRow, median, row } from "./report";

const ROOT = join(import.meta.dirname, "..", "..");
const RENDER_EVENTS = 5_000;
const WARM_VISITS = 5;

function foldMs(nEvents: number, repeats: number): number {
  const events = makeLargeRun(nEvents);
  foldRun(events);
  const samples: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    foldRun(events);
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/** Builds the app when no production build exists; another process building at the same time is waited out. */
export async function ensureBuild(log: (line: string) => void): Promise<void> {
  for (let attempt = 1; !existsSync(join(ROOT, ".next", "BUILD_ID")); attempt++) {
    log("  no production build: running next build");
    const build = spawnSync(process.execPath, [join(ROOT, "node_modules", "next", "dist", "bin", "next"), "build"], {
      cwd: ROOT,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
      encoding: "utf8",
    });
    if (build.status === 0) return;
    if (attempt >= 4) throw new Error(`next build failed:\n${build.stdout}\n${build.stderr}`);
    log("  next build failed (a concurrent build?), retrying in 30 s");
    await new Promise((r) => setTimeout(r, 30_000));
  }
}

export async function insertLargeRun(dbUrl: string, runId: string): Promise<void> {
  const db = await openDb(dbUrl);
  try {
    const events = makeLargeRun(RENDER_EVENTS, runId);
    await createRun(db, {
      id: runId,
      bankId: "demo",
      question: "Summarize everything about the platform migration.",
      skill: RECAP_SKILL,
      budget: "high",
      mode: "synthesize",
      scope: "personal",
      model: { kind: "scripted", name: "scripted-large" },
    });
    const statements: { sql: string; args: InValue[] }[] = [];
    for (let i = 0; i < events.length; i += 500) {
      const chunk = events.slice(i, i + 500);
      statements.push({
        sql: `INSERT INTO run_events (run_id, seq, at, type, iteration, payload) VALUES ${chunk.map(() => "(?, ?, ?, ?, ?, ?)").join(", ")}`,
        args: chunk.flatMap((e) => [runId, e.seq, e.at, e.type, e.iteration ?? null, JSON.stringify(e.payload)]),
      });
    }
    await db.$client.batch(statements, "write");
    const last = events.at(-1);
    if (last?.type !== "run.finished") throw new Error("large run must end with run.finished");
    await finishRun(db, runId, last.payload as EventPayload<"run.finished">);
  } finally {
    db.$client.close();
  }
}

interface ImportedTimes {
  /** Spans per second of one 5k-span protobuf POST to /v1/traces. */
  spansPerSecond: number;
  /** Navigation start → first timeline row of the imported run. */
  cold: number;
  warm: number;
}

interface RenderTimes {
  /** Navigation start → first timeline row in the DOM. */
  cold: number;
  warm: number;
  /** Navigation start → the list is virtualized and answers keys and clicks. */
  coldReady: number;
  warmReady: number;
  imported: ImportedTimes;
}

async function firstRender(log: (line: string) => void): Promise<RenderTimes> {
  await ensureBuild(log);
  const app = await startApp();
  const browser = await launchBrowser();
  try {
    const runId = "run_bench_large";
    await insertLargeRun(app.dbUrl, runId);
    // A string, not a function: tsx's name-keeping helpers do not exist inside the page.
    await browser.page.addInitScript(`
      new MutationObserver(() => {
        if (window.__firstRowAt === undefined && document.querySelector('[data-testid="timeline-row"]')) {
          window.__firstRowAt = performance.now();
        }
        if (window.__readyAt === undefined && document.querySelector('[data-testid="timeline"][data-ready]')) {
          window.__readyAt = performance.now();
        }
      }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-ready"] });
    `);
    const visit = async (path = `/runs/${runId}`) => {
      await browser.page.goto(`${app.url}${path}`, { waitUntil: "commit" });
      await browser.page.waitForSelector('[data-testid="timeline"][data-ready] [data-testid="timeline-row"]', {
        timeout: 30_000,
      });
      const [first, ready] = (await browser.page.evaluate("[window.__firstRowAt, window.__readyAt]")) as number[];
      return { first: Number(first), ready: Number(ready) };
    };
    const cold = await visit();
    const warm: { first: number; ready: number }[] = [];
    for (let i = 0; i < WARM_VISITS; i++) warm.push(await visit());
    const ms = (xs: number[]) => xs.map((w) => w.toFixed(0)).join(", ");
    log(`  first row: first visit ${cold.first.toFixed(0)} ms, repeat ${ms(warm.map((w) => w.first))} ms`);
    log(`  list ready: first visit ${cold.ready.toFixed(0)} ms, repeat ${ms(warm.map((w) => w.ready))} ms`);

    // An imported run: a 5k-span GenAI trace posted to the OTLP receiver, then its run page.
    const body = Buffer.from(toProtobuf(largeGenAiTrace(RENDER_EVENTS)));
    const posted = performance.now();
    const res = await fetch(`${app.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/x-protobuf" },
      body,
    });
    const ingestMs = performance.now() - posted;
    if (res.status !== 200 || (await res.arrayBuffer()).byteLength !== 0)
      throw new Error(`the 5k-span trace was not taken whole: ${res.status}`);
    const importedUrl = `/runs/otlp_${LARGE_TRACE_ID}`;
    const importedCold = await visit(importedUrl);
    const importedWarm: { first: number; ready: number }[] = [];
    for (let i = 0; i < WARM_VISITS; i++) importedWarm.push(await visit(importedUrl));
    const spansPerSecond = (RENDER_EVENTS / ingestMs) * 1000;
    log(
      `  imported: ${RENDER_EVENTS} spans (${(body.length / 1e6).toFixed(2)} MB) in ${ingestMs.toFixed(0)} ms = ${spansPerSecond.toFixed(0)} spans/s; ` +
        `first row: first visit ${importedCold.first.toFixed(0)} ms, repeat ${ms(importedWarm.map((w) => w.first))} ms`,
    );
    return {
      cold: cold.first,
      warm: median(warm.map((w) => w.first)),
      coldReady: cold.ready,
      warmReady: median(warm.map((w) => w.ready)),
      imported: { spansPerSecond, cold: importedCold.first, warm: median(importedWarm.map((w) => w.first)) },
    };
  } finally {
    await browser.close();
    await app.stop();
  }
}

export async function benchTimeline(log: (line: string) => void): Promise<BenchRow[]> {
  const fold5k = foldMs(5_000, 20);
  const fold50k = foldMs(50_000, 5);
  log(`  fold: 5k ${fold5k.toFixed(1)} ms, 50k ${fold50k.toFixed(1)} ms`);
  const render = await firstRender(log);
  const section = "6 timeline";
  return [
    row(section, "fold 5k events", fold5k, "ms"),
    row(section, "fold 50k events", fold50k, "ms", atMost(fold50k, 200, "ms")),
    row(
      section,
      "run page first timeline row, 5k events, first visit",
      render.cold,
      "ms",
      atMost(render.cold, 600, "ms"),
    ),
    row(section, "run page first timeline row, 5k events, repeat visits p50", render.warm, "ms"),
    row(section, "run page timeline ready (hydrated), 5k events, first visit", render.coldReady, "ms"),
    row(section, "run page timeline ready (hydrated), 5k events, repeat visits p50", render.warmReady, "ms"),
    row(section, "OTLP receiver: one 5k-span protobuf trace ingested", render.imported.spansPerSecond, "spans/s"),
    row(
      section,
      "imported run (5k spans) page first timeline row, first visit",
      render.imported.cold,
      "ms",
      atMost(render.imported.cold, 600, "ms"),
    ),
    row(section, "imported run (5k spans) page first timeline row, repeat visits p50", render.imported.warm, "ms"),
  ];
}
