/**
 * Stored bytes per run (issue 31): offline runs of the demo question set, and of LoCoMo questions
 * when its file is beside the project, on a new libSQL file. Bytes per run = the file's growth
 * (WAL checkpointed) ÷ runs; also the events as stored (packed once a run finishes) and as they
 * were emitted (whole); what packing costs in time (reading, the sink, the pack); then a prune of
 * every run and the file it leaves.
 */
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Db } from "@/db/client";
import { pruneRuns } from "@/db/queries/retention";
import { encodePacks } from "@/db/queries/run-event-codec";
import { createRun, createRunSink, getRun, getRunEvents, packRunEvents } from "@/db/queries/runs";
import type { RunEvent } from "@/lib/reflect/events";
import { importBundle } from "@/lib/server/services/bundle-io";
import { startRun } from "@/lib/server/services/runs";
import { OFFLINE_QUESTIONS } from "@/test/fixtures/offline-questions";
import { importLocomo, readLocomo } from "./locomo-data";
import { type BenchRow, median, openBenchDb, row, TMP_DIR } from "./report";

const SECTION = "storage";
const TARGET_KB = 15;
const LOCOMO_QUESTIONS = 40;

const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;

async function fileBytes(db: Db, path: string): Promise<number> {
  await db.$client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
  return statSync(path).size;
}

async function measure(
  db: Db,
  path: string,
  label: string,
  jobs: { bankId: string; question: string; skill?: string }[],
  log: (line: string) => void,
): Promise<{ rows: BenchRow[]; costs: () => Promise<BenchRow[]> }> {
  const before = await fileBytes(db, path);
  const ids: string[] = [];
  for (const job of jobs) {
    const { runId, finished } = await startRun(db, {
      bankId: job.bankId,
      question: job.question,
      skill: job.skill,
      mode: "synthesize",
    });
    await finished;
    ids.push(runId);
  }
  const grown = (await fileBytes(db, path)) - before;
  const n = ids.length;
  const placeholders = ids.map(() => "?").join(", ");
  const { rows } = await db.$client.execute({
    sql: `SELECT (SELECT coalesce(sum(length(payload)), 0) FROM run_events WHERE run_id IN (${placeholders})) AS rows,
                 (SELECT coalesce(sum(length(data)), 0) FROM run_event_packs WHERE run_id IN (${placeholders})) AS packs,
                 (SELECT count(*) FROM run_event_packs WHERE run_id IN (${placeholders})) AS npacks,
                 (SELECT coalesce(sum(length(skill_snapshot) + length(coalesce(retrieved, '')) + length(coalesce(citations, ''))
                   + length(coalesce(answer, ''))), 0) FROM runs WHERE id IN (${placeholders})) AS runrow`,
    args: [...ids, ...ids, ...ids, ...ids],
  });
  const r: Record<string, unknown> = rows[0] ?? {};
  const stored = Number(r.rows) + Number(r.packs);
  // As the engine emitted them (the release before deltas stored every payload whole).
  const events: RunEvent[][] = [];
  for (const id of ids) events.push(await getRunEvents(db, id));
  const whole = events.flat().reduce((sum, e) => sum + JSON.stringify(e.payload).length, 0);
  log(
    `  ${label}: ${n} runs, file +${kb(grown / n)} KB/run; events ${kb(stored / n)} KB/run stored (${Number(r.npacks)} packs, ${kb(Number(r.rows) / n)} KB in rows; ${kb(whole / n)} KB whole); run row's snapshot, retrieved, citations and answer ${kb(Number(r.runrow) / n)} KB/run`,
  );
  const rowsOut = [
    row(SECTION, `${label}: database file growth per stored run (${n} offline runs)`, kb(grown / n), "KB", {
      target: `≤ ${TARGET_KB} KB`,
      met: grown / n <= TARGET_KB * 1024,
    }),
    row(
      SECTION,
      `${label}: events per run, stored (packed once finished) / as emitted (whole)`,
      kb(stored / n),
      "KB",
      undefined,
      `${kb(whole / n)} KB whole`,
    ),
  ];
  // Timed after every file measurement: the copies it writes and removes would leave free pages
  // that a later measurement's runs fill.
  const costs = async () =>
    (await readAndWriteCosts(db, ids, events, log)).map((c) =>
      row(SECTION, `${label}: ${c.metric}`, c.value, "ms", undefined, c.note),
    );
  return { rows: rowsOut, costs };
}

const ms = (x: number) => Math.round(x * 1000) / 1000;

/**
 * What packing costs and saves in time, per run (median of REPEATS passes over all runs): reading a
 * run's events packed and as rows (the same events written by the sink to a run left running, as
 * every run was stored before packs), the sink's appends and flushes, and packing a finished run.
 */
