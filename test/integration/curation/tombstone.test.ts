/**
 * Deleting a mental model leaves a tombstone: its versions stay readable (past runs' "v1" links),
 * while lists, search, reflect and bundles see only live models. Upgrading a database made before
 * the tombstone migration keeps its models.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { openDb } from "@/db/client";
import { createMemoryStore } from "@/db/queries/memory-store";
import { getRunEvents } from "@/db/queries/runs";
import { isAppError } from "@/lib/contracts/errors";
import { MentalModelDraft } from "@/lib/contracts/mental-models";
import { createOfflineModel } from "@/lib/llm";
import { ensureDemoBank } from "@/lib/server/runtime/db";
import { exportBundle } from "@/lib/server/services/bundle-io";
import {
  deleteMentalModelById,
  getMentalModelPage,
  listMentalModelRows,
  saveMentalModelDraft,
} from "@/lib/server/services/mental-models";
import { startRun } from "@/lib/server/services/runs";
import { openTempDb } from "../db/temp-db";

let db: Db;
let cleanup: () => void;

beforeAll(async () => {
  ({ db, cleanup } = await openTempDb("tombstone"));
  await ensureDemoBank(db);
});
afterAll(() => cleanup());

describe("a deleted mental model", () => {
  it("keeps its versions readable, read-only, and disappears from lists, search, reflect and bundles", async () => {
    const before = await getMentalModelPage(db, "demo", "mm-pricing");
    expect(before?.deleted).toBeNull();
    const versions = before?.versions.length ?? 0;
    expect(versions).toBeGreaterThan(0);

    const query = { bankId: "demo", query: "pricing", tags: [], limit: 10, scope: "personal" } as const;
    expect((await createMemoryStore(db).searchMentalModels({ ...query, tags: [] })).map((m) => m.id)).toContain(
      "mm-pricing",
    );
    await deleteMentalModelById(db, { bankId: "demo", id: "mm-pricing" });

    const page = await getMentalModelPage(db, "demo", "mm-pricing", 1);
    expect(page?.deleted?.at).toBeTruthy();
    expect(page?.versions.length).toBe(versions);
    expect(page?.model.content).toBe(before?.model.content);
    expect(page?.seen?.version).toBe(1);

    expect((await listMentalModelRows(db, "demo")).map((r) => r.id)).not.toContain("mm-pricing");
    const store = createMemoryStore(db);
    const found = await store.searchMentalModels({
      bankId: "demo",
      query: "pricing",
      tags: [],
      limit: 10,
      scope: "personal",
    });
    expect(found.map((m) => m.id)).not.toContain("mm-pricing");
    const bundle = await exportBundle(db, "demo");
    expect(bundle?.mentalModels.map((m) => m.id)).not.toContain("mm-pricing");

    const { runId, finished } = await startRun(
      db,
      { bankId: "demo", question: "What is our pricing for the pilot?", budget: "low", mode: "synthesize" },
      { model: createOfflineModel() },
    );
    await finished;
    const read = (await getRunEvents(db, runId)).flatMap((e) =>
      e.type === "tool.result" ? e.payload.ids.mental_models : [],
    );
    expect(read).not.toContain("mm-pricing");

    // Deleting again is not_found; a new model of the same name gets a fresh id.
    const again = await deleteMentalModelById(db, { bankId: "demo", id: "mm-pricing" }).catch((e: unknown) => e);
    expect(isAppError(again, "not_found")).toBe(true);
    const created = await saveMentalModelDraft(
      db,
      MentalModelDraft.parse({
        bankId: "demo",
        expectedVersion: 0,
        name: "Pricing",
        sourceQuery: "What is our pricing?",
        content: "New pricing summary.",
        tags: [],
        staleOverride: "auto",
      }),
    );
    expect(created.id).not.toBe("mm-pricing");
    expect(created.version).toBe(1);
  });
});

describe("the tombstone migration", () => {
  it("upgrades a database made before it, keeping its models and versions", async () => {
    const dir = mkdtempSync(join(resolve(process.cwd(), "test/.tmp"), "upgrade-"));
    try {
      // The migrations as they were before this one.
      const old = join(dir, "migrations");
      cpSync(resolve(process.cwd(), "db/migrations"), old, { recursive: true });
      const journalPath = join(old, "meta", "_journal.json");
      const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
      const tombstone = journal.entries.findIndex((e) => e.tag.endsWith("_mental_model_tombstones"));
      expect(tombstone).toBeGreaterThan(0);
      journal.entries = journal.entries.slice(0, tombstone);
      writeFileSync(journalPath, JSON.stringify(journal));

      const url = `file:${join(dir, "old.db")}`;
      const client = createClient({ url });
      await migrate(drizzle({ client }), { migrationsFolder: old });
      await client.execute("INSERT INTO banks (id, name, permitted_teams) VALUES ('b', 'B', '[]')");
      await client.execute(
        `INSERT INTO mental_models (id, bank_id, name, source_query, content, tags, refreshed_at, stale_override, based_on_ids, version, updated_at)
         VALUES ('mm-x', 'b', 'X', 'q?', 'old content', '[]', NULL, NULL, '[]', 1, '2026-01-01T00:00:00.000Z')`,
      );
      await client.execute(
        `INSERT INTO mental_model_versions (bank_id, model_id, version, name, source_query, content, tags, refreshed_at, stale_override, based_on_ids, created_at)
         VALUES ('b', 'mm-x', 1, 'X', 'q?', 'old content', '[]', NULL, NULL, '[]', '2026-01-01T00:00:00.000Z')`,
      );
      client.close();

      const upgraded = await openDb(url, { threads: false });
      try {
        expect((await listMentalModelRows(upgraded, "b")).map((r) => r.id)).toEqual(["mm-x"]);
        await deleteMentalModelById(upgraded, { bankId: "b", id: "mm-x" });
        const page = await getMentalModelPage(upgraded, "b", "mm-x");
        expect(page?.deleted).not.toBeNull();
        expect(page?.model.content).toBe("old content");
      } finally {
        upgraded.$client.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
