/**
 * Experiments (issue 15): a 50-question suite on the demo bank with the offline model, its wall time
 * and runs per second at concurrency 1, 4 and 8. Informational: the machine's load decides them.
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { importBundle } from "@/db/bundle-io";
import { saveSuite } from "@/db/suites";
import { StartExperimentInput } from "@/lib/contracts/experiments";
import type { SuiteQuestion } from "@/lib/contracts/suites";
import { createOfflineModel } from "@/lib/llm";
import { startExperiment } from "@/lib/server/experiments";
import { termStatsPort } from "@/lib/server/model";
import { OFFLINE_QUESTIONS } from "@/test/fixtures/offline-questions";
import { type BenchRow, openBenchDb, row } from "./report";

const SECTION = "experiments";
const QUESTIONS = 50;

export async function benchExperiments(log: (line: string) => void): Promise<BenchRow[]> {
  const { db, cleanup } = await openBenchDb("experiments");
  try {
    await importBundle(db, JSON.parse(readFileSync(resolve(process.cwd(), "db/demo/demo-bank.json"), "utf8")));
    const questions: SuiteQuestion[] = Array.from({ length: QUESTIONS }, (_, i) => {
      const q = OFFLINE_QUESTIONS[i % OFFLINE_QUESTIONS.length]!;
      return { question: q.question, ...(q.skill ? { skill: q.skill } : {}) };
    });
    await saveSuite(db, { bankId: "demo", name: "bench-50", description: "", questions, expectedVersion: 0 });
    const model = createOfflineModel({ termStats: termStatsPort(db, "demo") });
    const rows: BenchRow[] = [];
    for (const concurrency of [1, 4, 8]) {
      const started = performance.now();
      const { finished } = await startExperiment(
        db,
        StartExperimentInput.parse({ bankId: "demo", suite: "bench-50", concurrency }),
        { model },
      );
      const e = await finished;
      const ms = performance.now() - started;
      const perSecond = Math.round((e.totals.finished / (ms / 1000)) * 10) / 10;
      const load = loadavg()
        .map((l) => l.toFixed(2))
        .join(" ");
      log(
        `  concurrency ${concurrency}: ${Math.round(ms)} ms, ${perSecond} runs/s, ${e.totals.passed}/${e.totals.questions} finished (load ${load})`,
      );
      rows.push(
        row(
          SECTION,
          `50-question suite, concurrency ${concurrency}: wall time`,
          Math.round(ms),
          "ms",
          undefined,
          `load ${load}`,
        ),
        row(SECTION, `50-question suite, concurrency ${concurrency}: runs per second`, perSecond, "runs/s"),
      );
    }
    return rows;
  } finally {
    cleanup();
  }
}
