/**
 * The /api/v1 route handlers called as functions with real Requests, over a temp database seeded
 * with the demo bank and the offline model: status codes, bodies and error shapes a client sees.
 */
import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const dbFile = vi.hoisted(() => {
  const path = `${process.cwd()}/test/.tmp/api-${process.pid}-${Date.now()}.db`;
  process.env.DATABASE_URL = `file:${path}`;
  process.env.REFLECT_LLM = "offline";
  return path;
});

import * as bank from "@/app/api/v1/banks/[bank]/export/route";
import * as facts from "@/app/api/v1/banks/[bank]/facts/route";
import * as mentalModel from "@/app/api/v1/banks/[bank]/mental-models/[id]/route";
import * as mentalModels from "@/app/api/v1/banks/[bank]/mental-models/route";
import * as recall from "@/app/api/v1/banks/[bank]/recall/route";
import * as reflect from "@/app/api/v1/banks/[bank]/reflect/route";
import * as skill from "@/app/api/v1/banks/[bank]/skills/[id]/route";
import * as skills from "@/app/api/v1/banks/[bank]/skills/route";
import * as importRoute from "@/app/api/v1/banks/import/route";
import * as banks from "@/app/api/v1/banks/route";
import * as locomo from "@/app/api/v1/benchmarks/locomo/route";
import * as runEvents from "@/app/api/v1/runs/[id]/events/route";
import * as run from "@/app/api/v1/runs/[id]/route";
import * as runs from "@/app/api/v1/runs/route";
import { ReflectFinished } from "@/lib/contracts/runs";
import { getAppDb } from "@/lib/server/runtime/db";
import { MINI_LOCOMO } from "@/test/fixtures/locomo/mini";

type Handler = (request: Request, ctx: { params: Promise<Record<string, string> | undefined> }) => Promise<Response>;

