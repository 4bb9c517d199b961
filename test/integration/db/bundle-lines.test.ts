/**
 * Bundle import from JSON lines (lib/server/services/bundle-io.ts `importBundleLines`, the CLI's `import x.jsonl`):
 * the same bank as a JSON bundle, written in batches inside one transaction, so a bad line anywhere
 * — even after several batches were written — leaves nothing imported.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { openDb } from "@/db/client";
import { insertFacts as retainFacts } from "@/db/queries/retain";
import { searchFacts } from "@/db/queries/search";
import { isAppError } from "@/lib/contracts/errors";
import { runOwner } from "@/lib/server/runtime/run-owner";
import { exportBundle, importBundle, importBundleLines } from "@/lib/server/services/bundle-io";
import { cliInProcess } from "../cli/cli-process";
import { openTempDb } from "./temp-db";

const header = (id: string) => JSON.stringify({ version: 1, bank: { id, name: `Bank ${id}`, permittedTeams: [] } });
const fact = (i: number, text = `Note ${i}: the billing rollout moved to week ${i % 52}.`) =>
  JSON.stringify({
    fact: {
      id: `f${i}`,
      text,
      kind: "world",
      tags: i % 2 ? ["billing"] : [],
      scope: "personal",
      recordedAt: "2026-01-01T00:00:00Z",
    },
  });
const observation = (id: string, sources: string[]) =>
  JSON.stringify({
    observation: {
      id,
      text: "Billing rollouts slip.",
      tags: [],
      scope: "personal",
      sourceFactIds: sources,
      updatedAt: "2026-01-02T00:00:00Z",
    },
  });
const model = JSON.stringify({
  mentalModel: { id: "mm1", name: "Billing", sourceQuery: "billing", content: "Slips.", tags: [] },
});
const skill = JSON.stringify({
  skill: { id: "s1", name: "billing", mission: "Answer about billing.", retrieval: { types: ["observation"] } },
});

const suite = JSON.stringify({
  suite: { name: "billing-gate", description: "", questions: [{ question: "Does billing slip?", skill: "billing" }] },
});

async function* linesOf(lines: string[]) {
  for (const line of lines) yield line;
}

/** More facts than one write batch holds, so a late bad line comes after rows were written. */
const MANY = 2_500;

