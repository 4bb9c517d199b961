/**
 * The OpenAPI document says what the server does: real responses of every /api/v1 operation —
 * successes and the 400/401/403/404/405/409/413/415/500 errors — are checked against the document
 * with ajv (JSON Schema 2020-12): the status must be declared for the operation, the content type
 * listed, the body valid against the declared schema, every required header present and every
 * header sent declared (but the transport's and the security headers every response carries).
 * The document itself passes Spectral's recommended OpenAPI ruleset without a warning.
 */
import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { Document, Spectral } from "@stoplight/spectral-core";
import Parsers from "@stoplight/spectral-parsers";
import { oas } from "@stoplight/spectral-rulesets";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const dbFile = vi.hoisted(() => {
  const path = `${process.cwd()}/test/.tmp/openapi-responses-${process.pid}-${Date.now()}.db`;
  process.env.DATABASE_URL = `file:${path}`;
  process.env.REFLECT_LLM = "offline";
  return path;
});

import * as bankExport from "@/app/api/v1/banks/[bank]/export/route";
import * as facts from "@/app/api/v1/banks/[bank]/facts/route";
import * as mentalModel from "@/app/api/v1/banks/[bank]/mental-models/[id]/route";
import * as mentalModels from "@/app/api/v1/banks/[bank]/mental-models/route";
import * as recall from "@/app/api/v1/banks/[bank]/recall/route";
import * as reflect from "@/app/api/v1/banks/[bank]/reflect/route";
import * as runRetention from "@/app/api/v1/banks/[bank]/run-retention/route";
import * as skill from "@/app/api/v1/banks/[bank]/skills/[id]/route";
import * as skills from "@/app/api/v1/banks/[bank]/skills/route";
import * as suiteExport from "@/app/api/v1/banks/[bank]/suites/[suite]/export/route";
import * as suiteImport from "@/app/api/v1/banks/[bank]/suites/[suite]/import/route";
import * as suite from "@/app/api/v1/banks/[bank]/suites/[suite]/route";
import * as suites from "@/app/api/v1/banks/[bank]/suites/route";
import * as hindsightImport from "@/app/api/v1/banks/import/hindsight/route";
import * as importRoute from "@/app/api/v1/banks/import/route";
import * as banks from "@/app/api/v1/banks/route";
import * as locomo from "@/app/api/v1/benchmarks/locomo/route";
import * as experimentCancel from "@/app/api/v1/experiments/[id]/cancel/route";
import * as experiment from "@/app/api/v1/experiments/[id]/route";
import * as experimentCompare from "@/app/api/v1/experiments/compare/route";
import * as experiments from "@/app/api/v1/experiments/route";
import * as openapi from "@/app/api/v1/openapi.json/route";
import * as runEvents from "@/app/api/v1/runs/[id]/events/route";
import * as runOtlp from "@/app/api/v1/runs/[id]/otlp/route";
import * as run from "@/app/api/v1/runs/[id]/route";
import * as runPrune from "@/app/api/v1/runs/prune/route";
import * as runs from "@/app/api/v1/runs/route";
import * as runStream from "@/app/api/v1/runs/stream/route";
import { buildOpenApiDocument } from "@/lib/server/http/api/openapi";
import { STATIC_SECURITY_HEADERS } from "@/lib/server/http/security-headers";
import { getAppDb } from "@/lib/server/runtime/db";
import { proxy } from "@/proxy";

type Handler = (
  request: Request,
  ctx: { params: Promise<Record<string, string> | undefined> },
) => Response | Promise<Response>;
type Json = Record<string, unknown>;

const doc = JSON.parse(JSON.stringify(buildOpenApiDocument())) as Json & {
  paths: Record<string, Record<string, Json & { operationId: string; responses: Record<string, Json> }>>;
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(doc, "openapi.json");

const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
);
/** Which operation ids got a validated response from their own route (every one must, by the end). */
const covered = new Set<string>();
/** Which error statuses were seen validated. */
const statuses = new Set<number>();

function markSeen(operationId: string, status: number) {
  statuses.add(status);
  // A 401 comes from the proxy, not the operation's route.
  if (status !== 401) covered.add(operationId);
}

