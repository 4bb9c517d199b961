/**
 * Review of issue #31: runs reading a bank while a JSONL `--replace` of it stages, swaps and
 * removes the old rows (docs/operations.md#big-imports), from another connection as a server and a
 * CLI would: every run finishes, none fails on the swap, and each search result a run was given is
 * wholly the old bank's or wholly the new one's, never a mix.
 */
import { describe, expect, it } from "vitest";
import { openDb } from "@/db/client";
import demo from "@/db/demo/demo-bank.json";
import { getRunEvents } from "@/db/queries/runs";
import { createOfflineModel } from "@/lib/llm";
import { runOwner } from "@/lib/server/runtime/run-owner";
import { importBundleLines } from "@/lib/server/services/bundle-io";
import { startRun } from "@/lib/server/services/runs";
import { openTempDb } from "./temp-db";

const FACTS = 6_000;

async function* bankLines(word: string) {
  yield JSON.stringify({ version: 1, bank: { id: "live", name: word, permittedTeams: [] } });
  // The demo bank's skills, so a run has a skill to run.
  for (const skill of demo.skills) yield JSON.stringify({ skill });
  for (let i = 0; i < FACTS; i++)
    yield JSON.stringify({
      fact: {
        id: `f${i}`,
        text: `The ${word} launch review ${i} moved to week ${i % 52}.`,
        kind: "world",
        tags: [],
        scope: "personal",
        recordedAt: "2026-01-01T00:00:00Z",
      },
    });
}

describe("runs reading a bank while it is replaced", () => {
  it("every run finishes, and each search it was given is the old bank's or the new one's", async () => {
    const t = await openTempDb("replace-while-reading");
    const server = await openDb(`file:${t.path}`);
    try {
      // One run owner per process (as a server is): its runs and the import name it.
      const ownerId = await runOwner(server);
      await importBundleLines(t.db, bankLines("quokka"), { ownerId });
      let replacing = true;
      const replace = importBundleLines(t.db, bankLines("wombat"), {
        replace: true,
        ownerId,
        rowsPerCommit: 1_000,
      }).finally(() => {
        replacing = false;
      });
      const runs: string[] = [];
      const statuses: string[] = [];
      while (replacing || runs.length < 3) {
        const { runId, finished } = await startRun(
          server,
          { mode: "facts", bankId: "live", question: "When did the launch review move?" },
          { model: createOfflineModel() },
        );
        runs.push(runId);
        statuses.push((await finished).status);
      }
      await replace;
      expect(
        statuses.every((s) => s === "done" || s === "no_evidence"),
        statuses.join(", "),
      ).toBe(true);
      const words = new Set<string>();
      for (const runId of runs) {
        for (const e of await getRunEvents(server, runId)) {
          if (e.type !== "tool.result") continue;
          const text = JSON.stringify(e.payload);
          const sawOld = text.includes("quokka");
          const sawNew = text.includes("wombat");
          expect(sawOld && sawNew, `run ${runId} was given old and new memories in one search`).toBe(false);
          if (sawOld) words.add("quokka");
          if (sawNew) words.add("wombat");
        }
      }
      expect(runs.length).toBeGreaterThanOrEqual(3);
      // Runs started while it staged read the old bank; those after its swap, the new one.
      expect([...words].sort()).toEqual(["quokka", "wombat"]);
    } finally {
      server.$client.close();
      t.cleanup();
    }
  }, 180_000);
});