describe("import from JSON lines", () => {
  it("imports facts, observations, mental models, skills and suites as the JSON bundle would", async () => {
    const t = await openTempDb("lines-ok");
    try {
      const lines = [
        header("big"),
        ...Array.from({ length: MANY }, (_, i) => fact(i)),
        "",
        observation("o1", ["f1", "f2"]),
        model,
        skill,
        suite,
      ];
      const result = await importBundleLines(t.db, linesOf(lines), { ownerId: await runOwner(t.db) });
      expect(result).toEqual({
        bankId: "big",
        counts: { facts: MANY, observations: 1, mentalModels: 1, skills: 1, suites: 1 },
      });
      const exported = await exportBundle(t.db, "big");
      expect(exported?.facts).toHaveLength(MANY);
      expect(exported?.suites.map((x) => x.name)).toEqual(["billing-gate"]);
      // The same records through the JSON bundle path give the same bank.
      const other = await openTempDb("lines-json");
      try {
        await importBundle(other.db, exported);
        expect(await exportBundle(other.db, "big")).toEqual(exported);
      } finally {
        other.cleanup();
      }
      const found = await searchFacts(t.db, {
        bankId: "big",
        query: "week 7",
        limit: 5,
        tags: ["billing"],
        scopes: ["personal"],
      });
      expect(found.length).toBeGreaterThan(0);
    } finally {
      t.cleanup();
    }
  });

  it("a replace swaps the staged bank in: only the new memories, searchable, and later writes are indexed as before", async () => {
    const t = await openTempDb("lines-replace");
    try {
      const ownerId = await runOwner(t.db);
      const old = (i: number) => fact(i, `Old note ${i}: the quokka budget was approved.`);
      await importBundleLines(t.db, linesOf([header("swap"), ...Array.from({ length: 900 }, (_, i) => old(i))]), {
        ownerId,
      });
      const triggerCount = async () =>
        Number(
          (
            await t.db.$client.execute(
              "SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ('facts', 'observations')",
            )
          ).rows[0]?.n,
        );
      const triggersBefore = await triggerCount();
      const fresh = (i: number) => fact(i, `New note ${i}: the wombat launch moved to March.`);
      const result = await importBundleLines(
        t.db,
        linesOf([header("swap"), ...Array.from({ length: 1_200 }, (_, i) => fresh(i)), model]),
        { replace: true, ownerId, rowsPerCommit: 300 },
      );
      expect(result.counts.facts).toBe(1_200);
      const search = (query: string) =>
        searchFacts(t.db, { bankId: "swap", query, limit: 5, tags: [], scopes: ["personal"] });
      expect(await search("quokka budget")).toEqual([]);
      expect((await search("wombat launch")).length).toBe(5);
      // The rows are the staging's, now the bank's storage (db/queries/bank-storage.ts); the old ones are gone.
      const count = await t.db.$client.execute(
        "SELECT count(*) AS n FROM facts WHERE bank_id = (SELECT storage_id FROM banks WHERE id = 'swap')",
      );
      expect(Number(count.rows[0]?.n)).toBe(1_200);
      expect(Number((await t.db.$client.execute("SELECT count(*) AS n FROM facts")).rows[0]?.n)).toBe(1_200);
      // No staging left (its row stays as the storage, owned by no import), the upkeep triggers are
      // as they were, and nothing is pending.
      const banksLeft = await t.db.$client.execute("SELECT id, import_owner FROM banks WHERE id <> 'demo' ORDER BY id");
      expect(banksLeft.rows.map((r) => [String(r.id).replace(/^~import-.*/, "~import-…"), r.import_owner])).toEqual([
        ["swap", null],
        ["~import-…", null],
      ]);
      expect(await triggerCount()).toBe(triggersBefore);
      expect(triggersBefore).toBeGreaterThan(0);
      // A write after the swap is indexed like any other.
      await retainFacts(t.db, "swap", [
        { text: "The platypus review is on Friday.", kind: "world", scope: "personal", tags: [] },
      ]);
      expect((await search("platypus review")).length).toBe(1);
    } finally {
      t.cleanup();
    }
  });

  it.each([
    ["a line that is not JSON", "{not json", /line \d+: not JSON/],
    [
      "a fact missing its text",
      JSON.stringify({ fact: { id: "x", kind: "world", scope: "personal", recordedAt: "2026-01-01T00:00:00Z" } }),
      /line \d+: fact\.text/,
    ],
    ["a duplicate fact id", fact(3), /duplicate id "f3"/],
    ["an observation citing an unknown fact", observation("o9", ["nope"]), /unknown fact id "nope"/],
    ["an unknown record type", JSON.stringify({ run: {} }), /expected one of fact, observation/],
  ])("%s late in the file: nothing imported, the line named", async (_name, badLine, message) => {
    const t = await openTempDb("lines-bad");
    try {
      await importBundle(t.db, { version: 1, bank: { id: "big", name: "Before", permittedTeams: [] }, facts: [] });
      const lines = [header("big"), ...Array.from({ length: MANY }, (_, i) => fact(i)), badLine, fact(MANY + 1)];
      // Small chunks: several are committed (to the invisible staging) before the bad line.
      const error = await importBundleLines(t.db, linesOf(lines), {
        replace: true,
        ownerId: await runOwner(t.db),
        rowsPerCommit: 300,
      }).catch((e: unknown) => e);
      expect(isAppError(error, "invalid_bundle")).toBe(true);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain(`line ${MANY + 2}`);
      // The replaced bank is as it was: its name, no facts.
      const bank = await exportBundle(t.db, "big");
      expect(bank?.bank.name).toBe("Before");
      expect(bank?.facts).toEqual([]);
      const rows = await t.db.$client.execute("SELECT COUNT(*) AS n FROM facts");
      expect(Number(rows.rows[0]?.n)).toBe(0);
      // The staging is gone: its bank row, its rows (above) and its indexes.
      const banksLeft = await t.db.$client.execute("SELECT id FROM banks");
      expect(banksLeft.rows.map((r) => r.id)).toEqual(["big"]);
      const tables = await t.db.$client.execute("SELECT name FROM sqlite_master WHERE name LIKE 'facts_fts_%'");
      expect(
        tables.rows
          .map((r) => String(r.name))
          .filter((n) => !n.startsWith(`facts_fts_${Buffer.from("big").toString("hex")}`)),
      ).toEqual([]);
    } finally {
      t.cleanup();
    }
  });

  it("refuses a bank that exists unless replace is set, and a file without a header", async () => {
    const t = await openTempDb("lines-exists");
    try {
      const o = { ownerId: await runOwner(t.db) };
      await importBundleLines(t.db, linesOf([header("a"), fact(1)]), o);
      await expect(importBundleLines(t.db, linesOf([header("a"), fact(2)]), o)).rejects.toThrow(/already exists/);
      await expect(importBundleLines(t.db, linesOf([fact(1)]), o)).rejects.toThrow(/line 1/);
      await expect(importBundleLines(t.db, linesOf([]), o)).rejects.toThrow(/empty/);
    } finally {
      t.cleanup();
    }
  });
});

