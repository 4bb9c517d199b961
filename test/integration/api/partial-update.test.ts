/**
 * PUT on a mental model or a skill is a partial update, as the OpenAPI text says: a body with only
 * `expectedVersion` and one field changes that field and keeps every other one. The API and the
 * editor's Save go through one service, so they agree on what a save keeps, on conflicts and on
 * deleted records; records created without an id get a readable slug of their name.
 */
import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const dbFile = vi.hoisted(() => {
  const path = `${process.cwd()}/test/.tmp/partial-update-${process.pid}-${Date.now()}.db`;
  process.env.DATABASE_URL = `file:${path}`;
  process.env.REFLECT_LLM = "offline";
  return path;
});

import * as mentalModel from "@/app/api/v1/banks/[bank]/mental-models/[id]/route";
import * as mentalModels from "@/app/api/v1/banks/[bank]/mental-models/route";
import * as skill from "@/app/api/v1/banks/[bank]/skills/[id]/route";
import * as skills from "@/app/api/v1/banks/[bank]/skills/route";
import { NewSkillInput, SkillDraft } from "@/lib/contracts/skills";
import { getAppDb } from "@/lib/server/runtime/db";
import { saveMentalModelDraft } from "@/lib/server/services/mental-models";
import { createBankSkill, getDeletedSkill, saveSkillDraft } from "@/lib/server/services/skills";

type Handler = (request: Request, ctx: { params: Promise<Record<string, string> | undefined> }) => Promise<Response>;

