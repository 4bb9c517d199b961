/**
 * §3 Engine overhead per iteration: the real engine and the real run sink (every event validated
 * and inserted into a libSQL file) with a zero-latency scripted model, so the time measured is
 * everything but the model: prompt building, guards, the ladder, event appends and persistence.
 * The memory port is the in-memory Atlas bank (retrieval is §1's figure); a second, informational
 * figure uses the real store on the demo bank. Then the same run with a model taking 300 ms/call.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { importBundle } from "@/db/bundle-io";
import type { Db } from "@/db/client";
import { createMemoryStore } from "@/db/memory-store";
import { createRun, createRunSink } from "@/db/runs";
import { runReflect } from "@/lib/reflect/engine";
import { RunEvent } from "@/lib/reflect/events";
import type { MemoryPort, ModelPort } from "@/lib/reflect/ports";
import type { ReflectResult } from "@/lib/reflect/request";
import { call, done, forcedTool, reply, ScriptedModel } from "@/test/fixtures/scripted-model";
import { atlasMemory, request, SKILL } from "@/test/unit/reflect/harness";
import { atMost, type BenchRow, median, openBenchDb, row, timed } from "./report";

const RUNS = 20;
const SLOW_RUNS = 2;
const MODEL_LATENCY_MS = 300;

/** Obeys forced tiers, then keeps recalling with a new query each turn until the forced final `done`. */
function busyModel(query: string, cite: { memory_ids?: string[]; mental_model_ids?: string[] }, delayMs = 0) {
  return new ScriptedModel(async (req, index) => {
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    const forced = forcedTool(req);
    if (forced === "done") return reply(done("Atlas launches on March 14.", cite));
    if (forced) return reply(call(forced, { reason: "forced tier", query }));
    return reply(call("recall", { reason: `look again (${index})`, query: `${query} ${index}` }));
  });
}

let runSeq = 0;

async function persistedRun(
  db: Db,
  memory: MemoryPort,
  model: ModelPort,
  bankId: string,
  budget: "low" | "high",
  persist = true,
) {
  const runId = `bench_run_${++runSeq}`;
  const req = request({ runId, bankId, budget });
  await createRun(db, {
    id: runId,
    bankId,
    question: String(req.question),
    skill: SKILL,
    budget,
    mode: "synthesize",
    scope: "personal",
    model: model.info,
  });
  let n = 0;
  return timed(
    (): Promise<ReflectResult> =>
      runReflect(
        {
          memory,
          model,
          sink: persist ? createRunSink(db, runId) : { append: async (e) => void RunEvent.parse(e) },
          clock: { now: () => Date.now() },
          ids: { next: (prefix) => `${prefix}_${++n}` },
        },
        req,
      ),
  );
}

async function perIteration(db: Db, memory: () => MemoryPort, model: () => ModelPort, bankId: string, persist = true) {
  const samples: number[] = [];
  let iterations = 0;
  for (let i = 0; i < RUNS + 2; i++) {
    const t = await persistedRun(db, memory(), model(), bankId, "high", persist);
    // A halted or failed run would stop early and flatter the per-iteration figure.
    if (t.value.iterations < 20) throw new Error(`overhead run ended ${t.value.status}: ${t.value.answer}`);
    iterations = t.value.iterations;
    if (i >= 2) samples.push(t.ms / t.value.iterations);
  }
  return { perIterationMs: median(samples), iterations };
}

export async function benchOverhead(log: (line: string) => void): Promise<BenchRow[]> {
  const { db, cleanup } = await openBenchDb("overhead");
  try {
    const atlas = await perIteration(
      db,
      () => atlasMemory(),
      () => busyModel("Atlas launch", { memory_ids: ["f1"] }),
      "bank",
    );
    log(`  in-memory port: ${atlas.perIterationMs.toFixed(2)} ms/iteration over ${atlas.iterations} iterations`);
    const unpersisted = await perIteration(
      db,
      () => atlasMemory(),
      () => busyModel("Atlas launch", { memory_ids: ["f1"] }),
      "bank",
      false,
    );

    await importBundle(db, JSON.parse(readFileSync(resolve(process.cwd(), "db/demo/demo-bank.json"), "utf8")));
    const demo = await perIteration(
      db,
      () => createMemoryStore(db),
      () => busyModel("launch date", {}),
      "demo",
    );
    log(`  demo bank store: ${demo.perIterationMs.toFixed(2)} ms/iteration`);

    const slow: { ms: number; calls: number }[] = [];
    for (let i = 0; i < SLOW_RUNS; i++) {
      const t = await persistedRun(
        db,
        atlasMemory(),
        busyModel("Atlas launch", { memory_ids: ["f1"] }, MODEL_LATENCY_MS),
        "bank",
        "low",
      );
      slow.push({ ms: t.ms, calls: t.value.llmCalls });
    }
    const share = median(slow.map((s) => (s.ms - s.calls * MODEL_LATENCY_MS) / s.ms)) * 100;
    const section = "3 engine overhead";
    return [
      row(
        section,
        "overhead per iteration (zero-latency model, real sink)",
        atlas.perIterationMs,
        "ms",
        atMost(atlas.perIterationMs, 2, "ms"),
        `${atlas.iterations}-iteration runs, median of ${RUNS}`,
      ),
      row(section, "of which engine alone (events validated, not stored)", unpersisted.perIterationMs, "ms"),
      row(section, "overhead per iteration incl. retrieval on the demo bank store", demo.perIterationMs, "ms"),
      row(
        section,
        `overhead share of a run with a ${MODEL_LATENCY_MS} ms/call model`,
        share,
        "%",
        undefined,
        "measured",
      ),
    ];
  } finally {
    cleanup();
  }
}
