/**
 * /api/v1 suites and experiments, route handlers called with real Requests over a temp database
 * seeded with the demo bank and the offline model.
 */
import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const dbFile = vi.hoisted(() => {
  const path = `${process.cwd()}/test/.tmp/api-exp-${process.pid}-${Date.now()}.db`;
  process.env.DATABASE_URL = `file:${path}`;
  process.env.REFLECT_LLM = "offline";
  return path;
});

import * as suiteExport from "@/app/api/v1/banks/[bank]/suites/[suite]/export/route";
import * as suiteImport from "@/app/api/v1/banks/[bank]/suites/[suite]/import/route";
import * as suite from "@/app/api/v1/banks/[bank]/suites/[suite]/route";
import * as suites from "@/app/api/v1/banks/[bank]/suites/route";
import * as cancel from "@/app/api/v1/experiments/[id]/cancel/route";
import * as experiment from "@/app/api/v1/experiments/[id]/route";
import * as compare from "@/app/api/v1/experiments/compare/route";
import * as experiments from "@/app/api/v1/experiments/route";
import { Experiment, ExperimentComparison } from "@/lib/contracts/experiments";
import { SuiteWithHistory } from "@/lib/contracts/suites";
import { getAppDb } from "@/lib/server/runtime/db";

type Handler = (request: Request, ctx: { params: Promise<Record<string, string> | undefined> }) => Promise<Response>;