async function call(handler: Handler, params: Record<string, string>, method = "GET", body?: unknown) {
  const request = new Request("http://127.0.0.1/api/v1/x", {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
  const res = await handler(request, { params: Promise.resolve(params) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  mkdirSync(resolve(process.cwd(), "test/.tmp"), { recursive: true });
  await getAppDb();
});
afterAll(async () => {
  (await getAppDb()).$client.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${dbFile}${suffix}`, { force: true });
});

const REFRESHED = "2026-10-01T09:30:00.000Z";

/** A model with every field set to something no default would produce. */
async function fullModel(name: string) {
  const res = await call(mentalModels.POST, { bank: "demo" }, "POST", {
    name,
    sourceQuery: "What is the launch plan?",
    content: "Original content.",
    tags: ["launch", "atlas"],
    refreshedAt: REFRESHED,
    staleOverride: "fresh",
  });
  expect(res.status).toBe(201);
  return res.json as { id: string; version: number };
}

describe("PUT /banks/{bank}/mental-models/{id} with only expectedVersion and content", () => {
  const cases: [field: string, expected: unknown][] = [
    ["tags", ["launch", "atlas"]],
    ["sourceQuery", "What is the launch plan?"],
    ["staleOverride", "fresh"],
    ["refreshedAt", REFRESHED],
    ["name", "Keeps name"],
  ];
  for (const [field, expected] of cases) {
    it(`keeps ${field}`, async () => {
      const created = await fullModel(field === "name" ? "Keeps name" : `Keeps ${field}`);
      const put = await call(mentalModel.PUT, { bank: "demo", id: created.id }, "PUT", {
        expectedVersion: 1,
        content: "Edited content.",
      });
      expect(put.status).toBe(200);
      expect(put.json.version).toBe(2);
      expect(put.json.content).toBe("Edited content.");
      expect(put.json[field]).toEqual(expected);
      const stored = await call(mentalModel.GET, { bank: "demo", id: created.id });
      expect(stored.json.mentalModel[field]).toEqual(expected);
    });
  }

  it("keeps the refresh's cited memories (basedOnIds) and clears a field only when it is sent", async () => {
    const created = await fullModel("Clears only what is sent");
    const cleared = await call(mentalModel.PUT, { bank: "demo", id: created.id }, "PUT", {
      expectedVersion: 1,
      staleOverride: null,
      tags: [],
    });
    expect(cleared.json).toMatchObject({ staleOverride: null, tags: [], content: "Original content." });
    expect(cleared.json.refreshedAt).toBe(REFRESHED);
  });
});

describe("PUT /banks/{bank}/skills/{id} with only expectedVersion and mission", () => {
  const cases: [field: string, expected: unknown][] = [
    ["disposition", ["terse", "skeptical"]],
    ["budget", "high"],
    ["anchorEvery", 7],
    ["outputFormat", "bullet list"],
    ["answerFormat", "json"],
    ["retrieval", { tags: ["launch"], types: ["observation"], scope: "personal" }],
  ];
  for (const [field, expected] of cases) {
    it(`keeps ${field}`, async () => {
      const created = await call(skills.POST, { bank: "demo" }, "POST", {
        name: `keeps-${field}`,
        mission: "Original mission.",
        disposition: ["terse", "skeptical"],
        retrieval: { tags: ["launch"], types: ["observation"], scope: "personal" },
        budget: "high",
        anchorEvery: 7,
        outputFormat: "bullet list",
        answerFormat: "json",
      });
      expect(created.status).toBe(201);
      const put = await call(skill.PUT, { bank: "demo", id: created.json.id }, "PUT", {
        expectedVersion: 1,
        mission: "Edited mission.",
      });
      expect(put.status).toBe(200);
      expect(put.json).toMatchObject({ version: 2, mission: "Edited mission." });
      expect(put.json[field]).toEqual(expected);
      const stored = await call(skill.GET, { bank: "demo", id: created.json.id });
      expect(stored.json.skill[field]).toEqual(expected);
    });
  }
});

describe("the API and the editor save through one service", () => {
  it("a deleted mental model is the same conflict (current: null) through the editor and the API", async () => {
    const db = await getAppDb();
    const created = await fullModel("Deleted under both doors");
    expect((await call(mentalModel.DELETE, { bank: "demo", id: created.id }, "DELETE")).status).toBe(204);
    const api = await call(mentalModel.PUT, { bank: "demo", id: created.id }, "PUT", {
      expectedVersion: 1,
      content: "late edit",
    });
    expect(api.status).toBe(409);
    expect(api.json.error.current).toBeNull();
    const editor = await saveMentalModelDraft(db, {
      bankId: "demo",
      id: created.id,
      expectedVersion: 1,
      name: "Deleted under both doors",
      sourceQuery: "q",
      content: "late edit",
      tags: [],
      staleOverride: "auto",
    }).catch((e: unknown) => e);
    expect(editor).toMatchObject({ code: "conflict", message: api.json.error.message });
  });

  it("a stale skill edit is refused with the same message through the editor and the API", async () => {
    const db = await getAppDb();
    const created = await createBankSkill(
      db,
      NewSkillInput.parse({
        bankId: "demo",
        skill: { name: "stale both ways", mission: "m", retrieval: { types: ["observation"] } },
      }),
    );
    await call(skill.PUT, { bank: "demo", id: created.id }, "PUT", { expectedVersion: 1, mission: "v2" });
    const api = await call(skill.PUT, { bank: "demo", id: created.id }, "PUT", { expectedVersion: 1, mission: "v3" });
    const editor = await saveSkillDraft(
      db,
      SkillDraft.parse({
        bankId: "demo",
        id: created.id,
        expectedVersion: 1,
        mission: "v3",
        retrieval: { types: ["observation"] },
      }),
    ).catch((e: unknown) => e);
    expect(api.status).toBe(409);
    expect(editor).toMatchObject({ code: "conflict", message: api.json.error.message });
  });
});

describe("ids of records created without one", () => {
  it("a new skill's id is a readable slug of its name, unique in the bank", async () => {
    const first = await call(skills.POST, { bank: "demo" }, "POST", {
      name: "Release Risks",
      mission: "List the risks.",
      retrieval: { types: ["observation"] },
    });
    expect(first.json.id).toBe("release-risks");
    const db = await getAppDb();
    const fromPage = await createBankSkill(
      db,
      NewSkillInput.parse({
        bankId: "demo",
        skill: { name: "release risks!", mission: "Again.", retrieval: { types: ["observation"] } },
      }),
    );
    expect(fromPage.id).toBe("release-risks-2");
  });

  it("a new mental model's id through the API is the same slug the editor makes", async () => {
    const res = await call(mentalModels.POST, { bank: "demo" }, "POST", {
      name: "Support Load",
      sourceQuery: "support load?",
      content: "c",
    });
    expect(res.json.id).toBe("mm-support-load");
  });
});

describe("a deleted skill", () => {
  it("keeps its history: its page knows it was deleted, and its id is never handed out again", async () => {
    const db = await getAppDb();
    const created = await call(skills.POST, { bank: "demo" }, "POST", {
      name: "Gone Soon",
      mission: "m",
      retrieval: { types: ["observation"] },
    });
    expect(created.json.id).toBe("gone-soon");
    expect((await call(skill.DELETE, { bank: "demo", id: "gone-soon" }, "DELETE")).status).toBe(204);
    expect((await call(skill.GET, { bank: "demo", id: "gone-soon" })).status).toBe(404);
    expect(await getDeletedSkill(db, "demo", "gone-soon")).toEqual({
      id: "gone-soon",
      name: "Gone Soon",
      lastVersion: 1,
    });
    expect(await getDeletedSkill(db, "demo", "never-was")).toBeNull();
    const late = await call(skill.PUT, { bank: "demo", id: "gone-soon" }, "PUT", { expectedVersion: 1, mission: "x" });
    expect(late.status).toBe(409);
    expect(late.json.error.current).toBeNull();
    const again = await call(skills.POST, { bank: "demo" }, "POST", {
      name: "Gone Soon",
      mission: "m",
      retrieval: { types: ["observation"] },
    });
    expect(again.json.id).toBe("gone-soon-2");
    const sameId = await call(skills.POST, { bank: "demo" }, "POST", {
      id: "gone-soon",
      name: "Back again",
      mission: "m",
      retrieval: { types: ["observation"] },
    });
    expect(sameId.status).toBe(409);
  });
});