function resolveRef<T>(node: Json): T {
  const ref = node.$ref;
  if (typeof ref !== "string") return node as T;
  return ref
    .slice(2)
    .split("/")
    .reduce<unknown>((n, key) => (n as Json)[key], doc) as T;
}

/**
 * Headers no OpenAPI response declares: the transport's, and the security headers the proxy puts
 * on every response (SECURITY.md). Anything else a response sends must be in the document.
 */
const UNDECLARED_OK = new Set([
  "content-type", // declared as the response's media types
  "content-length",
  "date",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-security-policy",
  ...Object.keys(STATIC_SECURITY_HEADERS),
]);

/** Checks one real response against the document's declaration for (operation, status). */
async function expectDocumented(operationId: string, res: Response): Promise<Json | string | null> {
  const operation = operations.find((o) => o.op.operationId === operationId);
  expect(operation, `operation ${operationId} is documented`).toBeDefined();
  const declared = operation!.op.responses[String(res.status)];
  expect(declared, `${operationId} declares ${res.status}`).toBeDefined();
  const response = resolveRef<{
    content?: Record<string, { schema: Json }>;
    headers?: Record<string, Json & { required?: boolean }>;
  }>(declared!);
  const declaredHeaders = new Map(Object.entries(response.headers ?? {}).map(([n, h]) => [n.toLowerCase(), h]));
  for (const [name, header] of declaredHeaders) {
    if (header.required) expect(res.headers.get(name), `${operationId} ${res.status} sends ${name}`).toBeTruthy();
  }
  for (const name of res.headers.keys()) {
    if (UNDECLARED_OK.has(name)) continue;
    expect(declaredHeaders.has(name), `${operationId} ${res.status} declares the header it sends: ${name}`).toBe(true);
  }
  const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim();
  if (!response.content) {
    expect(type, `${operationId} ${res.status} has no content type`).toBe("");
    expect(await res.text(), `${operationId} ${res.status} has no body`).toBe("");
    markSeen(operationId, res.status);
    return null;
  }
  const media = response.content[type];
  expect(media, `${operationId} ${res.status} lists ${type}`).toBeDefined();
  if (type === "text/event-stream") {
    await res.body?.cancel();
    markSeen(operationId, res.status);
    return null;
  }
  if (type === "application/x-ndjson") {
    // JSONL: one JSON document per line.
    const lines = (await res.text()).split("\n").filter(Boolean);
    for (const line of lines) expect(() => JSON.parse(line), `${operationId}: a JSON line`).not.toThrow();
    markSeen(operationId, res.status);
    return lines.join("\n");
  }
  const body = (await res.json()) as Json;
  const validate = ajv.compile({ $ref: `openapi.json${(media!.schema.$ref as string | undefined) ?? ""}` });
  const ok = validate(body);
  expect(ok, `${operationId} ${res.status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  markSeen(operationId, res.status);
  return body;
}

function request(
  path: string,
  init: { method?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
) {
  const body = init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  return new Request(`http://127.0.0.1/api/v1${path}`, {
    method: init.method ?? (body === undefined ? "GET" : "POST"),
    body,
    headers: { "content-type": "application/json", ...init.headers },
  });
}

async function call(
  handler: Handler,
  params: Record<string, string>,
  path: string,
  init?: Parameters<typeof request>[1],
): Promise<Response> {
  return handler(request(path, init), {
    params: Promise.resolve(Object.keys(params).length ? params : undefined),
  });
}

