/**
 * Review of the staged JSONL import (lib/server/services/bundle-io.ts `importBundleLines`,
 * docs/operations.md#big-imports): a stop that comes while the import waits for its next line, and
 * two imports racing to create the same bank.
 */
import { describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { getBank } from "@/db/queries/banks";
import { isAppError } from "@/lib/contracts/errors";
import { importBundle, importBundleLines, removeStagedImport } from "@/lib/server/services/bundle-io";
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

  /**
   * The database as the import sees it, where `competitor` runs once, just before the import's
   * first write: another import makes the bank after this one checked it was free.
   */
  const racedBy = (db: Db, competitor: () => Promise<unknown>): Db => {
    let raced = false;
    const client = new Proxy(db.$client, {
      get(target, key, receiver) {
        if (key !== "batch") return Reflect.get(target, key, receiver);
        return async (...args: Parameters<Db["$client"]["batch"]>) => {
          if (!raced) {
            raced = true;
            await competitor();
          }
          return target.batch(...args);
        };
      },
    });
    return new Proxy(db, {
      get: (target, key, receiver) => (key === "$client" ? client : Reflect.get(target, key, receiver)),
    });
  };
  const emptyBundle = (id: string) => ({
    version: 1,
    bank: { id, name: `Bundle ${id}`, permittedTeams: [] },
    facts: [],
    observations: [],
    mentalModels: [],
    skills: [],
    suites: [],
  });

  it.each([
    ["another JSONL import finished it", "done", false, /bank "twin" already exists \(import with replace/],
    ["another JSONL import is staging it", "staging", false, /being imported by another process/],
    ["a bundle import made it", "bundle", false, /bank "twin" already exists \(import with replace/],
    [
      "another import finished it (this one a replace of a bank not there yet)",
      "done",
      true,
      /already exists: another import made it at the same time \(import again to overwrite/,
    ],
  ])(
    "two imports of one new bank, both checked before either wrote (%s): refused by name, not a raw UNIQUE error; the other's bank is whole",
    async (_n, competitor, replace, message) => {
      const t = await openTempDb("lines-race-checked");
      const gate = stalled([header("twin"), fact(7)]);
      let staging: Promise<unknown> = Promise.resolve();
      try {
        const other =
          competitor === "bundle"
            ? () => importBundle(t.db, emptyBundle("twin"))
            : competitor === "done"
              ? () => importBundleLines(t.db, stalledDone([header("twin"), fact(7)]), { ownerId: "owner-b" })
              : async () => {
                  staging = importBundleLines(t.db, gate.lines, { ownerId: "owner-b" }).catch(() => {});
                  await expect.poll(() => stagedRows(t)).toEqual(["twin"]);
                };
        const error = await importBundleLines(racedBy(t.db, other), stalledDone([header("twin"), fact(1), fact(2)]), {
          ownerId: "owner-a",
          replace,
        }).catch((e: unknown) => e);
        expect(isAppError(error, "invalid_bundle"), String(error)).toBe(true);
        expect((error as Error).message).toMatch(message);
        expect((error as Error).message).not.toMatch(/SQLITE|UNIQUE/);
        // The winner's rows only: this import wrote nothing.
        const facts = await t.db.$client.execute("SELECT id FROM facts ORDER BY id");
        expect(facts.rows.map((r) => String(r.id))).toEqual(competitor === "done" ? ["f7"] : []);
        if (competitor !== "staging") expect(await stagedRows(t)).toEqual([]);
      } finally {
        gate.release();
        await staging;
        t.cleanup();
      }
    },
  );
});
