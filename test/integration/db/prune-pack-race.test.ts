/**
 * Review of issue #31: `runs prune` and the background packing of finished runs
 * (docs/performance.md#stored-bytes-per-run) running at once, from two connections as from two
 * processes: every run is either removed whole (no row, pack or read left of it) or kept whole and
 * reading as it was appended, and neither side fails.
 */
import { describe, expect, it } from "vitest";
import { openDb } from "@/db/client";
import { pruneRuns } from "@/db/queries/retention";
import { createRun, createRunSink, getRunEvents, packFinishedRuns } from "@/db/queries/runs";
import type { RunEvent } from "@/lib/reflect/events";
import { openTempDb } from "./temp-db";

const RUNS = 60;

function events(runId: string, n: number): RunEvent[] {
  return Array.from(
    { length: n },
    (_, seq) =>
      ({
        runId,
        seq,
        at: seq,
        type: "tool.call",
        iteration: seq,
        payload: {
          callId: `c${seq}`,
          tool: "recall",
          tier: null,
          query: `${runId} ${seq} ${"q".repeat(seq * 50)}`,
          reason: null,
          args: {},
        },
      }) as unknown as RunEvent,
  );
}

describe("runs prune and packing at once", () => {
  it("each run is removed whole or kept whole and reading as appended", async () => {
    const t = await openTempDb("prune-pack-race");
    const other = await openDb(`file:${t.path}`);
    try {
      const appended = new Map<string, string>();
      for (let i = 0; i < RUNS; i++) {
        const id = `run_${String(i).padStart(3, "0")}`;
        await createRun(t.db, {
          id,
          bankId: "demo",
          question: `q${i}`,
          skill: null,
          budget: "low",
          mode: "synthesize",
          scope: "personal",
          model: { kind: "offline", name: "offline" },
        });
        const list = events(id, 20 + (i % 7));
        const sink = createRunSink(t.db, id);
        for (const e of list) await sink.append(e);
        await sink.flush();
        appended.set(id, JSON.stringify(list));
      }
      // Finished long ago, as the runs prune removes; no pack yet (as stored before packs, or interrupted).
      await t.db.$client.execute(
        "UPDATE runs SET status = 'done', created_at = '2020-01-01T00:00:00.000Z', finished_at = '2020-01-01T00:00:01.000Z'",
      );

      const [packed, pruned] = await Promise.all([
        packFinishedRuns(t.db, RUNS),
        pruneRuns(other, { rule: { keep: RUNS / 2 } }),
      ]);
      expect(packed.failed).toEqual([]);
      expect(pruned.deleted).toBe(RUNS / 2);

      const left = (await t.db.$client.execute("SELECT id FROM runs ORDER BY id")).rows.map((r) => String(r.id));
      expect(left).toHaveLength(RUNS / 2);
      const orphans = await t.db.$client.execute(
        `SELECT (SELECT count(*) FROM run_events WHERE run_id NOT IN (SELECT id FROM runs)) AS rows,
                (SELECT count(*) FROM run_event_packs WHERE run_id NOT IN (SELECT id FROM runs)) AS packs`,
      );
      expect(orphans.rows[0]).toMatchObject({ rows: 0, packs: 0 });
      for (const id of left) expect(JSON.stringify(await getRunEvents(t.db, id))).toBe(appended.get(id));
      // What the pass could not pack while the prune held the lock is packed by the next one.
      await packFinishedRuns(t.db, RUNS);
      const rows = await t.db.$client.execute("SELECT count(*) AS n FROM run_events");
      expect(Number(rows.rows[0]?.n)).toBe(0);
      for (const id of left) expect(JSON.stringify(await getRunEvents(t.db, id))).toBe(appended.get(id));
    } finally {
      other.$client.close();
      t.cleanup();
    }
  }, 120_000);

  it("runs that cannot be packed, once skipped, do not stall the packing of later runs", async () => {
    const t = await openTempDb("pack-skip");
    try {
      for (const id of ["run_bad", "run_good"]) {
        await createRun(t.db, {
          id,
          bankId: "demo",
          question: id,
          skill: null,
          budget: "low",
          mode: "synthesize",
          scope: "personal",
          model: { kind: "offline", name: "offline" },
        });
        const sink = createRunSink(t.db, id);
        for (const e of events(id, 5)) await sink.append(e);
        await sink.flush();
      }
      await t.db.$client.execute("UPDATE runs SET status = 'done', finished_at = created_at");
      await t.db.$client.execute("UPDATE runs SET created_at = '2020-01-01T00:00:00.000Z' WHERE id = 'run_bad'");
      // A damaged row: its run cannot be packed (its rows stay as they are).
      await t.db.$client.execute("UPDATE run_events SET payload = '{' WHERE run_id = 'run_bad' AND seq = 2");

      const first = await packFinishedRuns(t.db, 1);
      expect(first).toMatchObject({ runs: 0, failed: ["run_bad"] });
      // Without the skip the oldest (bad) run is picked again and again; with it the next one is packed.
      expect(await packFinishedRuns(t.db, 1)).toMatchObject({ runs: 0, failed: ["run_bad"] });
      expect(await packFinishedRuns(t.db, 1, new Set(first.failed))).toMatchObject({ runs: 1, events: 5, failed: [] });
      const left = await t.db.$client.execute("SELECT DISTINCT run_id FROM run_events");
      expect(left.rows.map((r) => String(r.run_id))).toEqual(["run_bad"]);
    } finally {
      t.cleanup();
    }
  });
});