beforeAll(async () => {
  mkdirSync(resolve(process.cwd(), "test/.tmp"), { recursive: true });
  await getAppDb();
});
afterAll(async () => {
  (await getAppDb()).$client.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${dbFile}${suffix}`, { force: true });
});

describe("real responses match the OpenAPI document", () => {
  let runId = "";

  it("banks: list, export, import (201, 400, 413)", async () => {
    await expectDocumented("listBanks", await call(banks.GET, {}, "/banks"));
    const unknownParam = await call(banks.GET, {}, "/banks?flag=x");
    expect(unknownParam.status).toBe(400);
    await expectDocumented("listBanks", unknownParam);
    const exported = (await expectDocumented(
      "exportBundle",
      await call(bankExport.GET, { bank: "demo" }, "/banks/demo/export"),
    )) as { bank: Json };
    await expectDocumented("exportBundle", await call(bankExport.GET, { bank: "nope" }, "/banks/nope/export"));
    const copy = { ...exported, bank: { ...exported.bank, id: "copy", name: "Copy" } };
    await expectDocumented("importBundle", await call(importRoute.POST, {}, "/banks/import", { body: copy }));
    await expectDocumented("importBundle", await call(importRoute.POST, {}, "/banks/import", { body: copy }));
    const huge = await call(importRoute.POST, {}, "/banks/import", {
      raw: "{}",
      headers: { "content-length": String(60_000_000) },
    });
    expect(huge.status).toBe(413);
    await expectDocumented("importBundle", huge);
    // A Hindsight import from an origin the server was not told to trust: refused, as documented
    // (the import itself is tested against a fake Hindsight server in test/integration/hindsight).
    const saved = process.env.HINDSIGHT_IMPORT_ORIGINS;
    delete process.env.HINDSIGHT_IMPORT_ORIGINS;
    try {
      const refused = await call(hindsightImport.POST, {}, "/banks/import/hindsight", {
        body: { baseUrl: "http://127.0.0.1:9/", bankId: "alice" },
      });
      expect(refused.status).toBe(400);
      await expectDocumented("importHindsight", refused);
    } finally {
      if (saved !== undefined) process.env.HINDSIGHT_IMPORT_ORIGINS = saved;
    }
  });

  it("reflect: 200 (wait), 202, 400, 404, 413, each success with its Location", async () => {
    const finished = await call(reflect.POST, { bank: "demo" }, "/banks/demo/reflect", {
      body: { question: "What did we decide about the launch date?", wait: true },
    });
    const location = finished.headers.get("location");
    const done = (await expectDocumented("reflect", finished)) as { id: string; links: { self: string } };
    expect(location).toBe(done.links.self);
    runId = done.id;
    const accepted = await call(reflect.POST, { bank: "demo" }, "/banks/demo/reflect", {
      body: { question: "What is blocking SSO?" },
    });
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get("location")).toMatch(/\/runs\/run_/);
    await expectDocumented("reflect", accepted);
    await expectDocumented(
      "reflect",
      await call(reflect.POST, { bank: "demo" }, "/banks/demo/reflect", { body: { question: "" } }),
    );
    await expectDocumented(
      "reflect",
      await call(reflect.POST, { bank: "nope" }, "/banks/nope/reflect", { body: { question: "q?" } }),
    );
    await expectDocumented(
      "reflect",
      await call(reflect.POST, { bank: "demo" }, "/banks/demo/reflect", {
        body: { question: "q", pad: "x".repeat(1_100_000) },
      }),
    );
  });

  it("memory: recall (200, 403), retain (201, 400)", async () => {
    await expectDocumented(
      "recall",
      await call(recall.POST, { bank: "demo" }, "/banks/demo/recall", { body: { query: "launch", limit: 3 } }),
    );
    await expectDocumented(
      "recall",
      await call(recall.POST, { bank: "demo" }, "/banks/demo/recall", {
        body: { query: "budget", scope: "team:finance" },
      }),
    );
    await expectDocumented(
      "retainFacts",
      await call(facts.POST, { bank: "demo" }, "/banks/demo/facts", {
        body: { facts: [{ text: "The OpenAPI check shipped on Monday." }] },
      }),
    );
    await expectDocumented(
      "retainFacts",
      await call(facts.POST, { bank: "demo" }, "/banks/demo/facts", { body: { facts: [] } }),
    );
  });

  it("mental models: list, create (201, 409), read (200, 404), update (200, 409), delete (204)", async () => {
    await expectDocumented(
      "listMentalModels",
      await call(mentalModels.GET, { bank: "demo" }, "/banks/demo/mental-models"),
    );
    const created = (await expectDocumented(
      "createMentalModel",
      await call(mentalModels.POST, { bank: "demo" }, "/banks/demo/mental-models", {
        body: { name: "Doc model", sourceQuery: "doc?", content: "v1" },
      }),
    )) as { id: string };
    const path = `/banks/demo/mental-models/${created.id}`;
    const params = { bank: "demo", id: created.id };
    await expectDocumented(
      "createMentalModel",
      await call(mentalModels.POST, { bank: "demo" }, "/banks/demo/mental-models", {
        body: { id: created.id, name: "Dup", sourceQuery: "dup?" },
      }),
    );
    await expectDocumented("getMentalModel", await call(mentalModel.GET, params, path));
    await expectDocumented("getMentalModel", await call(mentalModel.GET, { bank: "demo", id: "nope" }, "/x"));
    const put = { method: "PUT", body: { expectedVersion: 1, content: "v2" } };
    await expectDocumented("updateMentalModel", await call(mentalModel.PUT, params, path, put));
    const conflict = await call(mentalModel.PUT, params, path, put);
    expect(conflict.status).toBe(409);
    await expectDocumented("updateMentalModel", conflict);
    await expectDocumented("deleteMentalModel", await call(mentalModel.DELETE, params, path, { method: "DELETE" }));
  });

  it("skills: list, create (201, 409), read, update (200, 409), delete (204, 404)", async () => {
    await expectDocumented("listSkills", await call(skills.GET, { bank: "demo" }, "/banks/demo/skills"));
    const body = { name: "doc-risks", mission: "List the risks.", retrieval: { types: ["observation"] } };
    const created = (await expectDocumented(
      "createSkill",
      await call(skills.POST, { bank: "demo" }, "/banks/demo/skills", { body }),
    )) as { id: string };
    await expectDocumented("createSkill", await call(skills.POST, { bank: "demo" }, "/banks/demo/skills", { body }));
    const params = { bank: "demo", id: created.id };
    const path = `/banks/demo/skills/${created.id}`;
    await expectDocumented("getSkill", await call(skill.GET, params, path));
    const put = { method: "PUT", body: { expectedVersion: 1, budget: "low" } };
    await expectDocumented("updateSkill", await call(skill.PUT, params, path, put));
    await expectDocumented("updateSkill", await call(skill.PUT, params, path, put));
    await expectDocumented("deleteSkill", await call(skill.DELETE, params, path, { method: "DELETE" }));
    await expectDocumented("deleteSkill", await call(skill.DELETE, params, path, { method: "DELETE" }));
  });

  it("suites and experiments: CRUD, JSONL, start (202, 400, 404), read, compare, cancel (409)", async () => {
    await expectDocumented("listSuites", await call(suites.GET, { bank: "demo" }, "/banks/demo/suites"));
    const body = { name: "doc-suite", questions: [{ question: "When did Atlas launch?", skill: "recap" }] };
    const path = "/banks/demo/suites/doc-suite";
    const params = { bank: "demo", suite: "doc-suite" };
    await expectDocumented("createSuite", await call(suites.POST, { bank: "demo" }, "/banks/demo/suites", { body }));
    await expectDocumented("createSuite", await call(suites.POST, { bank: "demo" }, "/banks/demo/suites", { body }));
    await expectDocumented(
      "createSuite",
      await call(suites.POST, { bank: "demo" }, "/banks/demo/suites", { body: { name: "x y", questions: [] } }),
    );
    await expectDocumented("getSuite", await call(suite.GET, params, path));
    const put = { method: "PUT", body: { questions: body.questions, description: "d", expectedVersion: 1 } };
    await expectDocumented("updateSuite", await call(suite.PUT, params, path, put));
    await expectDocumented("updateSuite", await call(suite.PUT, params, path, put));
    await expectDocumented("exportSuite", await call(suiteExport.GET, params, `${path}/export`));
    const jsonl = { jsonl: JSON.stringify(body.questions[0]) };
    await expectDocumented("importSuite", await call(suiteImport.POST, params, `${path}/import`, { body: jsonl }));
    await expectDocumented(
      "importSuite",
      await call(suiteImport.POST, params, `${path}/import`, { body: { jsonl: "{not json" } }),
    );

    const started = (await expectDocumented(
      "startExperiment",
      await call(experiments.POST, {}, "/experiments", { body: { bank: "demo", suite: "doc-suite" } }),
    )) as { id: string };
    await expectDocumented(
      "startExperiment",
      await call(experiments.POST, {}, "/experiments", { body: { bank: "demo", suite: "doc-suite", concurrency: 0 } }),
    );
    await expectDocumented(
      "startExperiment",
      await call(experiments.POST, {}, "/experiments", { body: { bank: "demo", suite: "nope" } }),
    );
    const id = started.id;
    for (;;) {
      const e = (await (await call(experiment.GET, { id }, `/experiments/${id}`)).json()) as { status: string };
      if (e.status !== "running") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await expectDocumented("getExperiment", await call(experiment.GET, { id }, `/experiments/${id}`));
    // Accept: text/event-stream: the documented alternative, with its stream headers.
    const progress = await call(experiment.GET, { id }, `/experiments/${id}`, {
      headers: { accept: "text/event-stream" },
    });
    expect(progress.headers.get("content-type")).toMatch(/^text\/event-stream/);
    await expectDocumented("getExperiment", progress);
    await expectDocumented("getExperiment", await call(experiment.GET, { id: "exp_nope" }, "/experiments/exp_nope"));
    await expectDocumented("listExperiments", await call(experiments.GET, {}, "/experiments?bank=demo"));
    await expectDocumented(
      "compareExperiments",
      await call(experimentCompare.GET, {}, `/experiments/compare?base=${id}&head=${id}`),
    );
    await expectDocumented(
      "cancelExperiment",
      await call(experimentCancel.POST, { id }, `/experiments/${id}/cancel`, { method: "POST" }),
    );
    await expectDocumented("deleteSuite", await call(suite.DELETE, params, path, { method: "DELETE" }));
    await expectDocumented("deleteSuite", await call(suite.DELETE, params, path, { method: "DELETE" }));
  });

  it("runs: list (200, 400), stream, read, events, OTLP trace (200, 404)", async () => {
    await expectDocumented("listRuns", await call(runs.GET, {}, "/runs?limit=5"));
    const bad = await runs.GET(request("/runs?limit=0"), { params: Promise.resolve(undefined) });
    await expectDocumented("listRuns", bad);
    const controller = new AbortController();
    const stream = await runStream.GET(
      new Request("http://127.0.0.1/api/v1/runs/stream", { signal: controller.signal }),
      { params: Promise.resolve(undefined) },
    );
    await expectDocumented("streamRuns", stream);
    controller.abort();
    await expectDocumented("getRun", await call(run.GET, { id: runId }, `/runs/${runId}`));
    await expectDocumented("getRun", await call(run.GET, { id: "run_nope" }, "/runs/run_nope"));
    await expectDocumented("getRunEvents", await call(runEvents.GET, { id: runId }, `/runs/${runId}/events`));
    const live = await call(runEvents.GET, { id: runId }, `/runs/${runId}/events`, {
      headers: { accept: "text/event-stream" },
    });
    expect(live.headers.get("content-type")).toMatch(/^text\/event-stream/);
    await expectDocumented("getRunEvents", live);
    await expectDocumented("getRunEvents", await call(runEvents.GET, { id: "run_nope" }, "/runs/run_nope/events"));
    const otlp = await call(runOtlp.GET, { id: runId }, `/runs/${runId}/otlp`);
    expect(otlp.headers.get("content-disposition")).toMatch(/attachment; filename="run-run_\w+\.otlp\.json"/);
    await expectDocumented("getRunOtlp", otlp);
    await expectDocumented("getRunOtlp", await call(runOtlp.GET, { id: "run_nope" }, "/runs/run_nope/otlp"));
    await expectDocumented("getOpenApi", openapi.GET());
  });

  it("run retention: prune (200 dry run, 400, 404), a bank's setting (200, 204, 400, 404)", async () => {
    const prune = (body: unknown) => call(runPrune.POST, {}, "/runs/prune", { method: "POST", body });
    await expectDocumented("pruneRuns", await prune({ olderThan: "30d", dryRun: true }));
    await expectDocumented("pruneRuns", await prune({ olderThan: "30x" }));
    await expectDocumented("pruneRuns", await prune({ keep: 5, bank: "nope", dryRun: true }));
    const path = "/banks/demo/run-retention";
    await expectDocumented("getRunRetention", await call(runRetention.GET, { bank: "demo" }, path));
    await expectDocumented(
      "getRunRetention",
      await call(runRetention.GET, { bank: "nope" }, "/banks/nope/run-retention"),
    );
    const put = (body: unknown) => call(runRetention.PUT, { bank: "demo" }, path, { method: "PUT", body });
    await expectDocumented("setRunRetention", await put({ olderThan: "3650d" }));
    await expectDocumented("setRunRetention", await put({ olderThan: "3650d", keep: 1 }));
    await expectDocumented(
      "deleteRunRetention",
      await call(runRetention.DELETE, { bank: "demo" }, path, { method: "DELETE" }),
    );
    await expectDocumented(
      "deleteRunRetention",
      await call(runRetention.DELETE, { bank: "nope" }, "/banks/nope/run-retention", { method: "DELETE" }),
    );
  });

  it("a method a path does not have: 405 with the error body and Allow; OPTIONS lists the same", async () => {
    const error = ajv.compile({ $ref: "openapi.json#/components/schemas/Error" });
    // The validator is live: a body without the error object fails it.
    expect(error({ code: "method_not_allowed" })).toBe(false);
    const cases: [Handler, string, string, string][] = [
      [banks.PATCH as Handler, "PATCH", "/banks", "GET, HEAD, OPTIONS"],
      [reflect.GET as Handler, "GET", "/banks/demo/reflect", "POST, OPTIONS"],
      [skill.POST as Handler, "POST", "/banks/demo/skills/x", "GET, PUT, DELETE, HEAD, OPTIONS"],
      [runOtlp.DELETE as Handler, "DELETE", "/runs/x/otlp", "GET, HEAD, OPTIONS"],
    ];
    for (const [handler, method, path, allow] of cases) {
      const res = await call(handler, {}, path, { method });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get("allow")).toBe(allow);
      const body = await res.json();
      expect(error(body), ajv.errorsText(error.errors)).toBe(true);
      expect(body.error.code).toBe("method_not_allowed");
      // The Allow header names exactly the methods the document lists for the path (plus HEAD/OPTIONS).
      const documented = Object.keys(
        doc.paths[path.replace(/\/demo\//, "/{bank}/").replace(/\/x(\/|$)/, "/{id}$1")] ?? {},
      );
      const listed = allow.split(", ").filter((m) => m !== "HEAD" && m !== "OPTIONS");
      expect(documented.map((m) => m.toUpperCase()).sort()).toEqual([...listed].sort());
      statuses.add(405);
    }
    const options = await call(banks.OPTIONS as Handler, {}, "/banks", { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });

  it("500: an unexpected failure is the documented Internal response, for any operation", async () => {
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const broken = { params: Promise.reject(new Error("the disk fell off")) };
      broken.params.catch(() => {});
      const cases: [string, Handler][] = [
        ["reflect", reflect.POST as Handler],
        ["getRun", run.GET as Handler],
        ["getExperiment", experiment.GET as Handler],
        ["listBanks", banks.GET as Handler],
      ];
      for (const [operationId, handler] of cases) {
        const res = await handler(request("/x", { body: {} }), broken as never);
        expect(res.status, operationId).toBe(500);
        const body = (await expectDocumented(operationId, res)) as { error: { code: string; message: string } };
        expect(body.error.code).toBe("internal");
        expect(body.error.message).not.toContain("disk");
      }
    } finally {
      quiet.mockRestore();
    }
  });

  it("fails a response with an undocumented status, content type or header", async () => {
    const json = { "content-type": "application/json" };
    await expect(expectDocumented("getRun", new Response("{}", { status: 418, headers: json }))).rejects.toThrow(
      /declares 418/,
    );
    await expect(
      expectDocumented("getRun", new Response("x", { status: 200, headers: { "content-type": "text/plain" } })),
    ).rejects.toThrow(/lists text\/plain/);
    await expect(
      expectDocumented("getRun", new Response("{}", { status: 404, headers: { ...json, "x-debug": "1" } })),
    ).rejects.toThrow(/declares the header it sends: x-debug/);
    await expect(expectDocumented("getRunOtlp", new Response("{}", { status: 200, headers: json }))).rejects.toThrow(
      /sends content-disposition/,
    );
  });

  it("a method the path lacks is 405 before its content type is looked at (PATCH on reflect, no type)", async () => {
    const url = new URL("/api/v1/banks/demo/reflect", "http://127.0.0.1:3000");
    for (const method of ["PATCH", "PUT"]) {
      const passed = await proxy(new NextRequest(url, { method }));
      expect(passed.status, method).not.toBe(415);
      expect(passed.headers.get("x-middleware-next"), method).toBe("1");
      const res = await call((method === "PATCH" ? reflect.PATCH : reflect.PUT) as Handler, {}, "/banks/demo/reflect", {
        method,
        headers: { "content-type": "" },
      });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST, OPTIONS");
    }
    // Where the path has the method, the type is still checked.
    const plain = await proxy(new NextRequest(url, { method: "POST", headers: { "content-type": "text/plain" } }));
    expect(plain.status).toBe(415);
  });

  it("403 and 415: what the request policy answers is documented for every write", async () => {
    for (const { path, method, op } of operations.filter((o) => o.method !== "GET")) {
      const url = new URL(`/api/v1${path.replace(/\{[^}]+\}/g, "x")}`, "http://127.0.0.1:3000");
      if (method !== "DELETE") {
        const plain = await proxy(new NextRequest(url, { method, headers: { "content-type": "text/plain" } }));
        expect(plain.status, `${method} ${path}`).toBe(415);
        await expectDocumented(op.operationId, plain);
      }
      const foreign = await proxy(
        new NextRequest(url, {
          method,
          headers: {
            "content-type": "application/json",
            origin: "https://evil.example",
            "sec-fetch-site": "cross-site",
          },
        }),
      );
      expect(foreign.status, `${method} ${path}`).toBe(403);
      await expectDocumented(op.operationId, foreign);
    }
  });

  it("401: what the proxy answers without the token is the documented Unauthorized response", async () => {
    process.env.INSPECTOR_TOKEN = "openapi-test-token";
    try {
      for (const { path, method, op } of operations) {
        const res = await proxy(
          new NextRequest(new URL(`/api/v1${path.replace(/\{[^}]+\}/g, "x")}`, "http://127.0.0.1:3000"), {
            method,
            // A client that writes sends JSON; without it the request policy answers 415 first.
            headers: method === "GET" ? {} : { "content-type": "application/json" },
          }),
        );
        expect(res.status, `${method} ${path}`).toBe(401);
        await expectDocumented(op.operationId, res);
      }
    } finally {
      delete process.env.INSPECTOR_TOKEN;
    }
  });

  it("every path answers each method it lacks with 405 and an Allow naming exactly its documented methods; OPTIONS the same", async () => {
    const modules: Record<string, Record<string, unknown>> = {
      "/banks": banks,
      "/banks/import": importRoute,
      "/banks/import/hindsight": hindsightImport,
      "/banks/{bank}/export": bankExport,
      "/banks/{bank}/reflect": reflect,
      "/banks/{bank}/recall": recall,
      "/banks/{bank}/facts": facts,
      "/banks/{bank}/mental-models": mentalModels,
      "/banks/{bank}/mental-models/{id}": mentalModel,
      "/banks/{bank}/skills": skills,
      "/banks/{bank}/skills/{id}": skill,
      "/runs": runs,
      "/runs/stream": runStream,
      "/runs/{id}": run,
      "/runs/{id}/events": runEvents,
      "/runs/{id}/otlp": runOtlp,
      "/runs/prune": runPrune,
      "/banks/{bank}/run-retention": runRetention,
      "/banks/{bank}/suites": suites,
      "/banks/{bank}/suites/{suite}": suite,
      "/banks/{bank}/suites/{suite}/import": suiteImport,
      "/banks/{bank}/suites/{suite}/export": suiteExport,
      "/experiments": experiments,
      "/experiments/compare": experimentCompare,
      "/experiments/{id}": experiment,
      "/experiments/{id}/cancel": experimentCancel,
      "/openapi.json": openapi,
      "/benchmarks/locomo": locomo,
    };
    const error = ajv.compile({ $ref: "openapi.json#/components/schemas/Error" });
    let checked = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      const mod = modules[path];
      expect(mod, `the sweep knows the route of ${path}`).toBeDefined();
      if (!mod) continue;
      const documented = Object.keys(methods).map((m) => m.toUpperCase());
      const allow = [...documented, ...(documented.includes("GET") ? ["HEAD"] : []), "OPTIONS"];
      const concrete = path.replace(/\{[^}]+\}/g, "x");
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((m) => !documented.includes(m))) {
        const handler = mod[method] as Handler | undefined;
        expect(handler, `${path} exports ${method} (else Next answers a bare 405 without Allow)`).toBeTypeOf(
          "function",
        );
        const res = await call(handler!, {}, concrete, { method });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(new Set(res.headers.get("allow")?.split(", ")), `${method} ${path}`).toEqual(new Set(allow));
        const body = await res.json();
        expect(error(body), `${method} ${path}: ${ajv.errorsText(error.errors)}`).toBe(true);
        checked++;
      }
      const options = mod.OPTIONS as Handler | undefined;
      expect(options, `${path} exports OPTIONS`).toBeTypeOf("function");
      const res = await call(options!, {}, concrete, { method: "OPTIONS" });
      expect(res.status, `OPTIONS ${path}`).toBe(204);
      expect(new Set(res.headers.get("allow")?.split(", ")), `OPTIONS ${path}`).toEqual(new Set(allow));
    }
    expect(checked).toBeGreaterThan(60);
  });

  it("every GET answers what the document says whatever the Accept header (an event stream, XML, anything)", async () => {
    const gets: [string, Handler, Record<string, string>, string][] = [
      ["listBanks", banks.GET as Handler, {}, "/banks"],
      ["exportBundle", bankExport.GET as Handler, { bank: "demo" }, "/banks/demo/export"],
      ["listMentalModels", mentalModels.GET as Handler, { bank: "demo" }, "/banks/demo/mental-models"],
      ["getMentalModel", mentalModel.GET as Handler, { bank: "demo", id: "nope" }, "/banks/demo/mental-models/nope"],
      ["listSkills", skills.GET as Handler, { bank: "demo" }, "/banks/demo/skills"],
      ["getSkill", skill.GET as Handler, { bank: "demo", id: "nope" }, "/banks/demo/skills/nope"],
      ["listRuns", runs.GET as Handler, {}, "/runs?limit=2"],
      ["getRun", run.GET as Handler, { id: runId }, `/runs/${runId}`],
      ["getRunEvents", runEvents.GET as Handler, { id: runId }, `/runs/${runId}/events`],
      ["getRunOtlp", runOtlp.GET as Handler, { id: runId }, `/runs/${runId}/otlp`],
      ["getRunRetention", runRetention.GET as Handler, { bank: "demo" }, "/banks/demo/run-retention"],
      ["listSuites", suites.GET as Handler, { bank: "demo" }, "/banks/demo/suites"],
      ["getSuite", suite.GET as Handler, { bank: "demo", suite: "nope" }, "/banks/demo/suites/nope"],
      ["exportSuite", suiteExport.GET as Handler, { bank: "demo", suite: "nope" }, "/banks/demo/suites/nope/export"],
      ["listExperiments", experiments.GET as Handler, {}, "/experiments?bank=demo"],
      ["compareExperiments", experimentCompare.GET as Handler, {}, "/experiments/compare"],
      ["getExperiment", experiment.GET as Handler, { id: "exp_nope" }, "/experiments/exp_nope"],
    ];
    expect(runId).not.toBe("");
    for (const accept of ["text/event-stream", "application/xml", "text/html, */*;q=0.1", "application/x-ndjson", ""]) {
      for (const [operationId, handler, params, path] of gets) {
        const res = await call(handler, params, path, { headers: { accept } });
        await expectDocumented(operationId, res);
      }
    }
  });

  it("covered every documented operation and the error statuses that matter", () => {
    expect([...covered].sort()).toEqual(operations.map((o) => o.op.operationId).sort());
    for (const status of [400, 401, 403, 404, 405, 409, 413, 415, 500]) {
      expect(statuses.has(status), String(status)).toBe(true);
    }
  });
});

describe("Spectral's recommended OpenAPI ruleset", () => {
  it("reports nothing on the document", async () => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas as never, "recommended"]] } as never);
    const results = await spectral.run(new Document(JSON.stringify(doc, null, 2), Parsers.Json, "openapi.json"));
    expect(results.map((r) => `${r.code} at ${r.path.join(".")}: ${r.message}`)).toEqual([]);
  });
});
