import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  deleteMentalModel,
  getMentalModel,
  getMentalModelTombstone,
  getMentalModelVersions,
  listMentalModels,
  saveMentalModel,
  setStaleOverride,
} from "@/db/queries/mental-models";
import { insertFacts } from "@/db/queries/retain";
import { getSkill, getSkillVersions, saveSkill } from "@/db/queries/skills";
import { type AppError, isAppError } from "@/lib/contracts/errors";
import { importBundle } from "@/lib/server/services/bundle-io";
import { sampleBundle } from "./sample-bundle";
import { openTempDb } from "./temp-db";

let t: Awaited<ReturnType<typeof openTempDb>>;
beforeAll(async () => {
  t = await openTempDb("mental-models");
  await importBundle(t.db, sampleBundle());
});
afterAll(() => t.cleanup());

const base = {
  bankId: "acme",
  name: "Ops",
  sourceQuery: "how is ops?",
  tags: ["ops"],
  refreshedAt: null,
  staleOverride: null,
};

describe("mental model versions", () => {
  it("every save is a new version and the history keeps all of them", async () => {
    const created = await saveMentalModel(t.db, {
      ...base,
      id: "mm-ops",
      expectedVersion: 0,
      content: "v1",
      at: "2025-04-01T00:00:00Z",
    });
    expect(created).toMatchObject({ version: 1, isStale: true, stalenessReason: "never refreshed" });
    const edited = await saveMentalModel(t.db, {
      ...base,
      id: "mm-ops",
      expectedVersion: 1,
      content: "v2",
      refreshedAt: "2025-04-02T00:00:00Z",
    });
    expect(edited).toMatchObject({ version: 2, content: "v2", isStale: false });
    const versions = await getMentalModelVersions(t.db, "acme", "mm-ops");
    expect(versions.map((v) => [v.version, v.content])).toEqual([
      [2, "v2"],
      [1, "v1"],
    ]);
    expect(versions[1]?.createdAt).toBe("2025-04-01T00:00:00.000Z");
  });

  it("rejects a save based on an old version and hands back the current record", async () => {
    const error = await saveMentalModel(t.db, {
      ...base,
      id: "mm-ops",
      expectedVersion: 1,
      content: "late edit",
    }).catch((e: unknown) => e);
    expect(isAppError(error, "conflict")).toBe(true);
    expect((error as AppError<"conflict">).details.current).toMatchObject({
      version: 2,
      content: "v2",
    });
    expect((await getMentalModel(t.db, "acme", "mm-ops"))?.content).toBe("v2");
    expect(await getMentalModelVersions(t.db, "acme", "mm-ops")).toHaveLength(2);
  });

  it("only one of two concurrent saves of the same version wins", async () => {
    const results = await Promise.allSettled([
      saveMentalModel(t.db, { ...base, id: "mm-ops", expectedVersion: 2, content: "a" }),
      saveMentalModel(t.db, { ...base, id: "mm-ops", expectedVersion: 2, content: "b" }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(results.filter((r) => r.status === "rejected" && isAppError(r.reason, "conflict"))).toHaveLength(1);
    expect((await getMentalModel(t.db, "acme", "mm-ops"))?.version).toBe(3);
  });

  it("a manual override decides staleness and is itself a version", async () => {
    const overridden = await setStaleOverride(t.db, { bankId: "acme", id: "mm-team", override: "fresh" });
    expect(overridden).toMatchObject({ isStale: false, stalenessReason: "manual override", version: 2 });
    const cleared = await setStaleOverride(t.db, { bankId: "acme", id: "mm-team", override: null });
    expect(cleared).toMatchObject({ isStale: true, stalenessReason: "3 newer memories in scope", version: 3 });
  });

  it("placeholder content is unusable whatever the staleness", async () => {
    const model = await saveMentalModel(t.db, {
      ...base,
      id: "mm-placeholder",
      expectedVersion: 0,
      content: "Generating content...",
      refreshedAt: "2030-01-01T00:00:00Z",
    });
    expect(model).toMatchObject({ isStale: false, usable: false });
  });

  it("staleness counts only newer memories that carry all the model's tags, for a batch in one query", async () => {
    await t.db.$client.execute("UPDATE facts SET updated_at = '2025-03-25T00:00:00.000Z' WHERE id IN ('f1', 'f2')");
    const byId = new Map((await listMentalModels(t.db, "acme")).map((m) => [m.id, m]));
    // mm-billing (tags [billing], refreshed 03-20): only f1 carries "billing".
    expect(byId.get("mm-billing")).toMatchObject({ isStale: true, stalenessReason: "1 newer memory in scope" });
    expect(byId.get("mm-team")?.stalenessReason).toBe("4 newer memories in scope");
  });

  it("keeps the tag index in step with fact edits and deletes, for a model with several tags", async () => {
    await saveMentalModel(t.db, {
      ...base,
      id: "mm-multi",
      name: "Multi",
      tags: ["alpha", "beta"],
      content: "Alpha and beta.",
      refreshedAt: "2026-01-01T00:00:00.000Z",
      expectedVersion: 0,
    });
    const reason = async () => (await getMentalModel(t.db, "acme", "mm-multi"))?.stalenessReason;
    await insertFacts(
      t.db,
      "acme",
      [
        { id: "fa", text: "Alpha only.", kind: "world", tags: ["alpha"], scope: "personal" },
        { id: "fab", text: "Alpha and beta.", kind: "world", tags: ["alpha", "beta"], scope: "personal" },
      ],
      { at: "2026-02-01T00:00:00.000Z" },
    );
    expect(await reason()).toBe("1 newer memory in scope");
    await t.db.$client.execute(`UPDATE facts SET tags = '["beta"]' WHERE id = 'fab'`);
    expect(await reason()).toBe("no newer memories in scope");
    await t.db.$client.execute(`UPDATE facts SET tags = '["beta","alpha"]' WHERE id = 'fa'`);
    expect(await reason()).toBe("1 newer memory in scope");
    await t.db.$client.execute(`UPDATE facts SET updated_at = '2025-12-01T00:00:00.000Z' WHERE id = 'fa'`);
    expect(await reason()).toBe("no newer memories in scope");
    await t.db.$client.execute(`UPDATE facts SET updated_at = '2026-03-01T00:00:00.000Z' WHERE id = 'fa'`);
    expect(await reason()).toBe("1 newer memory in scope");
    await t.db.$client.execute(`DELETE FROM facts WHERE id = 'fa'`);
    expect(await reason()).toBe("no newer memories in scope");
  });

  it("counts a newer memory only when it carries every one of the model's tags, in any order, for any number of tags", async () => {
    const at = (iso: string) => ({ at: iso });
    await insertFacts(
      t.db,
      "acme",
      [{ id: "x0", text: "Old.", kind: "world", tags: ["p", "q", "r", "s"], scope: "personal" }],
      at("2025-12-01T00:00:00.000Z"),
    );
    const newer: [string, string[]][] = [
      ["x1", ["p"]],
      ["x2", ["p", "q"]],
      ["x3", ["p", "q", "r"]],
      ["x4", ["q", "r"]],
      ["x5", ["p", "r"]],
      ["x6", ["p", "q", "r", "s"]],
      ["x7", ["r", "q", "p"]],
    ];
    await insertFacts(
      t.db,
      "acme",
      newer.map(([id, tags]) => ({
        id,
        text: `Tagged ${tags.join(" ")}.`,
        kind: "world" as const,
        tags,
        scope: "personal" as const,
      })),
      at("2026-02-01T00:00:00.000Z"),
    );
    // Expected: the newer facts whose tags include all of the model's.
    const cases: [string[], number][] = [
      [["p"], 6],
      [["p", "q"], 4],
      [["q", "p"], 4],
      [["p", "q", "r"], 3],
      [["r", "p", "q"], 3],
      [["p", "q", "r", "s"], 1],
      [["p", "s", "q"], 1],
      [["p", "q", "s"], 1],
      [["p", "q", "z"], 0],
      [["p", "z", "q"], 0],
    ];
    const reasonFor = (n: number) =>
      n === 0 ? "no newer memories in scope" : `${n} newer ${n === 1 ? "memory" : "memories"} in scope`;
    const saved = [];
    for (const [k, [tags]] of cases.entries()) {
      saved.push(
        await saveMentalModel(t.db, {
          ...base,
          id: `mm-tags-${k}`,
          name: `Tags ${k}`,
          tags,
          content: `Tags ${tags.join(", ")}.`,
          refreshedAt: "2026-01-01T00:00:00.000Z",
          expectedVersion: 0,
        }),
      );
    }
    const listed = new Map((await listMentalModels(t.db, "acme")).map((m) => [m.id, m]));
    for (const [k, [tags, n]] of cases.entries()) {
      expect({ tags, saved: saved[k]?.stalenessReason }).toEqual({ tags, saved: reasonFor(n) });
      expect({ tags, listed: listed.get(`mm-tags-${k}`)?.stalenessReason }).toEqual({ tags, listed: reasonFor(n) });
    }
  });

  it("deletes the live model and keeps its history under a tombstone", async () => {
    const versions = await getMentalModelVersions(t.db, "acme", "mm-ops");
    expect(versions.length).toBeGreaterThan(0);
    expect(await deleteMentalModel(t.db, "acme", "mm-ops")).toBe(true);
    expect(await getMentalModel(t.db, "acme", "mm-ops")).toBeNull();
    expect(await getMentalModelVersions(t.db, "acme", "mm-ops")).toEqual(versions);
    expect((await getMentalModelTombstone(t.db, "acme", "mm-ops"))?.lastVersion).toBe(versions[0]?.version);
    expect(await deleteMentalModel(t.db, "acme", "mm-ops")).toBe(false);
  });
});

describe("skill versions", () => {
  const skill = {
    bankId: "acme",
    name: "blockers",
    mission: "Find what blocks the team.",
    disposition: ["direct"],
    retrieval: { tags: [], types: ["observation" as const], scope: "personal" },
    budget: "mid" as const,
    anchorEvery: 4,
    outputFormat: "markdown",
  };

  it("keeps every version, finds a skill by name, and rejects a stale edit", async () => {
    const v1 = await saveSkill(t.db, { ...skill, expectedVersion: 0 });
    const v2 = await saveSkill(t.db, {
      ...skill,
      id: v1.id,
      expectedVersion: 1,
      mission: "Find blockers, with owners.",
    });
    expect(v2.version).toBe(2);
    expect((await getSkill(t.db, { bankId: "acme", name: "blockers" }))?.mission).toBe("Find blockers, with owners.");
    expect((await getSkillVersions(t.db, "acme", v1.id)).map((v) => v.version)).toEqual([2, 1]);
    await expect(saveSkill(t.db, { ...skill, id: v1.id, expectedVersion: 1 })).rejects.toMatchObject({
      code: "conflict",
    });
    await expect(saveSkill(t.db, { ...skill, name: "recap", expectedVersion: 0 })).rejects.toThrow(/already exists/);
  });
});
