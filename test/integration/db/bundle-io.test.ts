import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { listMentalModels } from "@/db/queries/mental-models";
import { ftsTable } from "@/db/queries/search-index";
import { getSkillVersions } from "@/db/queries/skills";
import type { BundleInput } from "@/lib/contracts/bundle";
import { type AppError, isAppError } from "@/lib/contracts/errors";
import { exportBundle, importBundle } from "@/lib/server/services/bundle-io";
import { sampleBundle } from "./sample-bundle";
import { openTempDb } from "./temp-db";

const TABLES = [
  "banks",
  "facts",
  "observations",
  "mental_models",
  "mental_model_versions",
  "skills",
  "skill_versions",
  ftsTable("facts", "acme"),
];

async function snapshot(db: Db): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of TABLES) {
    const order = table.includes("_fts_") ? "rowid" : "1, 2";
    out[table] = (await db.$client.execute(`SELECT * FROM ${table} ORDER BY ${order}`)).rows.map((r) => ({ ...r }));
  }
  return out;
}

// biome-ignore lint/suspicious/noExplicitAny: the mutations deliberately break the bundle's types
type Loose = any;

let main: Awaited<ReturnType<typeof openTempDb>>;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  main = await openTempDb("bundle-io");
  cleanups.push(main.cleanup);
  await importBundle(main.db, sampleBundle());
});
afterAll(() => {
  for (const c of cleanups) c();
});

function withBank(bundle: BundleInput, id: string): BundleInput {
  return { ...bundle, bank: { ...bundle.bank, id } };
}

describe("importBundle", () => {
  it("imports every section and reports the counts", async () => {
    const fresh = await openTempDb("bundle-count");
    cleanups.push(fresh.cleanup);
    const result = await importBundle(fresh.db, sampleBundle());
    expect(result).toEqual({
      bankId: "acme",
      counts: { facts: 4, observations: 1, mentalModels: 2, skills: 1, suites: 0 },
    });
    expect(await getSkillVersions(fresh.db, "acme", "sk-recap")).toHaveLength(1);
  });

  it.each([
    ["a wrong type", (b: Loose) => (b.facts[1].tags = "team"), "facts[1].tags"],
    ["a missing field", (b: Loose) => delete b.facts[2].recordedAt, "facts[2].recordedAt"],
    ["a duplicate fact id", (b: Loose) => (b.facts[3].id = "f1"), "facts[3].id"],
    ["a team scope with no id", (b: Loose) => (b.observations[0].scope = "team:"), "observations[0].scope"],
    [
      "an unknown source fact id",
      (b: Loose) => b.observations[0].sourceFactIds.push("nope"),
      "observations[0].sourceFactIds[1]",
    ],
    ["a duplicate skill name", (b: Loose) => b.skills.push({ ...b.skills[0], id: "sk-2" }), "skills[1].name"],
    // The bad record comes after valid ones: a partial write would be visible.
    [
      "an invalid time late in the bundle",
      (b: Loose) => (b.mentalModels[1].refreshedAt = "yesterday"),
      "mentalModels[1].refreshedAt",
    ],
  ])("rejects %s, naming the path, and leaves the database unchanged", async (_label, mutate, path) => {
    const before = await snapshot(main.db);
    const bad = withBank(structuredClone(sampleBundle()), "other");
    mutate(bad);
    const error = await importBundle(main.db, bad).catch((e: unknown) => e);
    expect(isAppError(error, "invalid_bundle")).toBe(true);
    expect(Object.keys((error as AppError<"invalid_bundle">).details.fieldErrors)).toContain(path);
    expect((error as AppError).message).toContain(path);
    expect(await snapshot(main.db)).toEqual(before);
  });

  it("rolls back every statement when the write itself fails half-way", async () => {
    const before = await snapshot(main.db);
    // A valid bundle whose last statement (the skill version row) hits a pre-seeded primary key.
    await main.db.$client.execute(
      "INSERT INTO skill_versions (bank_id, skill_id, version, name, mission, disposition, retrieval, budget, anchor_every, output_format) VALUES ('late', 'sk-recap', 1, 'x', 'x', '[]', '{}', 'mid', 4, 'md')",
    );
    const seeded = await snapshot(main.db);
    await expect(importBundle(main.db, withBank(sampleBundle(), "late"))).rejects.toThrow();
    expect(await snapshot(main.db)).toEqual(seeded);
    await main.db.$client.execute("DELETE FROM skill_versions WHERE bank_id = 'late'");
    expect(await snapshot(main.db)).toEqual(before);
  });

  it("refuses to overwrite an existing bank unless asked to replace it", async () => {
    const before = await snapshot(main.db);
    await expect(importBundle(main.db, sampleBundle())).rejects.toThrow(/bank\.id: bank "acme" already exists/);
    expect(await snapshot(main.db)).toEqual(before);

    const fresh = await openTempDb("bundle-replace");
    cleanups.push(fresh.cleanup);
    await importBundle(fresh.db, sampleBundle());
    const smaller = sampleBundle();
    smaller.facts = smaller.facts?.slice(0, 1);
    smaller.observations = [];
    const result = await importBundle(fresh.db, smaller, { replace: true });
    expect(result.counts.facts).toBe(1);
    expect((await exportBundle(fresh.db, "acme"))?.facts.map((f) => f.id)).toEqual(["f1"]);
  });

  it("keeps times as given: updatedAt defaults to recordedAt, offsets are normalized to UTC", async () => {
    const bundle = await exportBundle(main.db, "acme");
    const f1 = bundle?.facts.find((f) => f.id === "f1");
    expect(f1?.updatedAt).toBe("2025-03-10T10:00:00.000Z");
    expect(f1?.occurredAt).toBe("2025-03-10T07:00:00.000Z");
  });
});

describe("exportBundle", () => {
  it("round-trips byte for byte through a fresh database", async () => {
    const first = JSON.stringify(await exportBundle(main.db, "acme"), null, 2);
    const fresh = await openTempDb("bundle-roundtrip");
    cleanups.push(fresh.cleanup);
    await importBundle(fresh.db, JSON.parse(first));
    const second = JSON.stringify(await exportBundle(fresh.db, "acme"), null, 2);
    expect(second).toBe(first);
    expect(JSON.parse(first).mentalModels[0].history).toHaveLength(1);
  });

  it("returns null for an unknown bank", async () => {
    expect(await exportBundle(main.db, "missing")).toBeNull();
  });

  it("preserves staleness through export and import", async () => {
    const summarize = async (db: Db) =>
      (await listMentalModels(db, "acme")).map((m) => [m.id, m.isStale, m.stalenessReason, m.usable]);
    const before = await summarize(main.db);
    expect(before).toEqual([
      ["mm-billing", false, "no newer memories in scope", true],
      ["mm-team", true, "3 newer memories in scope", true],
    ]);
    const fresh = await openTempDb("bundle-staleness");
    cleanups.push(fresh.cleanup);
    await importBundle(fresh.db, await exportBundle(main.db, "acme"));
    expect(await summarize(fresh.db)).toEqual(before);
  });
});
