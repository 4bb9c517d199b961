/**
 * The missed-evidence probe's overhead per run (docs/engine.md#the-missed-evidence-probe) at 1k, 10k and 100k facts: the probe as
 * the engine runs it after an answer (lib/reflect/probe.ts) over the real store. Each simulated run
 * first searches two model queries in the three tiers with the tools' default depths (untimed), as
 * a run does; the probe then searches the question and those queries, skipping what the run saw in
 * full. As the engine runs it, the question's searches start before the run's own searches
 * (`startQuestionSearches`), a model query's that the run's search cannot stand for right after
 * that search (`startEarlySearch`), and the timed figure is the probe's wait after the answer; the whole
 * probe back to back (its question searches included) is timed too, with the CPU of every thread
 * (docs/performance.md#the-probe-at-100k). A further figure probes without the run's searches (every
 * query × tier: nine searches). The load average is printed beside the figures: the machine is shared.
 */
import { loadavg } from "node:os";
import { createMemoryStore } from "@/db/queries/memory-store";
import type { Tier } from "@/lib/reflect/domain";
import { Evidence } from "@/lib/reflect/evidence";
import type { MemoryPort, ProbeHitText, Retrieved } from "@/lib/reflect/ports";
import {
  isStrongMatchFor,
  matchText,
  PROBE_TOP_K,
  participantsOf,
  probe,
  probeHitsOf,
  probeQueries,
  sameAsProbeSearch,
  searchKey,
  seenInFull,
  startEarlySearch,
  startQuestionSearches,
} from "@/lib/reflect/probe";
import { clampMaxResults } from "@/lib/reflect/tools";
import { BENCH_BANK, createBenchBank, insertFacts, insertMentalModels, question } from "./corpus";
import { atMost, type BenchRow, median, openBenchDb, percentile, prng, row } from "./report";

const SIZES = [1_000, 10_000, 100_000];
const RUNS = 60;
const WARMUP = 5;
const TARGET_MS_AT_100K = 5;

const keywords = (text: string) =>
  text
    .split(/\s+/)
    .filter((w) => w.length > 4)
    .slice(0, 3)
    .join(" ");

const ENABLED: Tier[] = ["mental_models", "observations", "raw_facts"];

/**
 * A run's own retrieval: each model query in each tier at the tool's default depth, every hit seen.
 * With `early`, as the engine does: a search the probe must make itself starts right after the run's.
 */
async function simulatedRun(
  memory: MemoryPort,
  queries: string[],
  early?: { into: Map<string, Promise<ProbeHitText[]>>; question: string },
) {
  const evidence = new Evidence();
  const seen = new Set<string>();
  const runSearches = new Map<string, ProbeHitText[]>();
  for (const query of queries) {
    for (const tier of ENABLED) {
      const limit = clampMaxResults(tier, undefined);
      const q = { bankId: BENCH_BANK, query, limit, tags: [], scope: "team:platform" as const };
      const hits =
        tier === "mental_models"
          ? await memory.searchMentalModels(q)
          : tier === "observations"
            ? (await memory.searchObservations(q)).observations
            : await memory.recall(q);
      evidence.add({ tier, hits } as Retrieved);
      if (seenInFull({ limit, returned: hits.length, seen: hits.length })) seen.add(searchKey(tier, query));
      else if (sameAsProbeSearch({ limit, returned: hits.length }))
        runSearches.set(searchKey(tier, query), probeHitsOf({ tier, hits } as Retrieved));
      else if (early)
        startEarlySearch(
          {
            memory,
            bankId: BENCH_BANK,
            scope: "team:platform",
            tags: [],
            question: early.question,
            modelQueries: queries,
          },
          { tier, query },
          early.into,
        );
    }
  }
  return { evidence, seenInFull: seen, runSearches };
}

