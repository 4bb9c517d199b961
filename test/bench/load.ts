/**
 * §8 Load: `next start` on a database holding the demo bank and 100k facts in four other banks,
 * then 50 recall clients and 20 reflect clients (offline model, `wait: true`) send requests back
 * to back for a fixed time over HTTP, while a probe asks `/api/health` every 100 ms. Every request
 * has a deadline; an HTTP error, a wrong body or a missed deadline counts as a failure. The health
 * probe runs in its own process (health-probe.mjs): in the load generator's process its requests
 * wait behind 70 clients' responses on the same event loop, which measures the generator, not the
 * server (that figure is reported beside it). The server's own event-loop delay comes from
 * `/api/health` (the last 5-second window, read while the load still runs). `BENCH_CPU_PROF=<dir>`
 * writes a CPU profile of the server.
 */
import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "@/db/client";
import type { EventLoopDelay } from "@/lib/server/runtime/event-loop";
import { startApp } from "@/test/e2e/harness";
import { createBenchBank, insertFacts } from "./corpus";
import { DEMO_QUESTIONS } from "./isolation";
import { atMost, type BenchRow, percentile, prng, row, timed } from "./report";
import { ensureBuild } from "./timeline";

const OTHER_BANKS = ["north", "east", "south", "west"];
const FACTS_PER_OTHER_BANK = 25_000;
const RECALL_CLIENTS = 50;
const REFLECT_CLIENTS = 20;
const LOAD_MS = 20_000;
const HEALTH_EVERY_MS = 100;
/** A request slower than this counts as timed out. */
const DEADLINE_MS = 10_000;
const HEALTH_P95_TARGET_MS = 50;

interface Sample {
  ms: number;
  ok: boolean;
  error?: string;
}

async function request(url: string, init: RequestInit, check: (body: unknown) => boolean): Promise<Sample> {
  const start = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(DEADLINE_MS) });
    const body: unknown = await res.json();
    const ms = performance.now() - start;
    if (!res.ok) return { ms, ok: false, error: `HTTP ${res.status}` };
    return check(body) ? { ms, ok: true } : { ms, ok: false, error: "unexpected body" };
  } catch (error) {
    const name = error instanceof Error ? error.name : "Error";
    return { ms: performance.now() - start, ok: false, error: name === "TimeoutError" ? "timed out" : String(error) };
  }
}

const post = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

