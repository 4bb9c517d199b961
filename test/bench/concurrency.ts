/**
 * §5 Concurrency: 20 offline reflect runs started at once through the run service on one database
 * file (the demo bank). Afterwards every run's event log is checked, not assumed: seqs contiguous
 * 0..n-1 with no duplicate, exactly one `run.finished` and it is last, and the run row agrees.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { getRun, getRunEvents } from "@/db/queries/runs";
import { createOfflineModel } from "@/lib/llm";
import { importBundle } from "@/lib/server/services/bundle-io";
import { startRun } from "@/lib/server/services/runs";
import { type BenchRow, openBenchDb, percentile, row, timed } from "./report";

const RUNS = 20;
const QUESTIONS = [
  "What pricing tiers did we decide on?",
  "What is the Atlas launch date and what does the launch depend on?",
  "What is blocking the SSO rollout?",
  "How did the Acme Logistics pilot go?",
  "Where is the ClickHouse pipeline migration?",
];
const SKILLS = ["recap", "decisions", "blockers", "prep", "actionables"];

export async function benchConcurrency(log: (line: string) => void): Promise<BenchRow[]> {
  const { db, cleanup } = await openBenchDb("concurrency");
  try {
    await importBundle(db, JSON.parse(readFileSync(resolve(process.cwd(), "db/demo/demo-bank.json"), "utf8")));
    const model = createOfflineModel();
    const wall = await timed(() =>
      Promise.all(
        Array.from({ length: RUNS }, (_, i) =>
          timed(async () => {
            const started = await startRun(
              db,
              {
                mode: "synthesize",
                bankId: "demo",
                question: QUESTIONS[i % QUESTIONS.length]!,
                skill: SKILLS[i % SKILLS.length],
              },
              { model },
            );
            return { runId: started.runId, result: await started.finished };
          }),
        ),
      ),
    );
    const problems: string[] = [];
    let events = 0;
    for (const { value } of wall.value) {
      const { runId, result } = value;
      const log_ = await getRunEvents(db, runId);
      events += log_.length;
      const seqs = log_.map((e) => e.seq);
      if (seqs.some((s, i) => s !== i)) problems.push(`${runId}: seqs not contiguous 0..${log_.length - 1}`);
      const finished = log_.filter((e) => e.type === "run.finished");
      if (finished.length !== 1) problems.push(`${runId}: ${finished.length} run.finished events`);
      if (log_.at(-1)?.type !== "run.finished") problems.push(`${runId}: last event is ${log_.at(-1)?.type}`);
      if (log_.some((e) => e.runId !== runId)) problems.push(`${runId}: foreign event`);
      const stored = await getRun(db, runId);
      if (stored?.status !== result.status) problems.push(`${runId}: row ${stored?.status}, result ${result.status}`);
      if (result.status === "failed") problems.push(`${runId}: failed (${result.error?.message})`);
    }
    // Finished runs' events are packed (db/queries/run-event-codec.ts): rows plus packed events.
    const total = Number(
      (
        await db.$client.execute(
          "SELECT (SELECT COUNT(*) FROM run_events) + (SELECT coalesce(sum(events), 0) FROM run_event_packs) AS n",
        )
      ).rows[0]?.n ?? Number.NaN,
    );
    if (total !== events) problems.push(`the store holds ${total} events, the runs account for ${events}`);
    for (const p of problems) log(`  ✗ ${p}`);
    const durations = wall.value.map((t) => t.ms);
    const section = "5 concurrency";
    return [
      row(section, `${RUNS} concurrent offline runs: wall time`, wall.ms, "ms"),
      row(section, "throughput", (RUNS / wall.ms) * 1000, "runs/s"),
      row(section, "run time p95", percentile(durations, 95), "ms"),
      row(
        section,
        "lost, duplicated or misordered events / bad runs",
        problems.length,
        "",
        {
          target: "0",
          met: problems.length === 0,
        },
        `${events} events checked`,
      ),
    ];
  } finally {
    cleanup();
  }
}