async function call(
  handler: Handler,
  params: Record<string, string>,
  init: { method?: string; body?: unknown; query?: string; headers?: Record<string, string> } = {},
) {
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  const request = new Request(`http://127.0.0.1/api/v1/x${init.query ?? ""}`, {
    method: init.method ?? (body === undefined ? "GET" : "POST"),
    body,
    headers: { "content-type": "application/json", ...init.headers },
  });
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

const QUESTIONS = [
  { question: "When did Atlas launch?", skill: "recap", expect: { status: ["done"], contains: ["October 20"] } },
  { question: "What is blocking the SSO rollout?", skill: "blockers" },
];

describe("suites API", () => {
  it("creates, reads, edits with a version check, exports, imports and deletes a suite", async () => {
    const created = await call(suites.POST, { bank: "demo" }, { body: { name: "api-suite", questions: QUESTIONS } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: "api-suite", version: 1, description: "" });
    expect((await call(suites.POST, { bank: "demo" }, { body: { name: "api-suite", questions: [] } })).status).toBe(
      409,
    );

    const list = await call(suites.GET, { bank: "demo" });
    expect(list.json.suites.map((s: { name: string }) => s.name)).toEqual(["api-suite", "demo-tour"]);

    const stale = await call(
      suite.PUT,
      { bank: "demo", suite: "api-suite" },
      { method: "PUT", body: { description: "x", questions: QUESTIONS, expectedVersion: 7 } },
    );
    expect(stale.status).toBe(409);
    expect(stale.json.error.current.version).toBe(1);
    const edited = await call(
      suite.PUT,
      { bank: "demo", suite: "api-suite" },
      { method: "PUT", body: { description: "edited", questions: QUESTIONS.slice(0, 1), expectedVersion: 1 } },
    );
    expect(edited.status).toBe(200);
    const detail = SuiteWithHistory.parse((await call(suite.GET, { bank: "demo", suite: "api-suite" })).json);
    expect(detail.versions.map((v) => [v.version, v.questions.length])).toEqual([
      [2, 1],
      [1, 2],
    ]);

    const exported = await call(suiteExport.GET, { bank: "demo", suite: "api-suite" });
    expect(exported.headers.get("content-type")).toContain("application/x-ndjson");
    expect(
      exported.text
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual(QUESTIONS.slice(0, 1));

    const imported = await call(
      suiteImport.POST,
      { bank: "demo", suite: "api-suite" },
      { body: { jsonl: QUESTIONS.map((q) => JSON.stringify(q)).join("\n") } },
    );
    expect(imported.status).toBe(200);
    expect(imported.json).toMatchObject({ version: 3, description: "edited" });

    expect((await call(suite.DELETE, { bank: "demo", suite: "api-suite" }, { method: "DELETE" })).status).toBe(204);
    expect((await call(suite.GET, { bank: "demo", suite: "api-suite" })).status).toBe(404);
  });

  it.each([
    ["a question without text", { name: "s1", questions: [{ question: "" }] }, "questions[0].question"],
    [
      "an unknown status",
      { name: "s1", questions: [{ question: "Q?", expect: { status: ["great"] } }] },
      "questions[0].expect.status[0]",
    ],
    [
      "an unknown expectation",
      { name: "s1", questions: [{ question: "Q?", expect: { maybe: 1 } }] },
      "questions[0].expect",
    ],
    ["a name that is not a slug", { name: "has space", questions: [] }, "name"],
  ])("refuses %s with 400 naming the field", async (_what, body, path) => {
    const res = await call(suites.POST, { bank: "demo" }, { body });
    expect(res.status).toBe(400);
    expect(Object.keys(res.json.error.fieldErrors)).toContain(path);
  });

  it("refuses a bad JSONL line by number and imports nothing", async () => {
    const res = await call(
      suiteImport.POST,
      { bank: "demo", suite: "never" },
      { body: { jsonl: '{"question":"A?"}\n{"question":"B?","budget":"huge"}' } },
    );
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(/^line 2: budget: .*nothing was imported/);
    expect((await call(suite.GET, { bank: "demo", suite: "never" })).status).toBe(404);
  });

  it("refuses a line naming a skill the bank does not have, by number, and imports nothing", async () => {
    const res = await call(
      suiteImport.POST,
      { bank: "demo", suite: "never" },
      { body: { jsonl: '{"question":"A?","skill":"recap"}\n{"question":"B?","skill":"no-such-skill"}' } },
    );
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(
      /^line 2: skill "no-such-skill" is not a skill of bank demo \(it has .*recap/,
    );
    expect(res.json.error.fieldErrors).toEqual({ "line 2": [expect.stringContaining("no-such-skill")] });
    expect((await call(suite.GET, { bank: "demo", suite: "never" })).status).toBe(404);
  });
});

describe("experiments API", { timeout: 120_000 }, () => {
  async function until(id: string) {
    for (;;) {
      const e = Experiment.parse((await call(experiment.GET, { id })).json);
      if (e.status !== "running") return e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it("starts (202), follows to done, streams progress, compares, and refuses to cancel a finished one", async () => {
    const started = await call(experiments.POST, {}, { body: { bank: "demo", suite: "demo-tour", concurrency: 2 } });
    expect(started.status).toBe(202);
    const id = Experiment.parse(started.json).id;
    const done = await until(id);
    expect(done.totals).toMatchObject({ questions: 10, finished: 10, passed: 10, failed: 0, passRate: 1 });

    const stream = await call(experiment.GET, { id }, { headers: { accept: "text/event-stream" } });
    expect(stream.text).toMatch(/event: progress\ndata: \{"status":"done","questions":10,"finished":10/);

    const second = Experiment.parse(
      (await call(experiments.POST, {}, { body: { bank: "demo", suite: "demo-tour", config: { budget: "low" } } }))
        .json,
    );
    await until(second.id);
    const cmp = await call(compare.GET, {}, { query: `?base=${id}&head=${second.id}` });
    expect(cmp.status).toBe(200);
    const parsed = ExperimentComparison.parse(cmp.json);
    expect(parsed.questions).toHaveLength(10);
    expect(parsed.totals.regressions).toBe(parsed.questions.filter((q) => q.regression).length);

    const list = await call(experiments.GET, {}, { query: "?bank=demo&suite=demo-tour" });
    expect(list.json.experiments.map((e: { id: string }) => e.id)).toEqual([second.id, id]);

    const late = await call(cancel.POST, { id }, { method: "POST" });
    expect(late.status).toBe(409);
  });

  it.each([
    ["concurrency 0", { bank: "demo", suite: "demo-tour", concurrency: 0 }, 400],
    ["an unknown config key", { bank: "demo", suite: "demo-tour", config: { temperature: 2 } }, 400],
    [
      "an empty mission draft",
      { bank: "demo", suite: "demo-tour", config: { skill: { name: "recap", mission: " " } } },
      400,
    ],
    ["an unknown suite", { bank: "demo", suite: "nope" }, 404],
    ["an unknown bank", { bank: "nope", suite: "demo-tour" }, 404],
  ])("refuses %s", async (_what, body, status) => {
    const res = await call(experiments.POST, {}, { body });
    expect(res.status).toBe(status);
  });

  it("answers 404 for an unknown experiment and 400 for a compare without both ids", async () => {
    expect((await call(experiment.GET, { id: "exp_nope" })).status).toBe(404);
    expect((await call(compare.GET, {}, { query: "?base=exp_a" })).status).toBe(400);
    expect((await call(compare.GET, {}, { query: "?base=exp_a&head=exp_b" })).status).toBe(404);
  });
});