export async function benchLoad(log: (line: string) => void): Promise<BenchRow[]> {
  await ensureBuild(log);
  const profileDir = process.env.BENCH_CPU_PROF;
  const app = await startApp({}, profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []);
  try {
    const fill = await timed(async () => {
      const db = await openDb(app.dbUrl);
      try {
        const r = prng(11);
        for (const bankId of OTHER_BANKS) {
          await createBenchBank(db, bankId);
          await insertFacts(db, r, 0, FACTS_PER_OTHER_BANK, bankId);
        }
      } finally {
        db.$client.close();
      }
    });
    log(
      `  database: demo bank + ${OTHER_BANKS.length} × ${FACTS_PER_OTHER_BANK.toLocaleString("en-US")} facts (${(fill.ms / 1000).toFixed(1)} s)`,
    );
    const banks = ["demo", ...OTHER_BANKS];
    const api = `${app.url}/api/v1/banks`;
    const recallOk = (b: unknown) => Array.isArray((b as { memories?: unknown }).memories);
    // A finished run; "failed" (or a run left running) is a failure of the server under load.
    const reflectOk = (b: unknown) =>
      ["done", "no_evidence", "halted", "degraded"].includes(String((b as { status?: unknown }).status));
    // One warm-up request of each kind, so the load measures serving, not first compilation.
    const warm = [
      await request(`${api}/demo/recall`, post({ query: "launch" }), recallOk),
      await request(`${api}/demo/reflect`, post({ question: "What is the launch date?", wait: true }), reflectOk),
    ];
    log(`  warm-up: recall ${warm[0]!.ms.toFixed(0)} ms, reflect ${warm[1]!.ms.toFixed(0)} ms`);
    const cpu = await mainThreadCpuPerRequest(app.url, [
      ["health", () => fetch(`${app.url}/api/health`)],
      ["recall", () => fetch(`${api}/demo/recall`, post({ query: "When did Atlas launch?" }))],
      ["reflect", () => fetch(`${api}/demo/reflect`, post({ question: "When did Atlas launch?", wait: true }))],
    ]);
    if (cpu)
      log(
        `  server main-thread CPU per request, one at a time: ${cpu.map(([n, ms]) => `${n} ${ms.toFixed(2)} ms`).join(", ")}`,
      );

    const until = performance.now() + LOAD_MS;
    const recalls: Sample[] = [];
    const reflects: Sample[] = [];
    const health: Sample[] = [];
    let eventLoop: EventLoopDelay | null = null;
    const recallClient = async (i: number) => {
      const r = prng(100 + i);
      while (performance.now() < until) {
        const bank = banks[i % banks.length]!;
        recalls.push(await request(`${api}/${bank}/recall`, post({ query: r.pick(DEMO_QUESTIONS) }), recallOk));
      }
    };
    const reflectClient = async (i: number) => {
      const r = prng(200 + i);
      while (performance.now() < until) {
        reflects.push(
          await request(`${api}/demo/reflect`, post({ question: r.pick(DEMO_QUESTIONS), wait: true }), reflectOk),
        );
      }
    };
    const healthProbe = async () => {
      while (performance.now() < until) {
        const next = performance.now() + HEALTH_EVERY_MS;
        health.push(
          await request(`${app.url}/api/health`, {}, (b) => {
            const body = b as { ok?: unknown; eventLoopDelay?: EventLoopDelay | null };
            // The window read last before the load ends lies inside the load (the load lasts > 2 windows).
            if (body.eventLoopDelay) eventLoop = body.eventLoopDelay;
            return body.ok === true;
          }),
        );
        await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
      }
    };
    const probe = separateHealthProbe(`${app.url}/api/health`, until - performance.now());
    const wall = await timed(() =>
      Promise.all([
        ...Array.from({ length: RECALL_CLIENTS }, (_, i) => recallClient(i)),
        ...Array.from({ length: REFLECT_CLIENTS }, (_, i) => reflectClient(i)),
        healthProbe(),
      ]),
    );
    const separate = await probe;
    if (separate.eventLoopDelay) eventLoop = separate.eventLoopDelay;
    const failed = [...recalls, ...reflects, ...health, ...separate.samples].filter((s) => !s.ok);
    const reasons = new Map<string, number>();
    for (const f of failed) reasons.set(f.error ?? "?", (reasons.get(f.error ?? "?") ?? 0) + 1);
    for (const [reason, n] of reasons) log(`  ✗ ${n} × ${reason}`);
    const seconds = wall.ms / 1000;
    const ms = (samples: Sample[], p: number) =>
      percentile(
        samples.filter((s) => s.ok).map((s) => s.ms),
        p,
      );
    const loop = eventLoop as EventLoopDelay | null;
    log(
      `  ${recalls.length} recalls (${(recalls.length / seconds).toFixed(0)}/s), ${reflects.length} reflects (${(reflects.length / seconds).toFixed(1)}/s), ${separate.samples.length} + ${health.length} health checks in ${seconds.toFixed(1)} s; ` +
        `event-loop delay p99 ${loop?.p99Ms ?? "?"} ms, max ${loop?.maxMs ?? "?"} ms`,
    );
    const section = "8 load";
    const healthP95 = ms(separate.samples, 95);
    const inProcessHealthP95 = ms(health, 95);
    return [
      row(
        section,
        `${RECALL_CLIENTS} recall + ${REFLECT_CLIENTS} reflect clients, 100k facts: requests`,
        recalls.length + reflects.length,
        "",
        undefined,
        `${seconds.toFixed(0)} s`,
      ),
      row(
        section,
        "errors and time-outs",
        failed.length,
        "",
        { target: "0", met: failed.length === 0 },
        `deadline ${DEADLINE_MS / 1000} s`,
      ),
      ...(cpu ?? []).map(([name, cpuMs]) =>
        row(section, `server main-thread CPU per ${name} request`, cpuMs, "ms", undefined, "one at a time, no load"),
      ),
      row(section, "recall p50", ms(recalls, 50), "ms"),
      row(section, "recall p95", ms(recalls, 95), "ms"),
      row(section, "recall throughput", recalls.length / seconds, "req/s"),
      row(section, "reflect (wait) p95", ms(reflects, 95), "ms"),
      row(section, "reflect throughput", reflects.length / seconds, "runs/s"),
      row(
        section,
        "/api/health p95 during the load",
        healthP95,
        "ms",
        atMost(healthP95, HEALTH_P95_TARGET_MS, "ms"),
        "probe in its own process",
      ),
      row(
        section,
        "/api/health p95, asked from the load generator's process",
        inProcessHealthP95,
        "ms",
        undefined,
        "includes the generator's own backlog",
      ),
      row(section, "server event-loop delay p99 (last 5 s of the load)", loop?.p99Ms ?? Number.NaN, "ms"),
      row(section, "server event-loop delay max (last 5 s of the load)", loop?.maxMs ?? Number.NaN, "ms"),
      ...(await experimentsAndMcpMix(app.url, log)),
    ];
  } finally {
    await app.stop();
  }
}

