/**
 * The missed-evidence probe's overhead per run (SPEC §8) at 1k, 10k and 100k facts: the probe as
 * the engine runs it after an answer (lib/reflect/probe.ts) over the real store, searching the
 * question and the model's distinct queries in every tier. A typical run issues one or two distinct
 * queries (the forced tiers reuse the first), so each probe searches the question plus two queries
 * in three tiers: nine searches. The load average is printed beside the figures: the machine is shared.
 */
import { loadavg } from "node:os";
import { createMemoryStore } from "@/db/memory-store";
import { Evidence } from "@/lib/reflect/evidence";
import { PROBE_TOP_K, probe } from "@/lib/reflect/probe";
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
      let hits = 0;
      for (let i = 0; i < WARMUP + RUNS; i++) {
        const asked = question(q);
        const started = performance.now();
        const result = await probe({
          memory,
          clock: { now: () => performance.now() },
          bankId: BENCH_BANK,
          scope: "team:platform",
          tags: [],
          enabledTiers: ["mental_models", "observations", "raw_facts"],
          question: asked,
          modelQueries: [keywords(asked), keywords(question(q))],
          evidence: new Evidence(),
        });
        const ms = performance.now() - started;
        if (result.errors.length > 0) throw new Error(`probe failed: ${result.errors.join("; ")}`);
        if (i < WARMUP) continue;
        samples.push(ms);
        hits += result.hits.length;
      }
      const p50 = median(samples);
      const load = loadavg().map((l) => l.toFixed(2));
      const goal = size === 100_000 ? atMost(p50, TARGET_MS_AT_100K, "ms") : undefined;
      const note = `3 queries × 3 tiers; load ${load.join(" ")}`;
      rows.push(
        row("probe", `probe per run @${label} p50`, p50, "ms", goal, note),
        row("probe", `probe per run @${label} p95`, percentile(samples, 95), "ms", undefined, note),
      );
      log(
        `  ${label}: p50 ${p50.toFixed(2)} ms, p95 ${percentile(samples, 95).toFixed(2)} ms, ${(hits / RUNS).toFixed(1)} of ${PROBE_TOP_K} hits/run; load ${load.join(" ")}`,
      );
    }
  } finally {
    cleanup();
  }
  return rows;
}