export async function benchProbe(log: (line: string) => void): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const { db, cleanup } = await openBenchDb("probe");
  try {
    const r = prng(7);
    await createBenchBank(db);
    await insertMentalModels(db, r);
    const memory = createMemoryStore(db);
    let have = 0;
    for (const size of SIZES) {
      await insertFacts(db, r, have, size);
      have = size;
      await db.$client.execute("PRAGMA optimize");
      const label = `${size / 1000}k`;
      const q = prng(size);
      const samples: number[] = [];
      const coldSamples: number[] = [];
      const cpuSamples: number[] = [];
      const wholeSamples: number[] = [];
      let hits = 0;
      let searches = 0;
      for (let i = 0; i < WARMUP + RUNS; i++) {
        const asked = question(q);
        const modelQueries = [keywords(asked), keywords(question(q))];
        const run = await simulatedRun(memory, modelQueries);
        const base = {
          memory,
          clock: { now: () => performance.now() },
          bankId: BENCH_BANK,
          scope: "team:platform" as const,
          tags: [],
          enabledTiers: ENABLED,
          question: asked,
          modelQueries,
        };
        // The whole probe back to back (its question searches included): what it costs, whenever it runs.
        const cpu = process.cpuUsage();
        const wholeStarted = performance.now();
        await probe({ ...base, ...run, questionSearches: startQuestionSearches(base) });
        const wholeMs = performance.now() - wholeStarted;
        const used = process.cpuUsage(cpu);
        // As the engine runs it: the question's searches start with the run, a model query's the run
        // cannot stand for right after the run's search, the rest after the answer.
        const early = startQuestionSearches(base);
        const again = await simulatedRun(memory, modelQueries, { into: early, question: asked });
        const started = performance.now();
        const result = await probe({ ...base, ...again, questionSearches: early });
        const ms = performance.now() - started;
        const coldStarted = performance.now();
        await probe({ ...base, evidence: new Evidence() });
        const coldMs = performance.now() - coldStarted;
        if (result.errors.length > 0) throw new Error(`probe failed: ${result.errors.join("; ")}`);
        if (i < WARMUP) continue;
        samples.push(ms);
        wholeSamples.push(wholeMs);
        coldSamples.push(coldMs);
        // Every thread of the process (the SQL worker threads too): the probe's work, whatever the wait for a core.
        cpuSamples.push((used.user + used.system) / 1000);
        hits += result.hits.length;
        searches +=
          probeQueries(asked, modelQueries).queries.length * ENABLED.length -
          run.seenInFull.size -
          run.runSearches.size;
      }
      const p50 = median(samples);
      const load = loadavg().map((l) => l.toFixed(2));
      const goal = size === 100_000 ? atMost(p50, TARGET_MS_AT_100K, "ms") : undefined;
      const note = `${(searches / RUNS).toFixed(1)} searches/run; load ${load.join(" ")}`;
      rows.push(
        row("probe", `probe per run @${label} p50`, p50, "ms", goal, note),
        row("probe", `probe per run @${label} p95`, percentile(samples, 95), "ms", undefined, note),
        row(
          "probe",
          `probe per run, question searches included (back to back) @${label} p50`,
          median(wholeSamples),
          "ms",
          undefined,
          note,
        ),
        row(
          "probe",
          `probe CPU per run, back to back @${label} p50`,
          median(cpuSamples),
          "ms",
          undefined,
          "all threads",
        ),
        row(
          "probe",
          `probe without the run's searches @${label} p50`,
          median(coldSamples),
          "ms",
          undefined,
          "9 searches",
        ),
      );
      log(
        `  ${label}: after the answer p50 ${p50.toFixed(2)} ms, p95 ${percentile(samples, 95).toFixed(2)} ms; back to back p50 ${median(wholeSamples).toFixed(2)} ms, CPU p50 ${median(cpuSamples).toFixed(2)} ms (${(searches / RUNS).toFixed(1)} searches, ${(hits / RUNS).toFixed(1)} of ${PROBE_TOP_K} hits/run); all nine searches p50 ${median(coldSamples).toFixed(2)} ms; load ${load.join(" ")}`,
      );
    }
  } finally {
    cleanup();
  }
  rows.push(speakerReading(log));
  return rows;
}

/**
 * Reading conversation turns as their speakers' (probe.ts `matchText` + `isStrongMatchFor`) in a
 * bank of 100 speakers: 80 turns, the probe's most (8 queries × 10 hits), each naming two others.
 */
function speakerReading(log: (line: string) => void): BenchRow {
  const speakers = Array.from({ length: 100 }, (_, i) => `Speaker${i} Family${i}`);
  const asked = "What did Speaker3 paint at the lake?";
  const turns = Array.from({ length: 80 }, (_, i) => ({
    speaker: speakers[i % 100]!,
    text: `Thanks Speaker${(i + 1) % 100}! I painted the lake with Family${(i + 7) % 100} at sunset, it was lovely.`,
  }));
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const started = performance.now();
    const people = participantsOf(asked, speakers);
    for (const t of turns) isStrongMatchFor(asked, matchText(t.text, t.speaker, people), people);
    if (i >= WARMUP) samples.push(performance.now() - started);
  }
  const p50 = median(samples);
  log(`  speaker reading, 100 speakers × 80 turns: p50 ${p50.toFixed(2)} ms`);
  return row("probe", "speaker reading, 100 speakers × 80 turns p50", p50, "ms", atMost(p50, TARGET_MS_AT_100K, "ms"));
}
