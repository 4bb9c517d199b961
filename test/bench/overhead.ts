/**
 * §3 Engine overhead per iteration: the real engine and the real run sink (every event validated
 * and written to a libSQL file opened as the server opens it, SQL on worker threads, in one
 * statement per flush point: db/queries/runs.ts) with a zero-latency scripted model, so the time measured
 * is everything but the model: prompt building, guards, the ladder, event appends and persistence.
 * The memory port is the in-memory Atlas bank (retrieval is §1's figure); a second, informational
 * figure uses the real store on the demo bank. Then the same run with a model taking 300 ms/call.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Db } from "@/db/client";
import { createMemoryStore } from "@/db/queries/memory-store";
import { createRun, createRunSink } from "@/db/queries/runs";
import { runReflect } from "@/lib/reflect/engine";
import { RunEvent } from "@/lib/reflect/events";
import type { MemoryPort, ModelPort, RunSink } from "@/lib/reflect/ports";
import type { ReflectResult } from "@/lib/reflect/request";
import { importBundle } from "@/lib/server/services/bundle-io";
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

/**
 * How events are stored: `batched` is the app's sink (one write per flush point), `per-event` the
 * same sink flushed after every append (one write per event, as before batching, for the ratio),
 * `none` validates events and stores nothing (the engine alone).
 */
type Persist = "batched" | "per-event" | "none";

function sinkFor(db: Db, runId: string, persist: Persist): RunSink {
  if (persist === "none") return { append: async (e) => void RunEvent.parse(e) };
  const sink = createRunSink(db, runId);
  if (persist === "batched") return sink;
  return {
    async append(e) {
      await sink.append(e);
      await sink.flush();
    },
    flush: () => sink.flush(),
  };
}

async function persistedRun(
  db: Db,
  memory: MemoryPort,
  model: ModelPort,
  bankId: string,
  budget: "low" | "high",
  persist: Persist = "batched",
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
          sink: sinkFor(db, runId, persist),
          clock: { now: () => Date.now() },
          ids: { next: (prefix) => `${prefix}_${++n}` },
        },
        req,
      ),
  );
}

/** Median ms per iteration of each `persist` variant, the variants' runs interleaved. */
async function perIteration<P extends Persist>(
  db: Db,
  memory: () => MemoryPort,
  model: () => ModelPort,
  bankId: string,
  variants: readonly P[],
): Promise<Record<P, number> & { iterations: number }> {
  const samples = new Map<P, number[]>(variants.map((v) => [v, []]));
  let iterations = 0;
  for (let i = 0; i < RUNS + 2; i++) {
    for (const persist of variants) {
      const t = await persistedRun(db, memory(), model(), bankId, "high", persist);
      // A halted or failed run would stop early and flatter the per-iteration figure.
      if (t.value.iterations < 20) throw new Error(`overhead run ended ${t.value.status}: ${t.value.answer}`);
      iterations = t.value.iterations;
      if (i >= 2) samples.get(persist)?.push(t.ms / t.value.iterations);
    }
  }
  const medians = Object.fromEntries(variants.map((v) => [v, median(samples.get(v) ?? [])])) as Record<P, number>;
  return { ...medians, iterations };
}

export async function benchOverhead(log: (line: string) => void): Promise<BenchRow[]> {
  const { db, cleanup } = await openBenchDb("overhead");
  try {
    const atlas = await perIteration(
      db,
      () => atlasMemory(),
      () => busyModel("Atlas launch", { memory_ids: ["f1"] }),
      "bank",
      ["batched", "per-event", "none"],
    );
    log(
      `  in-memory port: ${atlas.batched.toFixed(2)} ms/iteration over ${atlas.iterations} iterations (one write per event, interleaved: ${atlas["per-event"].toFixed(2)} ms; engine alone ${atlas.none.toFixed(2)} ms)`,
    );

    await importBundle(db, JSON.parse(readFileSync(resolve(process.cwd(), "db/demo/demo-bank.json"), "utf8")));
    const demo = await perIteration(
      db,
      () => createMemoryStore(db),
      () => busyModel("launch date", {}),
      "demo",
      ["batched"],
    );
    log(`  demo bank store: ${demo.batched.toFixed(2)} ms/iteration`);

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
        atlas.batched,
        "ms",
        atMost(atlas.batched, 2, "ms"),
        `${atlas.iterations}-iteration runs, median of ${RUNS}`,
      ),
      row(section, "same, one write per event (before batching; runs interleaved)", atlas["per-event"], "ms"),
      row(section, "batched ÷ one write per event", atlas.batched / atlas["per-event"], "×"),
      row(section, "of which engine alone (events validated, not stored)", atlas.none, "ms"),
      row(section, "overhead per iteration incl. retrieval on the demo bank store", demo.batched, "ms"),
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
