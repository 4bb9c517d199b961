/**
 * The offline model as a reader (issue 17): the demo-bank question set with what must lead each
 * answer (test/fixtures/offline-questions.ts), its score, and the model's own time per answer.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createOfflineModel } from "@/lib/llm";
import { termStatsPort } from "@/lib/server/runtime/model";
import { importBundle } from "@/lib/server/services/bundle-io";
import { OFFLINE_QUESTIONS, runOfflineQuestions } from "@/test/fixtures/offline-questions";
import { atMost, type BenchRow, median, openBenchDb, percentile, row } from "./report";

const SECTION = "offline";
const round = (ms: number) => Math.round(ms * 100) / 100;

export async function benchOffline(log: (line: string) => void): Promise<BenchRow[]> {
  const { db, cleanup } = await openBenchDb("offline");
  try {
    await importBundle(db, JSON.parse(readFileSync(resolve(process.cwd(), "db/demo/demo-bank.json"), "utf8")));
    const scores = await runOfflineQuestions(db);
    for (const s of scores) {
      const mark = s.leads ? "lead" : s.contains ? "in  " : "MISS";
      const expected = s.entry.notFound
        ? "not found"
        : [...(s.entry.ids ?? []), s.entry.text ?? ""].filter(Boolean).join(" | ");
      log(`  ${mark} ${s.entry.question}${s.entry.skill ? ` [${s.entry.skill}]` : ""}  (expects ${expected})`);
      log(`       → ${s.firstLine.length > 150 ? `${s.firstLine.slice(0, 150)}…` : s.firstLine}`);
    }
    const n = scores.length;
    const led = scores.filter((s) => s.leads).length;
    const contained = scores.filter((s) => s.contains).length;
    const answers = scores.flatMap((s) => s.calls.filter((c) => c.tool === "done"));
    const calls = scores.flatMap((s) => s.calls.map((c) => c.ms));
    const lookups = scores.flatMap((s) => s.lookupsMs);
    // In a run the call shares the CPU with the engine and the store; replaying each answer's exact
    // request against the model alone (median of 5) measures the model's own work.
    const replayed: number[] = [];
    for (const { request } of answers) {
      const model = createOfflineModel({ termStats: termStatsPort(db, "demo") });
      await model.complete(request);
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        await model.complete(request);
        times.push(performance.now() - started);
      }
      replayed.push(median(times));
    }
    const p95 = percentile(replayed, 95);
    const inRuns = answers.map((a) => a.ms);
    log(`  ${led}/${n} lead with what they must, ${contained}/${n} contain it`);
    return [
      row(
        SECTION,
        `questions (${OFFLINE_QUESTIONS.length}) whose first line holds what must lead`,
        Math.round((led / n) * 1000) / 10,
        "%",
        {
          target: "≥ 90 %",
          met: led / n >= 0.9,
        },
      ),
      row(SECTION, "questions whose answer contains it", Math.round((contained / n) * 1000) / 10, "%", {
        target: "= 100 %",
        met: contained === n,
      }),
      row(
        SECTION,
        "model time per answer (done), replayed alone: p95",
        round(p95),
        "ms",
        atMost(p95, 5, "ms"),
        `p50 ${round(median(replayed))} ms`,
      ),
      row(
        SECTION,
        "model time per answer inside runs: p95",
        round(percentile(inRuns, 95)),
        "ms",
        undefined,
        `p50 ${round(median(inRuns))} ms`,
      ),
      row(SECTION, "model time per call, any tool, inside runs: p95", round(percentile(calls, 95)), "ms"),
      row(SECTION, "term-statistics lookup (FTS5 vocab), p50", round(median(lookups)), "ms"),
    ];
  } finally {
    cleanup();
  }
}