async function readAndWriteCosts(
  db: Db,
  ids: string[],
  events: RunEvent[][],
  log: (line: string) => void,
): Promise<{ metric: string; value: number; note: string }[]> {
  const REPEATS = 5;
  const n = ids.length;
  const passes = async (fn: (i: number) => Promise<unknown>) => {
    const totals: number[] = [];
    for (let k = 0; k < REPEATS; k++) {
      let total = 0;
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await fn(i);
        total += performance.now() - t;
      }
      totals.push(total / n);
    }
    return median(totals);
  };
  const readPacked = await passes((i) => getRunEvents(db, ids[i] as string));
  const run = await getRun(db, ids[0] as string);
  const copies: string[] = [];
  let sinkMs = 0;
  for (let k = 0; k < REPEATS; k++) {
    let total = 0;
    for (let i = 0; i < n; i++) {
      const id = `bench_rows_${k}_${i}_${ids[i]}`;
      await createRun(db, {
        id,
        bankId: run?.bankId ?? "demo",
        question: "q",
        skill: null,
        budget: "mid",
        mode: "synthesize",
        scope: "personal",
        model: { kind: "offline", name: "offline" },
      });
      copies.push(id);
      const sink = createRunSink(db, id);
      const t = performance.now();
      for (const e of events[i] ?? []) await sink.append({ ...e, runId: id });
      await sink.flush();
      total += performance.now() - t;
    }
    sinkMs = k === 0 ? total / n : Math.min(sinkMs, total / n);
  }
  const rowsOf = copies.slice(0, n);
  const readRows = await passes((i) => getRunEvents(db, rowsOf[i] as string));
  const placeholders = copies.map(() => "?").join(", ");
  await db.$client.execute({ sql: `UPDATE runs SET status = 'done' WHERE id IN (${placeholders})`, args: copies });
  const packTimes: number[] = [];
  for (let k = 0; k < REPEATS; k++) {
    let total = 0;
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await packRunEvents(db, copies[k * n + i] as string);
      total += performance.now() - t;
    }
    packTimes.push(total / n);
  }
  const encodeRuns: number[] = [];
  for (let r = 0; r < REPEATS; r++) {
    const t = performance.now();
    for (const e of events) await encodePacks(e);
    encodeRuns.push((performance.now() - t) / n);
  }
  const encodeMs = median(encodeRuns);
  for (let i = 0; i < n; i++) {
    const again = await getRunEvents(db, copies[i] as string);
    if (JSON.stringify(again.map((e) => ({ ...e, runId: ids[i] }))) !== JSON.stringify(events[i])) {
      throw new Error(`run ${ids[i]}: events read back from its packed copy differ from the ones appended`);
    }
  }
  await pruneCopies(db, copies);
  const perEvent = events.flat().length / n;
  log(
    `    read a run's events: packed ${ms(readPacked)} ms, as rows ${ms(readRows)} ms; sink append+flush ${ms(sinkMs)} ms/run (${Math.round(perEvent)} events); pack at finish ${ms(median(packTimes))} ms/run (encode ${ms(encodeMs)} ms)`,
  );
  return [
    {
      metric: "read a run's events, packed (median per run)",
      value: ms(readPacked),
      note: `as rows: ${ms(readRows)} ms`,
    },
    {
      metric: "sink: append and flush a run's events (per run, best of passes)",
      value: ms(sinkMs),
      note: `${Math.round(perEvent)} events per run`,
    },
    {
      metric: "pack a finished run's events: read rows, encode, write (median per run)",
      value: ms(median(packTimes)),
      note: `of which encode ${ms(encodeMs)} ms`,
    },
  ];
}

async function pruneCopies(db: Db, ids: string[]) {
  for (let i = 0; i < ids.length; i += 200) {
    const part = ids.slice(i, i + 200);
    const placeholders = part.map(() => "?").join(", ");
    await db.$client.batch(
      ["run_events", "run_event_packs", "run_mental_model_reads"]
        .map((t) => ({ sql: `DELETE FROM ${t} WHERE run_id IN (${placeholders})`, args: part }))
        .concat([{ sql: `DELETE FROM runs WHERE id IN (${placeholders})`, args: part }]),
      "write",
    );
  }
  // The prune row below measures the file the runs made, not the copies' free pages.
  await db.$client.executeMultiple("PRAGMA incremental_vacuum;");
}

export async function benchStorage(log: (line: string) => void): Promise<BenchRow[]> {
  const { db, cleanup } = await openBenchDb("storage");
  const path = join(TMP_DIR, "bench-storage", "bench.db");
  try {
    await importBundle(db, JSON.parse(readFileSync(resolve(process.cwd(), "db/demo/demo-bank.json"), "utf8")));
    const demo = await measure(
      db,
      path,
      "demo",
      OFFLINE_QUESTIONS.map((q) => ({ bankId: "demo", question: q.question, ...(q.skill ? { skill: q.skill } : {}) })),
      log,
    );
    const rows = [...demo.rows];
    const conversations = readLocomo();
    let locomo: Awaited<ReturnType<typeof measure>> | null = null;
    if (conversations?.[0]) {
      const [bankId] = await importLocomo(db, conversations.slice(0, 1));
      const jobs = conversations[0].items
        .slice(0, LOCOMO_QUESTIONS)
        .map((item) => ({ bankId: bankId as string, question: item.question }));
      locomo = await measure(db, path, "LoCoMo conversation 1", jobs, log);
      rows.push(...locomo.rows);
    } else {
      log("  LoCoMo file not found beside the project: its rows are skipped");
    }
    rows.push(...(await demo.costs()));
    if (locomo) rows.push(...(await locomo.costs()));

    const before = await fileBytes(db, path);
    const started = performance.now();
    const pruned = await pruneRuns(db, { rule: { keep: 0 } });
    const ms = performance.now() - started;
    const after = statSync(path).size;
    log(`  prune of ${pruned.deleted} runs: ${Math.round(ms)} ms, file ${kb(before)} → ${kb(after)} KB`);
    rows.push(
      row(
        SECTION,
        `prune of every run (${pruned.deleted} runs, ${pruned.deletedEvents} events), incremental vacuum: time; file before → after`,
        Math.round(ms),
        "ms",
        undefined,
        `${kb(before)} → ${kb(after)} KB`,
      ),
    );
    return rows;
  } finally {
    cleanup();
  }
}
