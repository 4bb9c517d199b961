/** Issue 12 item 6: a skill's answer format (prose | json) through the store, bundles and the run snapshot. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSkill, saveSkill, toSkillSnapshot } from "@/db/queries/skills";
import { exportBundle, importBundle } from "@/lib/server/services/bundle-io";
import { sampleBundle } from "./sample-bundle";
import { openTempDb } from "./temp-db";

let t: Awaited<ReturnType<typeof openTempDb>>;
beforeAll(async () => {
  t = await openTempDb("answer-format");
  // The sample bundle predates the field: its skill has no answerFormat.
  await importBundle(t.db, sampleBundle());
});
afterAll(() => t.cleanup());

describe("skill answer format", () => {
  it("an old bundle without the field imports as prose, and the run snapshot carries it", async () => {
    const skill = await getSkill(t.db, { bankId: "acme", id: "sk-recap" });
    expect(skill?.answerFormat).toBe("prose");
    expect(toSkillSnapshot(skill!).answerFormat).toBe("prose");
  });

  it("json is saved as a new version, exported, and survives a bundle round trip", async () => {
    const current = (await getSkill(t.db, { bankId: "acme", id: "sk-recap" }))!;
    await saveSkill(t.db, { ...current, expectedVersion: current.version, answerFormat: "json" });
    const saved = (await getSkill(t.db, { bankId: "acme", id: "sk-recap" }))!;
    expect(saved.answerFormat).toBe("json");
    const bundle = (await exportBundle(t.db, "acme"))!;
    expect(bundle.skills[0]?.answerFormat).toBe("json");
    const copy = await openTempDb("answer-format-copy");
    try {
      await importBundle(copy.db, bundle);
      expect((await getSkill(copy.db, { bankId: "acme", id: "sk-recap" }))?.answerFormat).toBe("json");
    } finally {
      copy.cleanup();
    }
  });
});
