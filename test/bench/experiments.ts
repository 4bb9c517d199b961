/**
 * Experiments (issue 15): a 50-question suite on the demo bank with the offline model, its wall time
 * and runs per second at concurrency 1, 4 and 8. Informational: the machine's load decides them.
 * Issue 26: when the shared LoCoMo development file is beside the project, its 999 questions as five
 * suites (one per conversation) run one after the other at concurrency 4 (goal ≥ 20 questions/s).
 */
import { existsSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { saveSuite } from "@/db/queries/suites";
import { StartExperimentInput } from "@/lib/contracts/experiments";
import type { SuiteQuestion } from "@/lib/contracts/suites";
import { createOfflineModel } from "@/lib/llm";
import { termStatsPort } from "@/lib/server/runtime/model";
import { importLocomo } from "@/lib/server/services/benchmarks";
import { importBundle } from "@/lib/server/services/bundle-io";
import { startExperiment } from "@/lib/server/services/experiments";
import { OFFLINE_QUESTIONS } from "@/test/fixtures/offline-questions";
import { DEFAULT_LOCOMO_PATH } from "./locomo-data";
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
    return [...rows, ...(await benchLocomoExperiments(log))];
  } finally {
    cleanup();
  }
}

/** LoCoMo's development half as experiments, offline, concurrency 4 (skipped when the file is absent). */
async function benchLocomoExperiments(log: (line: string) => void): Promise<BenchRow[]> {
  if (!existsSync(DEFAULT_LOCOMO_PATH)) {
    log(`  LoCoMo development file not found at ${DEFAULT_LOCOMO_PATH}: its experiments are skipped`);
    return [];
  }
  const { db, cleanup } = await openBenchDb("experiments-locomo");
  try {
    const imported = await importLocomo(db, JSON.parse(readFileSync(DEFAULT_LOCOMO_PATH, "utf8")), {
      prefix: "locomo-",
      replace: true,
      minF1: 0.5,
    });
    let questions = 0;
    let passed = 0;
    const started = performance.now();
    for (const b of imported.banks) {
      if (!b.suite) continue;
      const model = createOfflineModel({ termStats: termStatsPort(db, b.bankId) });
      const { finished } = await startExperiment(
        db,
        StartExperimentInput.parse({ bankId: b.bankId, suite: b.suite, concurrency: 4 }),
        { model },
      );
      const e = await finished;
      questions += e.totals.finished;
      passed += e.totals.passed;
    }
    const ms = performance.now() - started;
    const perSecond = Math.round((questions / (ms / 1000)) * 10) / 10;
    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
    log(
      `  LoCoMo dev as experiments: ${questions} questions in ${Math.round(ms)} ms, ${perSecond}/s, ${passed} passed (load ${load})`,
    );
    return [
      row(
        SECTION,
        `LoCoMo dev (${questions} questions, 5 suites), concurrency 4: questions per second`,
        perSecond,
        "q/s",
        { target: "≥ 20 q/s", met: perSecond >= 20 },
        `load ${load}`,
      ),
    ];
  } finally {
    cleanup();
  }
}