const MIX_EXPERIMENTS = 5;
const MIX_CONCURRENCY = 16;
const MIX_MCP_CALLS = 40;
const MIX_QUESTIONS = 24;
const MIX_DEADLINE_MS = 180_000;

/**
 * Issue #28's mix: 5 experiments at concurrency 16 plus 40 MCP reflects at once (86 runs on 2 slots
 * before every run took a reflect slot). Reports /api/health p95 (probe in its own process) and the
 * peak number of running runs, read from /api/health's reflect slots in use (every run holds one)
 * and checked against the database's running runs.
 */
async function experimentsAndMcpMix(url: string, log: (line: string) => void): Promise<BenchRow[]> {
  const section = "8 load";
  const api = `${url}/api/v1`;
  const suite = await fetch(
    `${api}/banks/demo/suites`,
    post({
      name: "load-mix",
      questions: Array.from({ length: MIX_QUESTIONS }, (_, i) => ({
        question: `${DEMO_QUESTIONS[i % DEMO_QUESTIONS.length]}`,
      })),
    }),
  );
  if (!suite.ok) throw new Error(`could not create the mix suite: HTTP ${suite.status} ${await suite.text()}`);
  const slots = (
    (await (await fetch(`${url}/api/health`)).json()) as { admission: { reflect: { concurrency: number } } }
  ).admission.reflect.concurrency;
  let peakSlots = 0;
  let peakRunning = 0;
  let watching = true;
  const watch = (async () => {
    while (watching) {
      const h = (await (await fetch(`${url}/api/health`)).json()) as { admission: { reflect: { active: number } } };
      peakSlots = Math.max(peakSlots, h.admission.reflect.active);
      const running = (await (await fetch(`${api}/runs?status=running&limit=200`)).json()) as { runs?: unknown[] };
      peakRunning = Math.max(peakRunning, running.runs?.length ?? 0);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const probe = separateHealthProbe(`${url}/api/health`, 15_000);
  const started = performance.now();
  const experiments = await Promise.all(
    Array.from({ length: MIX_EXPERIMENTS }, async () => {
      const res = await fetch(
        `${api}/experiments`,
        post({ bank: "demo", suite: "load-mix", concurrency: MIX_CONCURRENCY }),
      );
      return ((await res.json()) as { id: string }).id;
    }),
  );
  const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const mcp = await Promise.all(
    Array.from({ length: MIX_MCP_CALLS }, async (_, i) => {
      const res = await fetch(`${url}/api/mcp`, {
        method: "POST",
        headers: mcpHeaders,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: i,
          method: "tools/call",
          params: { name: "memory_reflect", arguments: { question: DEMO_QUESTIONS[i % DEMO_QUESTIONS.length] } },
        }),
      });
      const text = await res.text();
      return /too_busy|already running/.test(text)
        ? "busy"
        : res.ok && !text.includes('"isError":true')
          ? "ok"
          : "error";
    }),
  );
  let finished = 0;
  for (const id of experiments) {
    while (performance.now() - started < MIX_DEADLINE_MS) {
      const e = (await (await fetch(`${api}/experiments/${id}`)).json()) as { status?: string };
      if (e.status && e.status !== "running") {
        finished++;
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const seconds = (performance.now() - started) / 1000;
  watching = false;
  await watch;
  const health = await probe;
  const healthP95 = percentile(
    health.samples.filter((s) => s.ok).map((s) => s.ms),
    95,
  );
  const count = (k: string) => mcp.filter((m) => m === k).length;
  log(
    `  mix: ${MIX_EXPERIMENTS} experiments × ${MIX_QUESTIONS} questions at concurrency ${MIX_CONCURRENCY} + ${MIX_MCP_CALLS} MCP reflects: ` +
      `${finished} experiments finished in ${seconds.toFixed(0)} s; MCP ${count("ok")} ok, ${count("busy")} busy, ${count("error")} errors; ` +
      `peak ${peakSlots} slots in use, ${peakRunning} running runs (slots ${slots})`,
  );
  return [
    row(
      section,
      "experiments + MCP mix: /api/health p95",
      healthP95,
      "ms",
      atMost(healthP95, HEALTH_P95_TARGET_MS, "ms"),
      `${MIX_EXPERIMENTS} experiments at concurrency ${MIX_CONCURRENCY} + ${MIX_MCP_CALLS} MCP reflects; probe in its own process (first 15 s)`,
    ),
    row(
      section,
      "experiments + MCP mix: peak running runs",
      peakRunning,
      "",
      atMost(peakRunning, slots, ""),
      `reflect slots: ${slots}`,
    ),
    row(section, "experiments + MCP mix: experiments finished", finished, "", {
      target: String(MIX_EXPERIMENTS),
      met: finished === MIX_EXPERIMENTS,
    }),
    row(section, "experiments + MCP mix: MCP reflects answered (ok + busy)", count("ok") + count("busy"), "", {
      target: String(MIX_MCP_CALLS),
      met: count("error") === 0,
    }),
  ];
}

/** Runs health-probe.mjs for `durationMs`; resolves with its samples and the last event-loop window. */
function separateHealthProbe(
  url: string,
  durationMs: number,
): Promise<{ samples: Sample[]; eventLoopDelay: EventLoopDelay | null }> {
  const child = spawn(
    process.execPath,
    [
      join(import.meta.dirname, "health-probe.mjs"),
      url,
      String(Math.round(durationMs)),
      String(HEALTH_EVERY_MS),
      String(DEADLINE_MS),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0) reject(new Error(`health probe exited with ${code}`));
      else resolve(JSON.parse(out) as { samples: Sample[]; eventLoopDelay: EventLoopDelay | null });
    });
  });
}

/**
 * CPU time the server's main thread (its event loop) spends per request, each kind sent one at a
 * time: what a request costs the thread every other request waits on. Linux only (read from /proc;
 * the server is the process listening on the app's port — `next start` serves from a child process).
 */
async function mainThreadCpuPerRequest(
  url: string,
  kinds: [string, () => Promise<Response>][],
  n = 200,
): Promise<[string, number][] | null> {
  if (process.platform !== "linux") return null;
  const port = new URL(url).port;
  const listening = execFileSync("ss", ["-ltnpH", `sport = :${port}`], { encoding: "utf8" });
  const pid = /pid=(\d+)/.exec(listening)?.[1];
  if (!pid) return null;
  // utime + stime of the main thread (its task id is the process id), in clock ticks of 10 ms.
  const ticks = () => {
    const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return Number(fields[11]) + Number(fields[12]);
  };
  const out: [string, number][] = [];
  for (const [name, send] of kinds) {
    const count = name === "reflect" ? n / 4 : n;
    for (let i = 0; i < 10; i++) await (await send()).arrayBuffer();
    const before = ticks();
    for (let i = 0; i < count; i++) await (await send()).arrayBuffer();
    out.push([name, ((ticks() - before) * 10) / count]);
  }
  return out;
}
