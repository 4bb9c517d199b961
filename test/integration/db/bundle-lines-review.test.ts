/**
 * Review of the staged JSONL import (lib/server/services/bundle-io.ts `importBundleLines`,
 * docs/operations.md#big-imports): a stop that comes while the import waits for its next line, and
 * two imports racing to create the same bank.
 */
import { describe, expect, it } from "vitest";
import { getBank } from "@/db/queries/banks";
import { isAppError } from "@/lib/contracts/errors";
import { importBundleLines, removeStagedImport } from "@/lib/server/services/bundle-io";
import { openTempDb } from "./temp-db";

const header = (id: string) => JSON.stringify({ version: 1, bank: { id, name: `Bank ${id}`, permittedTeams: [] } });
const fact = (i: number) =>
  JSON.stringify({
    fact: {
      id: `f${i}`,
      text: `Note ${i}.`,
      kind: "world",
      tags: [],
      scope: "personal",
      recordedAt: "2026-01-01T00:00:00Z",
    },
  });

/** The lines, then a producer that never writes again (a stalled pipe) until `release` is called. */
function stalled(lines: string[]) {
  let release = () => {};
  const gate = new Promise<void>((r) => {
    release = r;
  });
  async function* gen() {
    for (const line of lines) yield line;
    await gate;
  }
  return { lines: gen(), release };
}

async function* stalledDone(lines: string[]) {
  for (const line of lines) yield line;
}

const stagedRows = async (t: Awaited<ReturnType<typeof openTempDb>>) =>
  (await t.db.$client.execute("SELECT id FROM banks WHERE import_owner IS NOT NULL")).rows.map((r) => String(r.id));

describe("a staged JSONL import under review", () => {
  it("a stop (Ctrl-C, TERM) while the import waits on a stalled producer ends it at once and removes its staging", async () => {
    const t = await openTempDb("lines-stop-stalled");
    const source = stalled([header("slow"), fact(1), fact(2)]);
    try {
      const stop = new AbortController();
      const importing = importBundleLines(t.db, source.lines, { ownerId: "owner-a", signal: stop.signal }).catch(
        (e: unknown) => e,
      );
      // The staging exists (the header was read), then the producer stalls.
      await expect.poll(() => stagedRows(t)).toEqual(["slow"]);
      stop.abort();
      const outcome = await Promise.race([importing, new Promise((r) => setTimeout(() => r("still waiting"), 3_000))]);
      expect(isAppError(outcome, "invalid_input"), String(outcome)).toBe(true);
      expect((outcome as Error).message).toMatch(/stopped: nothing was imported/);
      expect(await stagedRows(t)).toEqual([]);
      expect(await getBank(t.db, "slow")).toBeNull();
    } finally {
      source.release();
      t.cleanup();
    }
  });

  it("two imports creating the same new bank at once: the second is refused with a clear message, the first completes", async () => {
    const t = await openTempDb("lines-race");
    const first = stalled([header("twin"), fact(1)]);
    try {
      const importingFirst = importBundleLines(t.db, first.lines, { ownerId: "owner-a" });
      await expect.poll(() => stagedRows(t)).toEqual(["twin"]);
      async function* second() {
        yield header("twin");
        yield fact(9);
      }
      const error = await importBundleLines(t.db, second(), { ownerId: "owner-b" }).catch((e: unknown) => e);
      expect(isAppError(error, "invalid_bundle"), String(error)).toBe(true);
      expect((error as Error).message).toMatch(/being imported by another process/);
      first.release();
      const done = await importingFirst;
      expect(done.counts.facts).toBe(1);
      expect((await getBank(t.db, "twin"))?.name).toBe("Bank twin");
    } finally {
      first.release();
      t.cleanup();
    }
  });
  it.each([
    ["a new bank", false, false],
    ["a new bank with a mental model", false, true],
    ["a replace with a mental model", true, true],
  ])(
    "%s whose staging a sweep removed after its last chunk: refused, never reported imported",
    async (_n, replace, withModel) => {
      const t = await openTempDb("lines-swept-late");
      try {
        if (replace) await importBundleLines(t.db, stalledDone([header("late"), fact(0)]), { ownerId: "owner-0" });
        const db = t.db;
        async function* lines() {
          yield header("late");
          yield fact(1);
          if (withModel)
            yield JSON.stringify({
              mentalModel: { id: "mm1", name: "Billing", sourceQuery: "billing", content: "Slips.", tags: [] },
            });
          // Every row is written (one per chunk); then a sweep that judged this process gone removes the staging.
          for (const id of await stagedRows(t)) await removeStagedImport(db, id, "owner-a");
        }
        const outcome = await importBundleLines(db, lines(), { ownerId: "owner-a", rowsPerCommit: 1, replace }).catch(
          (e: unknown) => e,
        );
        expect(isAppError(outcome, "unavailable"), JSON.stringify(outcome)).toBe(true);
        expect((outcome as Error).message).toMatch(/staging was removed/);
        const models = await db.$client.execute("SELECT bank_id FROM mental_models");
        expect(models.rows).toEqual([]);
        expect(await getBank(db, "late")).toEqual(replace ? expect.objectContaining({ id: "late" }) : null);
      } finally {
        t.cleanup();
      }
    },
  );
});