describe("cli import of a .jsonl file", { timeout: 60_000 }, () => {
  const root = resolve(import.meta.dirname, "../../..");
  const dir = resolve(root, "test/.tmp", `lines-cli-${process.pid}-${Date.now()}`);
  const dbUrl = `file:${join(dir, "cli.db")}`;
  // In-process (`runCli`): the same command, at no process start-up.
  const cli = cliInProcess(dbUrl);

  it("streams a good file in, and a bad line or bytes that are not UTF-8 import nothing (exit 2)", async () => {
    mkdirSync(dir, { recursive: true });
    try {
      const good = join(dir, "good.jsonl");
      writeFileSync(good, `${[header("lines"), ...Array.from({ length: 1_200 }, (_, i) => fact(i))].join("\r\n")}\n`);
      const ok = await cli("import", good);
      expect(ok.stderr).toBe("");
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain("imported bank lines: 1200 facts");

      const bad = join(dir, "bad.jsonl");
      writeFileSync(bad, [header("other"), fact(1), "{oops"].join("\n"));
      const refused = await cli("import", bad);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/line 3: not JSON/);

      const binary = join(dir, "binary.jsonl");
      writeFileSync(
        binary,
        Buffer.concat([Buffer.from(`${header("binary")}\n`), Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a])]),
      );
      const notText = await cli("import", binary);
      expect(notText.code).toBe(2);
      expect(notText.stderr).toMatch(/not UTF-8/);

      // A line longer than any record (16 Mi characters) is refused, not held in memory.
      const huge = join(dir, "huge.jsonl");
      writeFileSync(huge, `${header("huge")}\n${fact(1)}\n{"fact":{"text":"${"x".repeat(17 * 1_048_576)}`);
      const tooLong = await cli("import", huge);
      expect(tooLong.code).toBe(2);
      expect(tooLong.stderr).toMatch(/a line is longer than 16 Mi characters; nothing was imported/);

      const db = await openDb(dbUrl, { threads: false });
      try {
        const banks = (await db.$client.execute("SELECT id FROM banks ORDER BY id")).rows.map((r) => String(r.id));
        expect(banks).not.toContain("other");
        expect(banks).not.toContain("binary");
        expect(banks).not.toContain("huge");
        expect(banks).toContain("lines");
      } finally {
        db.$client.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