async function call(
  handler: Handler,
  params: Record<string, string>,
  init: { method?: string; body?: unknown; rawBody?: string; query?: string; headers?: Record<string, string> } = {},
) {
  const body = init.rawBody ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  const request = new Request(`http://127.0.0.1/api/v1/x${init.query ?? ""}`, {
    method: init.method ?? (body === undefined ? "GET" : "POST"),
    body,
    headers: { "content-type": "application/json", ...init.headers },
  });
  // Like Next, routes without dynamic segments get no params object at all.
  const res = await handler(request, { params: Promise.resolve(Object.keys(params).length ? params : undefined) });
  const text = await res.text();
  const isJson = res.headers.get("content-type")?.includes("json");
  return { status: res.status, headers: res.headers, text, json: isJson && text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  mkdirSync(resolve(process.cwd(), "test/.tmp"), { recursive: true });
  await getAppDb();
});
afterAll(async () => {
  (await getAppDb()).$client.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${dbFile}${suffix}`, { force: true });
});

describe("POST /banks/{bank}/reflect", () => {
  it("wait: true answers 200 with the finished, cited run and the responseSchema deprecation", async () => {
    const res = await call(
      reflect.POST,
      { bank: "demo" },
      {
        body: {
          question: "What did we decide about the launch date?",
          skill: "decisions",
          wait: true,
          responseSchema: { type: "object" },
        },
      },
    );
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("done");
    expect(res.json.answer.length).toBeGreaterThan(20);
    const cited = Object.values(res.json.citations as Record<string, string[]>).flat();
    expect(cited.length).toBeGreaterThan(0);
    expect(res.json.warnings.join(" ")).toMatch(/responseSchema is deprecated/);
    expect(res.json.links).toEqual({
      self: `/api/v1/runs/${res.json.id}`,
      events: `/api/v1/runs/${res.json.id}/events`,
      inspector: `/runs/${res.json.id}`,
    });
    // The engine's result, as declared once: the same fields the stored run reports, failure receipt included.
    const finished = ReflectFinished.parse(res.json);
    expect(finished.error).toBeNull();
    const stored = (await call(run.GET, { id: finished.id })).json;
    expect(stored).toMatchObject({
      status: finished.status,
      answer: finished.answer,
      iterations: finished.iterations,
      llmCalls: finished.llmCalls,
    });
  });

  it("wait: false answers 202 at once with links; the run is then readable and finishes", async () => {
    const res = await call(reflect.POST, { bank: "demo" }, { body: { question: "What is blocking the SSO rollout?" } });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ status: "running", links: { inspector: `/runs/${res.json.runId}` } });
    expect(res.headers.get("location")).toBe(`/api/v1/runs/${res.json.runId}`);
    let detail = await call(run.GET, { id: res.json.runId });
    for (let i = 0; i < 100 && detail.json.status === "running"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      detail = await call(run.GET, { id: res.json.runId });
    }
    expect(detail.status).toBe(200);
    expect(detail.json.status).toBe("done");
    expect(detail.json.question).toBe("What is blocking the SSO rollout?");
  });

  it("refuses bad input with 400 and fieldErrors by path", async () => {
    const wrongType = await call(reflect.POST, { bank: "demo" }, { body: { question: 42, wait: "yes" } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json.error.code).toBe("invalid_input");
    expect(Object.keys(wrongType.json.error.fieldErrors).sort()).toEqual(["question", "wait"]);

    const oversize = await call(reflect.POST, { bank: "demo" }, { body: { question: "x".repeat(4001) } });
    expect(oversize.status).toBe(400);
    expect(oversize.json.error.fieldErrors.question.join()).toMatch(/oversize question/);

    const badScope = await call(reflect.POST, { bank: "demo" }, { body: { question: "hi", scope: "everyone" } });
    expect(badScope.status).toBe(400);
    expect(badScope.json.error.fieldErrors.scope).toBeDefined();

    const unknownSkill = await call(reflect.POST, { bank: "demo" }, { body: { question: "hi", skill: "nope" } });
    expect(unknownSkill.status).toBe(400);
    expect(unknownSkill.json.error.fieldErrors.skill).toEqual(["unknown skill"]);
  });

  it("refuses invalid JSON, an empty body and an oversize body", async () => {
    const invalid = await call(reflect.POST, { bank: "demo" }, { rawBody: "{question:" });
    expect(invalid.status).toBe(400);
    expect(invalid.json.error.code).toBe("invalid_json");
    const empty = await call(reflect.POST, { bank: "demo" }, { rawBody: "", method: "POST" });
    expect(empty.status).toBe(400);
    const huge = await call(reflect.POST, { bank: "demo" }, { body: { question: "q", pad: "x".repeat(1_100_000) } });
    expect(huge.status).toBe(413);
    expect(huge.json.error.code).toBe("body_too_large");
  });

  it("answers 404 for an unknown bank", async () => {
    const res = await call(reflect.POST, { bank: "nope" }, { body: { question: "hi" } });
    expect(res.status).toBe(404);
    expect(res.json.error).toEqual({ code: "not_found", message: 'unknown bank "nope"' });
  });
});

describe("POST /banks/{bank}/recall", () => {
  it("returns raw facts matching the query, honouring tags and limit", async () => {
    const res = await call(recall.POST, { bank: "demo" }, { body: { query: "SSO", limit: 3 } });
    expect(res.status).toBe(200);
    expect(res.json.count).toBe(res.json.memories.length);
    expect(res.json.count).toBeGreaterThan(0);
    expect(res.json.count).toBeLessThanOrEqual(3);
    expect(res.json.memories[0].text).toMatch(/SSO/i);

    const tagged = await call(recall.POST, { bank: "demo" }, { body: { query: "launch", tags: ["launch"] } });
    expect(tagged.json.count).toBeGreaterThan(0);
    for (const m of tagged.json.memories) expect(m.tags).toContain("launch");
  });

  it("searches the tier asked for: observations with their source facts, mental models with staleness", async () => {
    const obs = await call(recall.POST, { bank: "demo" }, { body: { query: "SSO", tier: "observations", limit: 3 } });
    expect(obs.status).toBe(200);
    expect(obs.json.tier).toBe("observations");
    expect(obs.json.observations.length).toBeGreaterThan(0);
    expect(obs.json.observations[0].sourceFactIds.length).toBeGreaterThan(0);
    expect(obs.json).toHaveProperty("freshness");
    const models = await call(recall.POST, { bank: "demo" }, { body: { query: "launch", tier: "mental_models" } });
    expect(models.json.tier).toBe("mental_models");
    expect(models.json.mentalModels[0]).toMatchObject({
      isStale: expect.any(Boolean),
      stalenessReason: expect.any(String),
    });
    expect(models.json).not.toHaveProperty("memories");
    const facts = await call(recall.POST, { bank: "demo" }, { body: { query: "SSO" } });
    expect(facts.json.tier).toBe("raw_facts");
    expect((await call(recall.POST, { bank: "demo" }, { body: { query: "x", tier: "episodic" } })).status).toBe(400);
    // Neighbours are for conversation turns: context on another tier is refused, not ignored.
    const ctx = await call(
      recall.POST,
      { bank: "demo" },
      { body: { query: "SSO", tier: "observations", context: true } },
    );
    expect(ctx.status).toBe(400);
    expect(ctx.json.error.message).toMatch(/context is for raw facts only \(got tier "observations"/);
  });

  it("brings a conversation turn's neighbours as context when asked", async () => {
    const retained = await call(
      facts.POST,
      { bank: "demo" },
      {
        body: {
          facts: [
            { id: "chat-1", text: "Any plans for the weekend?", speaker: "Ana", sessionId: "chat", position: 1 },
            {
              id: "chat-2",
              text: "Kayaking on Lake Zurvan with my sister.",
              speaker: "Ben",
              sessionId: "chat",
              position: 2,
            },
          ],
        },
      },
    );
    expect(retained.status).toBe(201);
    const found = await call(recall.POST, { bank: "demo" }, { body: { query: "Zurvan kayaking", context: true } });
    const hit = found.json.memories.find((m: { id: string }) => m.id === "chat-2");
    expect(hit).toMatchObject({ speaker: "Ben", sessionId: "chat", position: 2 });
    expect(hit.context.before).toMatchObject({ id: "chat-1", speaker: "Ana", text: "Any plans for the weekend?" });
    expect(hit.context.after).toBeNull();
    const plain = await call(recall.POST, { bank: "demo" }, { body: { query: "Zurvan kayaking" } });
    expect(plain.json.memories[0]).not.toHaveProperty("context");
  });

  it("refuses a team scope the bank does not permit with 403 scope_not_permitted", async () => {
    const res = await call(recall.POST, { bank: "demo" }, { body: { query: "budget", scope: "team:finance" } });
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe("scope_not_permitted");
  });

  it("refuses a malformed scope, wrong types and an unknown bank", async () => {
    expect((await call(recall.POST, { bank: "demo" }, { body: { query: "x", scope: "team:" } })).status).toBe(400);
    expect(
      (await call(recall.POST, { bank: "demo" }, { body: { query: ["x"], limit: 0 } })).json.error.fieldErrors,
    ).toHaveProperty("limit");
    expect((await call(recall.POST, { bank: "zzz" }, { body: { query: "x" } })).status).toBe(404);
  });
});

describe("POST /banks/{bank}/facts", () => {
  it("stores facts atomically and reports mental models in their scope that became stale", async () => {
    const refreshedAt = new Date(Date.now() - 60_000).toISOString();
    const created = await call(
      mentalModels.POST,
      { bank: "demo" },
      {
        body: {
          id: "mm-retain",
          name: "Retain test",
          sourceQuery: "retain test?",
          content: "Summary.",
          tags: ["retain-test"],
          refreshedAt,
        },
      },
    );
    expect(created.status).toBe(201);
    expect(created.json.isStale).toBe(false);

    const res = await call(
      facts.POST,
      { bank: "demo" },
      { body: { facts: [{ text: "The retain test shipped on Friday.", tags: ["retain-test"] }] } },
    );
    expect(res.status).toBe(201);
    expect(res.json.inserted).toHaveLength(1);
    expect(res.json.staleMentalModels).toContainEqual({
      id: "mm-retain",
      name: "Retain test",
      reason: "1 newer memory in scope",
    });
    const after = await call(mentalModel.GET, { bank: "demo", id: "mm-retain" });
    expect(after.json.mentalModel.isStale).toBe(true);

    const found = await call(recall.POST, { bank: "demo" }, { body: { query: "retain test shipped" } });
    expect(found.json.memories.map((m: { id: string }) => m.id)).toContain(res.json.inserted[0]);
  });

  it("rewrites a fact when its id exists, keeping one copy", async () => {
    const first = await call(
      facts.POST,
      { bank: "demo" },
      { body: { facts: [{ id: "f-upsert", text: "Old text." }] } },
    );
    expect(first.json.inserted).toEqual(["f-upsert"]);
    const second = await call(
      facts.POST,
      { bank: "demo" },
      { body: { facts: [{ id: "f-upsert", text: "Zanzibar rewritten text." }] } },
    );
    expect(second.json).toMatchObject({ inserted: [], updated: ["f-upsert"] });
    const found = await call(recall.POST, { bank: "demo" }, { body: { query: "Zanzibar" } });
    expect(found.json.memories.map((m: { id: string }) => m.id)).toEqual(["f-upsert"]);
  });

  it("rejects the whole request when one fact is bad, storing none", async () => {
    const res = await call(
      facts.POST,
      { bank: "demo" },
      { body: { facts: [{ text: "Quetzalcoatl fact one." }, { text: "two", scope: "everyone" }] } },
    );
    expect(res.status).toBe(400);
    expect(Object.keys(res.json.error.fieldErrors)).toEqual(["facts[1].scope"]);
    const found = await call(recall.POST, { bank: "demo" }, { body: { query: "Quetzalcoatl" } });
    expect(found.json.count).toBe(0);
    expect((await call(facts.POST, { bank: "demo" }, { body: { facts: [] } })).status).toBe(400);
    expect((await call(facts.POST, { bank: "nope" }, { body: { facts: [{ text: "x" }] } })).status).toBe(404);
  });
});

describe("mental models CRUD", () => {
  it("lists, reads with versions, updates with expectedVersion and deletes", async () => {
    const list = await call(mentalModels.GET, { bank: "demo" });
    expect(list.status).toBe(200);
    expect(list.json.mentalModels.map((m: { id: string }) => m.id)).toContain("mm-pricing");

    const created = await call(
      mentalModels.POST,
      { bank: "demo" },
      { body: { name: "CRUD model", sourceQuery: "crud?", content: "v1" } },
    );
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    expect(created.json.version).toBe(1);

    const updated = await call(
      mentalModel.PUT,
      { bank: "demo", id },
      { method: "PUT", body: { expectedVersion: 1, content: "v2" } },
    );
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ version: 2, content: "v2", name: "CRUD model" });

    const conflict = await call(
      mentalModel.PUT,
      { bank: "demo", id },
      { method: "PUT", body: { expectedVersion: 1, content: "lost edit" } },
    );
    expect(conflict.status).toBe(409);
    expect(conflict.json.error.code).toBe("conflict");
    expect(conflict.json.error.current).toMatchObject({ id, version: 2, content: "v2" });

    const detail = await call(mentalModel.GET, { bank: "demo", id });
    expect(detail.json.versions.map((v: { version: number; content: string }) => [v.version, v.content])).toEqual([
      [2, "v2"],
      [1, "v1"],
    ]);

    expect((await call(mentalModel.DELETE, { bank: "demo", id }, { method: "DELETE" })).status).toBe(204);
    expect((await call(mentalModel.GET, { bank: "demo", id })).status).toBe(404);
    expect((await call(mentalModel.DELETE, { bank: "demo", id }, { method: "DELETE" })).status).toBe(404);
  });

  it("refuses a duplicate id with 409 and bad fields with 400", async () => {
    const dup = await call(
      mentalModels.POST,
      { bank: "demo" },
      { body: { id: "mm-pricing", name: "Dup", sourceQuery: "dup?" } },
    );
    expect(dup.status).toBe(409);
    const bad = await call(mentalModels.POST, { bank: "demo" }, { body: { name: "", tags: "x", sourceQuery: "q?" } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.json.error.fieldErrors).sort()).toEqual(["name", "tags"]);
    const noVersion = await call(
      mentalModel.PUT,
      { bank: "demo", id: "mm-pricing" },
      { method: "PUT", body: { content: "x" } },
    );
    expect(noVersion.status).toBe(400);
    expect(noVersion.json.error.fieldErrors).toHaveProperty("expectedVersion");
  });
});

describe("skills CRUD", () => {
  it("creates, reads, updates with conflict detection, and deletes a skill", async () => {
    const list = await call(skills.GET, { bank: "demo" });
    expect(list.json.skills.map((s: { name: string }) => s.name)).toEqual(
      expect.arrayContaining(["recap", "decisions", "actionables", "blockers", "prep"]),
    );
    const created = await call(
      skills.POST,
      { bank: "demo" },
      { body: { name: "risks", mission: "List the risks.", retrieval: { types: ["observation"] } } },
    );
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: "risks", version: 1, budget: "mid", anchorEvery: 4 });
    const id = created.json.id as string;

    const sameName = await call(
      skills.POST,
      { bank: "demo" },
      { body: { name: "risks", mission: "x", retrieval: { types: ["episodic"] } } },
    );
    expect(sameName.status).toBe(409);

    const updated = await call(
      skill.PUT,
      { bank: "demo", id },
      { method: "PUT", body: { expectedVersion: 1, budget: "low" } },
    );
    expect(updated.json).toMatchObject({ version: 2, budget: "low", mission: "List the risks." });
    const stale = await call(
      skill.PUT,
      { bank: "demo", id },
      { method: "PUT", body: { expectedVersion: 1, budget: "high" } },
    );
    expect(stale.status).toBe(409);
    expect(stale.json.error.current).toMatchObject({ version: 2, budget: "low" });

    const detail = await call(skill.GET, { bank: "demo", id });
    expect(detail.json.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);

    const badType = await call(
      skills.POST,
      { bank: "demo" },
      { body: { name: "x", mission: "m", retrieval: { types: ["telepathy"] } } },
    );
    expect(badType.status).toBe(400);
    expect(Object.keys(badType.json.error.fieldErrors)).toEqual(["retrieval.types[0]"]);

    expect((await call(skill.DELETE, { bank: "demo", id }, { method: "DELETE" })).status).toBe(204);
    expect((await call(skill.GET, { bank: "demo", id })).status).toBe(404);
  });
});

describe("runs", () => {
  it("lists runs with filters and refuses a bad filter or cursor", async () => {
    const res = await call(runs.GET, {}, { query: "?bank=demo&limit=1" });
    expect(res.status).toBe(200);
    expect(res.json.runs).toHaveLength(1);
    expect(res.json.nextCursor).toEqual(expect.any(String));
    const next = await call(runs.GET, {}, { query: `?bank=demo&limit=1&cursor=${res.json.nextCursor}` });
    expect(next.json.runs[0].id).not.toBe(res.json.runs[0].id);
    expect((await call(runs.GET, {}, { query: "?status=exploded" })).status).toBe(400);
    expect((await call(runs.GET, {}, { query: "?limit=0" })).status).toBe(400);
    const garbage = await call(runs.GET, {}, { query: "?cursor=garbage" });
    expect(garbage.status).toBe(400);
    expect(garbage.json.error).toMatchObject({ code: "invalid_input", fieldErrors: { cursor: [expect.any(String)] } });
  });

  it("refuses a list filter it does not take or a value outside the allowed set, naming the allowed ones", async () => {
    // `flag` is not the list's filter (`badge` is): it used to be dropped and every run listed.
    const unknown = await call(runs.GET, {}, { query: "?flag=bogus" });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.code).toBe("invalid_input");
    expect(unknown.json.error.message).toBe(
      'Unknown query parameter "flag": it takes bank, skill, status, badge, kind, q, cursor, limit.',
    );
    expect(unknown.json.error.fieldErrors.flag[0]).toMatch(/allowed: bank, skill, status, badge/);
    const badValue = await call(runs.GET, {}, { query: "?badge=bogus" });
    expect(badValue.status).toBe(400);
    expect(badValue.json.error.message).toMatch(/^Invalid query parameter badge: .*"missed_evidence"/);
    // The kind filter names its values too.
    const badKind = await call(runs.GET, {}, { query: "?kind=judges" });
    expect(badKind.status).toBe(400);
    expect(badKind.json.error.message).toMatch(/^Invalid query parameter kind: .*"answer".*"judge"/);
    expect((await call(runs.GET, {}, { query: "?kind=" })).status).toBe(400);
    expect((await call(runs.GET, {}, { query: "?kind=answer&kind=judge" })).status).toBe(400);
    expect((await call(runs.GET, {}, { query: "?kind=judge" })).status).toBe(200);
    const twice = await call(runs.GET, {}, { query: "?status=done&status=failed" });
    expect(twice.status).toBe(400);
    expect(twice.json.error.fieldErrors).toEqual({ status: ["given more than once; give it once"] });
    // An empty value filters nothing a reader can see: refused, not read as "every bank".
    const empty = await call(runs.GET, {}, { query: "?bank=" });
    expect(empty.status).toBe(400);
    expect(empty.json.error.fieldErrors).toEqual({ bank: ["empty: give a value or leave the parameter out"] });
    // The same filters, spelled right, still list.
    expect((await call(runs.GET, {}, { query: "?badge=missed_evidence&status=done" })).status).toBe(200);
  });

  it("other lists and reads refuse query parameters they do not take", async () => {
    for (const [handler, params] of [
      [skills.GET, { bank: "demo" }],
      [mentalModels.GET, { bank: "demo" }],
      [banks.GET, {}],
    ] as const) {
      const res = await call(handler, params, { query: "?status=done" });
      expect(res.status).toBe(400);
      expect(res.json.error.message).toBe('Unknown query parameter "status": it takes no query parameters.');
      expect((await call(handler, params)).status).toBe(200);
    }
    const events = await call(runEvents.GET, { id: "run_nope" }, { query: "?since=3" });
    expect(events.status).toBe(400);
    expect(events.json.error.message).toMatch(/"since": it takes after\./);
  });

  it("answers 404 for an unknown run", async () => {
    expect((await call(run.GET, { id: "run_nope" })).status).toBe(404);
    expect((await call(runEvents.GET, { id: "run_nope" })).status).toBe(404);
  });

  it("a stored run carries its missed-evidence probe, as the finished result and the probe.finished event say", async () => {
    const finished = await call(
      reflect.POST,
      { bank: "demo" },
      { body: { question: "What did we decide about the launch date?", wait: true } },
    );
    expect(finished.json.probe).not.toBeNull();
    const read = await call(run.GET, { id: finished.json.id });
    expect(read.status).toBe(200);
    const events = await call(runEvents.GET, { id: finished.json.id });
    const probeEvent = events.json.events.find((e: { type: string }) => e.type === "probe.finished");
    expect(read.json.probe).toEqual(probeEvent.payload);
    expect(read.json.probe).toEqual(finished.json.probe);
    // Facts mode makes no probe: null, not absent.
    const facts = await call(
      reflect.POST,
      { bank: "demo" },
      { body: { question: "Pricing decisions?", mode: "facts", wait: true } },
    );
    const factsRead = await call(run.GET, { id: facts.json.id });
    expect(factsRead.json).toHaveProperty("probe", null);
  });

  it("returns a run's events as JSON, after a seq when asked", async () => {
    const started = await call(
      reflect.POST,
      { bank: "demo" },
      { body: { question: "Pricing decisions?", wait: true } },
    );
    const all = await call(runEvents.GET, { id: started.json.id });
    expect(all.status).toBe(200);
    expect(all.json.status).toBe("done");
    expect(all.json.events[0].type).toBe("run.started");
    expect(all.json.events.at(-1).type).toBe("run.finished");
    const tail = await call(runEvents.GET, { id: started.json.id }, { query: "?after=2" });
    expect(tail.json.events[0].seq).toBe(3);
  });

  it("streams events as server-sent events, resuming after Last-Event-ID, and closes after run.finished", async () => {
    const started = await call(reflect.POST, { bank: "demo" }, { body: { question: "Who owns SSO?" } });
    const id = started.json.runId as string;
    const stream = await call(runEvents.GET, { id }, { headers: { accept: "text/event-stream" } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    // Keep-alive comments (": keep-alive") may come between events on a loaded machine: SSE clients skip them.
    const eventFrames = (text: string) =>
      text
        .trim()
        .split("\n\n")
        .filter((f) => !f.startsWith(":"));
    const frames = eventFrames(stream.text);
    expect(frames[0]).toMatch(/^id: 0\nevent: run\.started\ndata: \{/);
    expect(frames.at(-1)).toMatch(/event: run\.finished/);
    const seqs = frames.map((f) => Number(/^id: (\d+)/.exec(f)?.[1]));
    expect(seqs).toEqual(seqs.map((_, i) => i));

    const resumed = await call(
      runEvents.GET,
      { id },
      { headers: { accept: "text/event-stream", "last-event-id": String(seqs.length - 3) } },
    );
    expect(eventFrames(resumed.text).map((f) => /^id: (\d+)/.exec(f)?.[1])).toEqual([
      String(seqs.length - 2),
      String(seqs.length - 1),
    ]);
    // A Last-Event-ID that is no seq ("2abc", a fraction, below -1, far past the end of a number) is
    // not read as one: the stream starts where `?after=` (or the start) says.
    // Nor is a number in another notation ("0x1" read as 1, "1e1" as 10: seqs no server sent).
    for (const bad of ["2abc", "1.5", "-7", "1e400", " ", "0x1", "1e1", "+1", "0b1"]) {
      const again = await call(
        runEvents.GET,
        { id },
        { headers: { accept: "text/event-stream", "last-event-id": bad }, query: `?after=${seqs.length - 2}` },
      );
      expect(again.status, bad).toBe(200);
      expect(
        eventFrames(again.text).map((f) => /^id: (\d+)/.exec(f)?.[1]),
        bad,
      ).toEqual([String(seqs.length - 1)]);
    }
    // `?after=` is read as strictly: decimal digits or a 400 naming it, never " " as 0 or "0x1" as 1.
    for (const bad of ["%20", "%201", "0x1", "1e1", "+1", "0o7"]) {
      for (const accept of ["text/event-stream", "application/json"]) {
        const refused = await call(runEvents.GET, { id }, { headers: { accept }, query: `?after=${bad}` });
        expect(refused.status, `${bad} ${accept}`).toBe(400);
        expect(refused.json.error.fieldErrors.after[0], bad).toMatch(/a number in decimal digits/);
      }
    }
    expect((await call(runEvents.GET, { id }, { query: "?after=-1" })).status).toBe(200);
    expect((await call(runs.GET, {}, { query: "?limit=0x2" })).status).toBe(400);
    expect((await call(runs.GET, {}, { query: "?limit=1.5" })).status).toBe(400);
  });
});

describe("bundles", () => {
  it("exports a bank and imports it back under replace; a bad bundle changes nothing", async () => {
    const exported = await call(bank.GET, { bank: "demo" });
    expect(exported.status).toBe(200);
    expect(exported.json.bank.id).toBe("demo");

    const copy = { ...exported.json, bank: { ...exported.json.bank, id: "copy", name: "Copy" } };
    const created = await call(importRoute.POST, {}, { body: copy });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      bankId: "copy",
      counts: { skills: exported.json.skills.length, suites: exported.json.suites.length },
    });

    const again = await call(importRoute.POST, {}, { body: copy });
    expect(again.status).toBe(400);
    expect(again.json.error.fieldErrors).toHaveProperty(["bank.id"]);
    expect((await call(importRoute.POST, {}, { body: copy, query: "?replace=true" })).status).toBe(201);

    const broken = structuredClone(copy);
    broken.bank.id = "broken";
    broken.facts[2].scope = "everyone";
    const bad = await call(importRoute.POST, {}, { body: broken });
    expect(bad.status).toBe(400);
    expect(bad.json.error.fieldErrors).toHaveProperty(["facts[2].scope"]);
    expect((await call(bank.GET, { bank: "broken" })).status).toBe(404);

    const listed = await call(banks.GET, {});
    expect(listed.json.banks.map((b: { id: string }) => b.id)).toEqual(["copy", "demo"]);
  });
});

describe("a query with nothing to search for (only common words)", () => {
  it("recall answers 400 saying nothing was searched, not an empty list", async () => {
    const res = await call(recall.POST, { bank: "demo" }, { body: { query: "What is it?" } });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_input");
    expect(res.json.error.message).toContain("nothing was searched");
  });

  it('reflect fails saying nothing was searched, never no_evidence ("no relevant memories")', async () => {
    for (const mode of ["synthesize", "facts"] as const) {
      const res = await call(reflect.POST, { bank: "demo" }, { body: { question: "What is it?", mode, wait: true } });
      expect(res.status).toBe(200);
      expect(res.json.status, mode).toBe("failed");
      expect(res.json.answer).toBe("");
      expect(res.json.error.message).toContain("has no words to search for");
    }
  });

  it("a question with one real word still searches and answers", async () => {
    const res = await call(reflect.POST, { bank: "demo" }, { body: { question: "What is SSO?", wait: true } });
    expect(["done", "degraded"]).toContain(res.json.status);
  });
});

describe("POST /benchmarks/locomo", () => {
  it("imports LoCoMo's file as banks and suites, reports repairs, refuses it again without replace", async () => {
    const res = await call(locomo.POST, {}, { body: MINI_LOCOMO, query: "?prefix=api-&minF1=0.6" });
    expect(res.status).toBe(201);
    expect(res.json.banks[0]).toMatchObject({ bankId: "api-mini-1", suite: "locomo-mini-1" });
    expect(res.json.repairs.count).toBe(5);
    const again = await call(locomo.POST, {}, { body: MINI_LOCOMO, query: "?prefix=api-" });
    expect(again.status).toBe(409);
    expect((await call(locomo.POST, {}, { body: MINI_LOCOMO, query: "?prefix=api-&replace=true" })).status).toBe(201);
  });

  it("answers 400 naming the path and the value for a file that is not LoCoMo's shape, or a bad option", async () => {
    const res = await call(locomo.POST, {}, { body: [{ sample_id: "x", conversation: { speaker_a: "A" } }] });
    expect(res.status).toBe(400);
    expect(res.json.error.fieldErrors["[0].conversation.speaker_b"][0]).toMatch(/\(missing\)$/);
    expect((await call(locomo.POST, {}, { body: MINI_LOCOMO, query: "?minF1=2" })).status).toBe(400);
    expect((await call(locomo.POST, {}, { body: MINI_LOCOMO, query: "?summaries=maybe" })).status).toBe(400);
  });
});
