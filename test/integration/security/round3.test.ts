/**
 * Issue #28 (security round 3) at the doors that take input: bundle import and server actions refuse
 * unknown fields and padded ids by name; a replace import cannot bring a deleted mental model back;
 * one set of rules for the API, the actions, MCP and JSONL (source query, permitted scopes, known
 * skills, MCP body size and batches). Every refusal changes nothing.
 */
import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const dbFile = vi.hoisted(() => {
  const path = `${process.cwd()}/test/.tmp/round3-${process.pid}-${Date.now()}.db`;
  process.env.DATABASE_URL = `file:${path}`;
  process.env.REFLECT_LLM = "offline";
  return path;
});

import * as curation from "@/app/actions/curation";
import * as experimentActions from "@/app/actions/experiments";
import * as modelActions from "@/app/actions/model";
import * as rerunActions from "@/app/actions/rerun";
import * as runActions from "@/app/actions/runs";
import * as mcpRoute from "@/app/api/mcp/route";
import * as exportRoute from "@/app/api/v1/banks/[bank]/export/route";
import * as mentalModelsRoute from "@/app/api/v1/banks/[bank]/mental-models/route";
import * as skillRoute from "@/app/api/v1/banks/[bank]/skills/[id]/route";
import * as skillsRoute from "@/app/api/v1/banks/[bank]/skills/route";
import * as suiteImportRoute from "@/app/api/v1/banks/[bank]/suites/[suite]/import/route";
import * as suitesRoute from "@/app/api/v1/banks/[bank]/suites/route";
import * as importRoute from "@/app/api/v1/banks/import/route";
import type { ActionResult } from "@/lib/contracts/errors";
import { getAppDb } from "@/lib/server/runtime/db";
import { runOwner } from "@/lib/server/runtime/run-owner";
import { importBundleLines } from "@/lib/server/services/bundle-io";
import { deleteMentalModelById } from "@/lib/server/services/mental-models";
import { sampleBundle } from "../db/sample-bundle";

const root = resolve(import.meta.dirname, "../../..");

type Handler = (request: Request, ctx: { params: Promise<Record<string, string> | undefined> }) => Promise<Response>;

async function call(
  handler: Handler,
  params: Record<string, string>,
  body: unknown,
  init: { query?: string; method?: string; headers?: Record<string, string> } = {},
) {
  const request = new Request(`http://127.0.0.1/api/v1/x${init.query ?? ""}`, {
    method: init.method ?? (body === undefined ? "GET" : "POST"),
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "application/json", ...init.headers },
  });
  const res = await handler(request, { params: Promise.resolve(Object.keys(params).length ? params : undefined) });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return {
    status: res.status,
    json: json as { error?: { code: string; fieldErrors?: Record<string, string[]> } } & Record<string, unknown>,
  };
}

async function exported(bank: string) {
  return (await call(exportRoute.GET, { bank }, undefined)).json;
}

