/**
 * Stored bytes per run (issue 31): offline runs of the demo question set, and of LoCoMo questions
 * when its file is beside the project, on a new libSQL file. Bytes per run = the file's growth
 * (WAL checkpointed) ÷ runs; also the event payloads as stored and as they were stored whole (the
 * previous release), by event type; then a prune of every run and the file it leaves.
 */
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Db } from "@/db/client";
import { pruneRuns } from "@/db/queries/retention";
import { getRunEvents } from "@/db/queries/runs";
import { importBundle } from "@/lib/server/services/bundle-io";
import { startRun } from "@/lib/server/services/runs";
import { OFFLINE_QUESTIONS } from "@/test/fixtures/offline-questions";
import { importLocomo, readLocomo } from "./locomo-data";
import { type BenchRow, openBenchDb, row, TMP_DIR } from "./report";

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
): Promise<BenchRow[]> {
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
    sql: `SELECT type, count(*) AS n, sum(length(payload)) AS bytes FROM run_events
          WHERE run_id IN (${placeholders}) GROUP BY type ORDER BY bytes DESC`,
    args: ids,
  });
  const stored = rows.reduce((sum, r) => sum + Number(r.bytes), 0);
  // What the previous release stored: every payload whole, as the engine emitted it.
  let whole = 0;
  for (const id of ids) for (const e of await getRunEvents(db, id)) whole += JSON.stringify(e.payload).length;
  const top = rows
    .slice(0, 3)
    .map((r) => `${r.type} ${kb(Number(r.bytes) / n)}`)
    .join(", ");
  log(
    `  ${label}: ${n} runs, file +${kb(grown / n)} KB/run; event payloads ${kb(stored / n)} KB/run stored (${kb(whole / n)} KB whole); largest: ${top} KB/run`,
  );
  return [
    row(SECTION, `${label}: database file growth per stored run (${n} offline runs)`, kb(grown / n), "KB", {
      target: `≤ ${TARGET_KB} KB`,
      met: grown / n <= TARGET_KB * 1024,
    }),
    row(
      SECTION,
      `${label}: event payloads per run, stored / as emitted (whole); largest stored types`,
      kb(stored / n),
      "KB",
      undefined,
      `${kb(whole / n)} KB whole; ${top} KB/run`,
    ),
  ];
}

export async function benchStorage(log: (line: string) => void): Promise<BenchRow[]> {
  const { db, cleanup } = await openBenchDb("storage");
  const path = join(TMP_DIR, "bench-storage", "bench.db");
  try {
    await importBundle(db, JSON.parse(readFileSync(resolve(process.cwd(), "db/demo/demo-bank.json"), "utf8")));
    const rows = await measure(
      db,
      path,
      "demo",
      OFFLINE_QUESTIONS.map((q) => ({ bankId: "demo", question: q.question, ...(q.skill ? { skill: q.skill } : {}) })),
      log,
    );
    const conversations = readLocomo();
    if (conversations?.[0]) {
      const [bankId] = await importLocomo(db, conversations.slice(0, 1));
      const jobs = conversations[0].items
        .slice(0, LOCOMO_QUESTIONS)
        .map((item) => ({ bankId: bankId as string, question: item.question }));
      rows.push(...(await measure(db, path, "LoCoMo conversation 1", jobs, log)));
    } else {
      log("  LoCoMo file not found beside the project: its rows are skipped");
    }

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