beforeAll(async () => {
  mkdirSync(resolve(root, "test/.tmp"), { recursive: true });
  await getAppDb();
  const res = await call(importRoute.POST, {}, sampleBundle());
  expect(res.status).toBe(201);
});
afterAll(async () => {
  (await getAppDb()).$client.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${dbFile}${suffix}`, { force: true });
});

describe("item 8: bundle import refuses unknown fields and padded ids, by name", () => {
  // biome-ignore lint/suspicious/noExplicitAny: each case spoils a different part of the bundle
  const cases: [string, (b: Record<string, any>) => void, string][] = [
    ["top level", (b) => Object.assign(b, { extra: 1 }), "extra"],
    ["bank", (b) => Object.assign(b.bank, { owner: "x" }), "bank.owner"],
    ["a fact", (b) => Object.assign(b.facts[0], { txt: "typo" }), "facts[0].txt"],
    ["an observation", (b) => Object.assign(b.observations[0], { sources: [] }), "observations[0].sources"],
    ["a mental model", (b) => Object.assign(b.mentalModels[0], { stale: true }), "mentalModels[0].stale"],
    [
      "a mental model's history",
      (b) => Object.assign(b.mentalModels[0].history[0], { author: "x" }),
      "mentalModels[0].history[0].author",
    ],
    ["a skill", (b) => Object.assign(b.skills[0], { budjet: "low" }), "skills[0].budjet"],
    ["a skill's retrieval", (b) => Object.assign(b.skills[0].retrieval, { k: 5 }), "skills[0].retrieval.k"],
    ["a padded fact id", (b) => Object.assign(b.facts[0], { id: " f1 " }), "facts[0].id"],
    ["a padded mental model id", (b) => Object.assign(b.mentalModels[0], { id: " mm-billing " }), "mentalModels[0].id"],
  ];
  for (const [label, spoil, path] of cases) {
    it(`names the field in ${label}, and imports nothing`, async () => {
      const before = await exported("acme");
      // biome-ignore lint/suspicious/noExplicitAny: each case spoils a different part of the bundle
      const bundle = sampleBundle() as Record<string, any>;
      bundle.bank.name = "Changed";
      spoil(bundle);
      const res = await call(importRoute.POST, {}, bundle, { query: "?replace=true" });
      expect(res.status).toBe(400);
      expect(["invalid_bundle", "invalid_input"]).toContain(res.json.error?.code);
      // The field's path and name are in the answer (zod reports an unknown key at its object's path).
      const said = JSON.stringify(res.json.error?.fieldErrors ?? {});
      const at = path.lastIndexOf(".");
      const [parent, key] = at < 0 ? ["", path] : [path.slice(0, at), path.slice(at + 1)];
      expect(said).toContain(key);
      if (parent) expect(said).toContain(parent);
      expect(await exported("acme")).toEqual(before);
    });
  }
});

/** Every server action with one field it does not take (and, where it has one, an id with spaces). */
const ACTIONS: [string, () => Promise<ActionResult<unknown>>, string][] = [
  [
    "startRunAction",
    () => runActions.startRunAction({ bankId: "acme", question: "q?", budjet: "low" } as never),
    "budjet",
  ],
  [
    "saveMentalModelAction",
    () =>
      curation.saveMentalModelAction({
        bankId: "acme",
        id: "mm-billing",
        name: "n",
        content: "c",
        sourceQuery: "q",
        tags: [],
        expectedVersion: 2,
        owner: "x",
      } as never),
    "owner",
  ],
  [
    "deleteMentalModelAction",
    () => curation.deleteMentalModelAction({ bankId: "acme", id: "nope", force: true } as never),
    "force",
  ],
  [
    "refreshMentalModelAction",
    () => curation.refreshMentalModelAction({ bankId: "acme", id: "nope", x: 1 } as never),
    "x",
  ],
  [
    "acceptRefreshAction",
    () => curation.acceptRefreshAction({ bankId: "acme", id: "nope", runId: "r", expectedVersion: 1, x: 1 } as never),
    "x",
  ],
  [
    "discardRefreshAction",
    () => curation.discardRefreshAction({ bankId: "acme", id: "nope", runId: "r", x: 1 } as never),
    "x",
  ],
  [
    "restoreMentalModelAction",
    () =>
      curation.restoreMentalModelAction({ bankId: "acme", id: "nope", version: 1, expectedVersion: 1, x: 1 } as never),
    "x",
  ],
  ["deleteSkillAction", () => curation.deleteSkillAction({ bankId: "acme", id: "nope", x: 1 } as never), "x"],
  ["checkModelAction", () => modelActions.checkModelAction({ verbose: true } as never), "verbose"],
  ["forkAction", () => rerunActions.forkAction({ parentRunId: "nope", forkAt: 1, x: 1 } as never), "x"],
  ["cancelExperimentAction", () => experimentActions.cancelExperimentAction({ id: "nope", x: 1 } as never), "x"],
  [
    "startExperimentAction",
    () => experimentActions.startExperimentAction({ bankId: "acme", suite: "nope", config: { skil: {} } } as never),
    "config.skil",
  ],
  // Actions added after the first pass: the same rule.
  [
    "saveSuiteAction",
    () =>
      experimentActions.saveSuiteAction({
        bankId: "acme",
        name: "s",
        description: "",
        questions: [],
        expectedVersion: 0,
        x: 1,
      } as never),
    "x",
  ],
  ["addToSuiteAction", () => experimentActions.addToSuiteAction({ runId: "nope", suite: "s", x: 1 } as never), "x"],
  ["createSkillAction", () => curation.createSkillAction({ bankId: "acme", name: "n", x: 1 } as never), "x"],
  ["saveSkillAction", () => curation.saveSkillAction({ bankId: "acme", id: "nope", x: 1 } as never), "x"],
  ["trySkillAction", () => curation.trySkillAction({ bankId: "acme", question: "q", x: 1 } as never), "x"],
  ["rerunAction", () => rerunActions.rerunAction({ runId: "nope", x: 1 } as never), "x"],
  ["saveRerunChangesAction", () => rerunActions.saveRerunChangesAction({ runId: "nope", x: 1 } as never), "x"],
];

describe("item 8: every server action refuses a field it does not take, by name", () => {
  for (const [name, run, field] of ACTIONS) {
    it(`${name} refuses "${field}"`, async () => {
      const result = await run();
      expect(result.ok, name).toBe(false);
      if (!result.ok) {
        expect(result.error.code).toBe("invalid_input");
        expect(Object.keys(result.error.fieldErrors ?? {})).toContain(field);
      }
    });
  }

  it('refuses an id with spaces around it (" x ") instead of trimming it, in actions and the API', async () => {
    const model = await curation.saveMentalModelAction({
      bankId: "acme",
      id: " mm-padded ",
      name: "Padded",
      content: "c",
      sourceQuery: "q",
      tags: [],
      expectedVersion: 0,
      staleOverride: "auto",
    });
    expect(model.ok).toBe(false);
    if (!model.ok) expect(Object.keys(model.error.fieldErrors ?? {})).toContain("id");
    const skill = await curation.createSkillAction({
      bankId: "acme",
      skill: { id: " skill-padded ", name: "Padded", mission: "m", retrieval: { types: ["episodic"] } },
    });
    expect(skill.ok).toBe(false);
    if (!skill.ok) expect(Object.keys(skill.error.fieldErrors ?? {})).toContain("skill.id");
    const bundle = await exported("acme");
    expect((bundle.mentalModels as { id: string }[]).map((m) => m.id)).not.toContain("mm-padded");
    expect((bundle.skills as { id: string }[]).map((m) => m.id)).not.toContain("skill-padded");
  });
});

describe("item 9: a replace import cannot bring a deleted mental model back", () => {
  it("refuses the deleted id (bundle and JSONL), keeps its tombstone and versions", async () => {
    const db = await getAppDb();
    await deleteMentalModelById(db, { bankId: "acme", id: "mm-billing" });
    const before = await exported("acme");

    const res = await call(importRoute.POST, {}, sampleBundle(), { query: "?replace=true" });
    expect(res.status).toBe(400);
    expect(Object.keys(res.json.error?.fieldErrors ?? {})).toContain("mentalModels[0].id");
    expect(await exported("acme")).toEqual(before);

    const b = sampleBundle();
    const lines = [
      JSON.stringify({ version: 1, bank: b.bank }),
      ...(b.facts ?? []).map((f) => JSON.stringify({ fact: f })),
      JSON.stringify({ mentalModel: b.mentalModels?.[0] }),
    ];
    await expect(
      importBundleLines(
        db,
        (async function* () {
          yield* lines;
        })(),
        { replace: true, ownerId: await runOwner(db) },
      ),
    ).rejects.toThrow(/was deleted/);
    expect(await exported("acme")).toEqual(before);

    // A replace without that model goes through and the id stays refused afterwards.
    const without = sampleBundle();
    without.mentalModels = without.mentalModels?.filter((m) => m.id !== "mm-billing");
    expect((await call(importRoute.POST, {}, without, { query: "?replace=true" })).status).toBe(201);
    const again = await call(importRoute.POST, {}, sampleBundle(), { query: "?replace=true" });
    expect(again.status).toBe(400);
  });
});

describe("item 10: one set of rules for every door", () => {
  it("the API refuses a mental model without a source query (the editor requires one)", async () => {
    const res = await call(mentalModelsRoute.POST, { bank: "acme" }, { name: "No query", content: "c" });
    expect(res.status).toBe(400);
    expect(Object.keys(res.json.error?.fieldErrors ?? {})).toContain("sourceQuery");
    const blank = await call(
      mentalModelsRoute.POST,
      { bank: "acme" },
      { name: "Blank", sourceQuery: "  ", content: "c" },
    );
    expect(blank.status).toBe(400);
    const names = ((await exported("acme")).mentalModels as { name: string }[]).map((m) => m.name);
    expect(names).not.toContain("No query");
    expect(names).not.toContain("Blank");
  });

  it("a skill with a team scope the bank does not permit is refused by the API (create, update) and the action", async () => {
    const skill = { name: "Leaky", mission: "m", retrieval: { types: ["episodic"], scope: "team:other" } };
    const created = await call(skillsRoute.POST, { bank: "acme" }, skill);
    expect(created.status).toBe(403);
    expect(created.json.error?.code).toBe("scope_not_permitted");
    expect(Object.keys(created.json.error?.fieldErrors ?? {})).toContain("retrieval.scope");

    const updated = await call(
      skillRoute.PUT,
      { bank: "acme", id: "sk-recap" },
      { retrieval: { types: ["episodic"], scope: "team:other" }, expectedVersion: 1 },
      { method: "PUT" },
    );
    expect(updated.status).toBe(403);

    const action = await curation.createSkillAction({ bankId: "acme", skill: skill as never });
    expect(action.ok).toBe(false);
    if (!action.ok) expect(action.error.code).toBe("scope_not_permitted");

    const permitted = await call(
      skillsRoute.POST,
      { bank: "acme" },
      { ...skill, name: "Core", retrieval: { types: ["episodic"], scope: "team:core" } },
    );
    expect(permitted.status).toBe(201);
    const skills = (await exported("acme")).skills as { name: string; retrieval: { scope: string } }[];
    expect(skills.map((s) => s.name)).not.toContain("Leaky");
    expect(skills.find((s) => s.name === "recap")?.retrieval.scope).toBe("personal");
  });

  it("a suite naming an unknown skill or an unpermitted scope is refused by the API, both actions and JSONL", async () => {
    const bad = [
      [{ question: "q?", skill: "nope" }, "questions[0].skill", 400],
      [{ question: "q?", scope: "team:other" }, "questions[0].scope", 403],
    ] as const;
    for (const [question, field, status] of bad) {
      const res = await call(suitesRoute.POST, { bank: "acme" }, { name: "smoke", questions: [question] });
      expect(res.status, field).toBe(status);
      expect(Object.keys(res.json.error?.fieldErrors ?? {})).toContain(field);
      const saved = await experimentActions.saveSuiteAction({
        bankId: "acme",
        name: "smoke",
        questions: [question],
        expectedVersion: 0,
      } as never);
      expect(saved.ok, field).toBe(false);
      const added = await experimentActions.addToSuiteAction({
        bankId: "acme",
        name: "smoke",
        question,
        expectedVersion: 0,
      } as never);
      expect(added.ok, field).toBe(false);
    }
    const jsonl = await call(
      suiteImportRoute.POST,
      { bank: "acme", suite: "smoke" },
      { jsonl: `${JSON.stringify({ question: "ok?" })}\n${JSON.stringify({ question: "q?", scope: "team:other" })}\n` },
    );
    expect(jsonl.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(jsonl.json)).toMatch(/line 2/);
    expect((await exported("acme")).suites ?? []).toEqual([]);
  });

  it("MCP refuses JSON-RPC batches and bodies over its 1 MB cap", async () => {
    const headers = { accept: "application/json, text/event-stream", host: "127.0.0.1" };
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const batch = await call(mcpRoute.POST as unknown as Handler, {}, [list, { ...list, id: 2 }], { headers });
    expect(batch.status).toBe(400);
    expect(JSON.stringify(batch.json)).toMatch(/batch/i);

    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "memory_retain", arguments: { bank: "acme", facts: [{ text: "x".repeat(2_000_000) }] } },
    });
    const tooLarge = await call(mcpRoute.POST as unknown as Handler, {}, big, { headers });
    expect(tooLarge.status).toBe(413);
    // One message still works.
    const one = await call(mcpRoute.POST as unknown as Handler, {}, list, { headers });
    expect(one.status).toBe(200);
  });
});
