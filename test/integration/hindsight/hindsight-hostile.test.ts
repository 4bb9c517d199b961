/**
 * A hostile or broken Hindsight server (review of the import and ask-Hindsight paths): a key the
 * server echoes back, pages that never end, concurrent imports of one bank, a local bank id that
 * is not one. Each case must fail cleanly (a named AppError), write nothing, and never store or
 * print the key.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.REFLECT_LLM = "offline";
  process.env.OPENAI_API_KEY = "";
});

import type { Db } from "@/db/client";
import { deleteMentalModel } from "@/db/queries/mental-models";
import { getRun, getRunEvents } from "@/db/queries/runs";
import { isAppError } from "@/lib/contracts/errors";
import { admissionState } from "@/lib/server/runtime/admission";
import { exportBundle } from "@/lib/server/services/bundle-io";
import { importFromHindsight, importFromHindsightApi, readImportOrigins } from "@/lib/server/services/hindsight-import";
import { askHindsight } from "@/lib/server/services/hindsight-reflect";
import { startRun } from "@/lib/server/services/runs";
import { compareRuns } from "@/lib/timeline/compare";
import { type FakeHindsight, sampleBank, startFakeHindsight } from "../../fixtures/fake-hindsight-server";
import { openTempDb } from "../db/temp-db";

const KEY = "hs-secret-key-0123456789";
let temp: Awaited<ReturnType<typeof openTempDb>>;
let db: Db;
let fake: FakeHindsight | undefined;

beforeAll(async () => {
  temp = await openTempDb("hindsight-hostile");
  db = temp.db;
});
afterAll(() => temp.cleanup());
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function failure(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error("expected a failure");
}

/** Every string in the db file's tables that holds `needle`. */
async function rowsHolding(needle: string): Promise<string[]> {
  const tables = await db.$client.execute("select name from sqlite_master where type = 'table'");
  const hits: string[] = [];
  for (const t of tables.rows) {
    const name = String(t.name);
    const rows = await db.$client.execute(`select * from "${name}"`);
    for (const r of rows.rows) if (JSON.stringify(r).includes(needle)) hits.push(name);
  }
  return hits;
}

describe("hostile Hindsight: the key", () => {
  it("an error body that echoes the key does not carry it into the error", async () => {
    fake = await startFakeHindsight({
      banks: [sampleBank("echo")],
      apiKey: KEY,
      override: (path) =>
        path.endsWith("/mental-models")
          ? { status: 500, body: { detail: `bad token Bearer ${KEY} rejected` } }
          : undefined,
    });
    const err = await failure(importFromHindsight(db, { baseUrl: fake.url, bankId: "echo", apiKey: KEY }));
    expect(isAppError(err, "upstream_failed")).toBe(true);
    expect(err.message).toMatch(/HTTP 500/);
    expect(err.message).not.toContain(KEY);
  });

  it("an error detail cut at its 200 characters never leaves a piece of the key (cut after redacting)", async () => {
    for (const at of [180, 190, 195]) {
      fake = await startFakeHindsight({
        banks: [sampleBank("echo")],
        apiKey: KEY,
        override: (path) =>
          path.endsWith("/mental-models") ? { status: 500, body: { detail: `${"x".repeat(at)}${KEY}` } } : undefined,
      });
      const err = await failure(importFromHindsight(db, { baseUrl: fake.url, bankId: "echo", apiKey: KEY }));
      expect(isAppError(err, "upstream_failed")).toBe(true);
      // No 6 characters of the key in a row (the key's first characters were what survived the cut).
      for (let i = 0; i + 6 <= KEY.length; i++) expect(err.message, `at ${at}`).not.toContain(KEY.slice(i, i + 6));
      await fake.close();
      fake = undefined;
    }
  });

  it("a bank whose memories, models, tags and mission echo the key imports with no row holding it", async () => {
    const bank = sampleBank("echoed");
    bank.memories[0]!.text = `note: ${KEY}`;
    bank.memories[1]!.tags = [`key:${KEY}`];
    bank.mentalModels[0]!.content = `# Keys\n${KEY}`;
    bank.mission = `Mission ${KEY}`;
    fake = await startFakeHindsight({ banks: [bank], apiKey: KEY });
    const result = await importFromHindsight(db, { baseUrl: fake.url, bankId: "echoed", apiKey: KEY });
    expect(JSON.stringify(result)).not.toContain(KEY);
    expect(await rowsHolding(KEY)).toEqual([]);
    expect(JSON.stringify(await exportBundle(db, "echoed"))).toContain("[redacted]");
  });

  it("a reflect answer that echoes the key stores no row holding it", async () => {
    fake = await startFakeHindsight({
      banks: [sampleBank("echo")],
      apiKey: KEY,
      override: (path) =>
        path.endsWith("/reflect")
          ? {
              body: {
                text: `your key is ${KEY}`,
                trace: {
                  tool_calls: [{ tool: "recall", input: { query: KEY }, output: { note: KEY }, duration_ms: 3 }],
                  llm_calls: [],
                },
              },
            }
          : undefined,
    });
    const result = await askHindsight(db, { baseUrl: fake.url, bankId: "echo", apiKey: KEY, question: "key?" });
    expect(result.answer).not.toContain(KEY);
    expect(await rowsHolding(KEY)).toEqual([]);
  });
});

describe("hostile Hindsight: text that is not valid text", () => {
  it("a reflect answer with a NUL or a lone surrogate is stored whole, each as U+FFFD (not cut at the NUL)", async () => {
    fake = await startFakeHindsight({
      banks: [sampleBank("nul")],
      override: (path) =>
        path.endsWith("/reflect")
          ? {
              body: {
                text: "first\u0000second \udfff end",
                trace: {
                  tool_calls: [
                    { tool: "recall", input: { query: "q\u0000" }, output: { x: "\ud800" }, duration_ms: 3 },
                  ],
                  llm_calls: [],
                },
              },
            }
          : undefined,
    });
    const result = await askHindsight(db, { baseUrl: fake.url, bankId: "nul", question: "what?" });
    expect(result.answer).toBe("first\ufffdsecond \ufffd end");
    expect((await getRun(db, result.runId))?.answer).toBe("first\ufffdsecond \ufffd end");
    const events = JSON.stringify(await getRunEvents(db, result.runId));
    expect(events).not.toMatch(/\\u0000|\\ud800|\\udfff/);
  });
});

describe("hostile Hindsight: endless and huge answers", () => {
  it("pages of fresh ids that never end are refused by the bytes read in all, writing nothing", async () => {
    let n = 0;
    const big = "x".repeat(4_000);
    fake = await startFakeHindsight({
      banks: [sampleBank("endless")],
      override: (path, q) =>
        path.endsWith("/memories/list")
          ? {
              body: {
                items: Array.from({ length: 5 }, () => ({
                  id: `m-${n++}`,
                  text: big,
                  fact_type: q.get("type"),
                  mentioned_at: "2024-01-01T00:00:00Z",
                })),
                total: 1_000_000_000,
                limit: 5,
                offset: Number(q.get("offset")),
              },
            }
          : undefined,
    });
    const err = await failure(
      importFromHindsight(db, {
        baseUrl: fake.url,
        bankId: "endless",
        maxResponseBytes: 100_000,
        maxTotalBytes: 500_000,
      }),
    );
    expect(isAppError(err, "upstream_failed")).toBe(true);
    expect(err.message).toMatch(/more than 500,000 bytes in all/);
    // Stopped near the cap: about 25 pages of 20 KB, not the 40,000 the memory cap would allow.
    expect(fake.requests.length).toBeLessThan(40);
    expect(await exportBundle(db, "endless")).toBeNull();
  });

  it("a body that drips one byte at a time (never stalling) and headers that never come both end at the timeout", async () => {
    const sockets = new Set<import("node:net").Socket>();
    let mode: "no headers" | "drip" = "no headers";
    const server = createServer((_req, res) => {
      if (mode === "no headers") return;
      res.writeHead(200, { "content-type": "application/json" });
      const drip = setInterval(() => res.write(" "), 20);
      res.on("close", () => clearInterval(drip));
    });
    server.on("connection", (s) => sockets.add(s));
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const m of ["no headers", "drip"] as const) {
        mode = m;
        const started = Date.now();
        const err = await failure(importFromHindsight(db, { baseUrl: url, bankId: "drip", timeoutMs: 400 }));
        expect(isAppError(err, "upstream_failed")).toBe(true);
        expect(err.message).toMatch(/no complete answer within 400 ms/);
        expect(Date.now() - started).toBeLessThan(5_000);
      }
      expect(await exportBundle(db, "drip")).toBeNull();
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((ok) => server.close(() => ok()));
    }
  });

  it("pages that each come just inside the per-request timeout still end at the total timeout", async () => {
    let n = 0;
    const server = createServer((req, res) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const body = path.endsWith("/profile")
        ? { bank_id: "drip", name: "drip", mission: "", disposition: { skepticism: 3, literalism: 3, empathy: 3 } }
        : {
            items: [{ id: `d-${n++}`, text: "t", fact_type: "world", mentioned_at: "2024-01-01T00:00:00Z" }],
            total: 1_000_000,
            limit: 1,
            offset: 0,
          };
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      }, 100).unref();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const started = Date.now();
      const err = await failure(
        importFromHindsight(db, { baseUrl: url, bankId: "drip", timeoutMs: 1_000, totalTimeoutMs: 800 }),
      );
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(isAppError(err, "upstream_failed")).toBe(true);
      expect(err.message).toMatch(/took longer than 800 ms in all/);
      expect(await exportBundle(db, "drip")).toBeNull();
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it("a gzip bomb is refused by the decoded size, not the wire size", async () => {
    const bomb = gzipSync(Buffer.alloc(50_000_000, 0x20));
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(bomb);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const err = await failure(importFromHindsight(db, { baseUrl: url, bankId: "bomb", maxResponseBytes: 1_000_000 }));
      expect(err.message).toMatch(/larger than 1,000,000 bytes/);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe("hostile Hindsight: ids and banks", () => {
  it("two imports of the same new bank at once: one imports, the other is refused by name (not a raw SQL error)", async () => {
    fake = await startFakeHindsight({ banks: [sampleBank("twice", 30)] });
    const url = fake.url;
    const settled = await Promise.allSettled([
      importFromHindsight(db, { baseUrl: url, bankId: "twice" }),
      importFromHindsight(db, { baseUrl: url, bankId: "twice" }),
    ]);
    expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(1);
    const rejected = settled.find((s) => s.status === "rejected") as PromiseRejectedResult;
    expect(isAppError(rejected.reason), String(rejected.reason)).toBe(true);
    expect(String(rejected.reason.message)).toMatch(/already exists/);
  });

  it("two imports that both find the bank missing: the loser of the write is refused by name, the winner's bank intact", async () => {
    fake = await startFakeHindsight({ banks: [sampleBank("race", 4)] });
    // A barrier on the write: neither batch runs until both imports have checked that the bank is missing.
    const batch = db.$client.batch.bind(db.$client);
    let waiting = 0;
    let release: () => void = () => {};
    const bothChecked = new Promise<void>((r) => {
      release = r;
    });
    const spy = vi.spyOn(db.$client, "batch").mockImplementation(async (...args: Parameters<typeof batch>) => {
      if (++waiting === 2) release();
      await bothChecked;
      return batch(...args);
    });
    try {
      const settled = await Promise.allSettled([
        importFromHindsight(db, { baseUrl: fake.url, bankId: "race" }),
        importFromHindsight(db, { baseUrl: fake.url, bankId: "race" }),
      ]);
      expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(1);
      const rejected = settled.find((s) => s.status === "rejected") as PromiseRejectedResult;
      expect(isAppError(rejected.reason, "invalid_bundle"), String(rejected.reason)).toBe(true);
      expect(rejected.reason.message).toMatch(/already exists: another import made it at the same time/);
    } finally {
      spy.mockRestore();
    }
    expect((await exportBundle(db, "race"))?.facts.length).toBeGreaterThan(0);
  });

  it("a fact id listed under two tiers is refused as the server's fault, writing nothing", async () => {
    const bank = sampleBank("dup");
    const world = bank.memories.find((m) => m.fact_type === "world");
    if (!world) throw new Error("fixture has a world fact");
    bank.memories.push({ ...world, fact_type: "experience" });
    fake = await startFakeHindsight({ banks: [bank] });
    const err = await failure(importFromHindsight(db, { baseUrl: fake.url, bankId: "dup" }));
    expect(isAppError(err, "upstream_failed")).toBe(true);
    expect(err.message).toContain(world.id);
    expect(await exportBundle(db, "dup")).toBeNull();
  });

  it("observation sources naming unknown, duplicate, huge or odd ids are dropped and counted; the rest imports", async () => {
    const bank = sampleBank("srcs");
    const obs = bank.memories.find((m) => m.fact_type === "observation");
    const fact = bank.memories.find((m) => m.fact_type === "world");
    if (!obs || !fact) throw new Error("fixture has an observation and a fact");
    obs.source_memory_ids = [fact.id, fact.id, "no-such-fact", "x".repeat(10_000), "a/../b", "nul\u0000id", obs.id];
    fake = await startFakeHindsight({ banks: [bank] });
    const result = await importFromHindsight(db, { baseUrl: fake.url, bankId: "srcs" });
    expect(result.skipped).toContainEqual(expect.objectContaining({ kind: "observation sources", count: 5 }));
    const imported = (await exportBundle(db, "srcs"))?.observations.find((o) => o.id === obs.id);
    expect(imported?.sourceFactIds).toEqual([fact.id]);
  });

  it.each([
    ["a path separator", "a/b"],
    ["a NUL", "a\u0000b"],
    ["10,000 characters", "y".repeat(10_000)],
  ])("a fact id with %s is refused by field in a short message, writing nothing", async (_name, id) => {
    const bank = sampleBank("oddid");
    bank.memories.push({ id, text: "odd", fact_type: "world", mentioned_at: "2024-01-01T00:00:00Z" });
    fake = await startFakeHindsight({ banks: [bank] });
    const err = await failure(importFromHindsight(db, { baseUrl: fake.url, bankId: "oddid" }));
    expect(isAppError(err)).toBe(true);
    expect(err.message.length).toBeLessThan(1_000);
    expect(err.message).toMatch(/facts\[\d+\]\.id|facts\[\d+\]/);
    expect(await exportBundle(db, "oddid")).toBeNull();
  });

  it("reflect --as a bank id that is not one is refused before any request", async () => {
    fake = await startFakeHindsight({ banks: [sampleBank("alice")] });
    const err = await failure(
      askHindsight(db, { baseUrl: fake.url, bankId: "alice", localBankId: "../Alice Smith", question: "where?" }),
    );
    expect(isAppError(err, "invalid_input")).toBe(true);
    expect(fake.requests).toHaveLength(0);
  });

  it("--replace after a mental model was deleted here: the deleted model stays deleted (skipped, counted), the rest re-imports", async () => {
    const bank = sampleBank("tomb");
    fake = await startFakeHindsight({ banks: [bank] });
    await importFromHindsight(db, { baseUrl: fake.url, bankId: "tomb" });
    const model = bank.mentalModels[0];
    if (!model) throw new Error("fixture has a mental model");
    expect(await deleteMentalModel(db, "tomb", model.id)).toBe(true);
    bank.memories[0]!.text = "edited in Hindsight";
    const again = await importFromHindsight(db, { baseUrl: fake.url, bankId: "tomb", replace: true });
    expect(again.skipped).toContainEqual(expect.objectContaining({ kind: "mental models", count: 1 }));
    const bundle = await exportBundle(db, "tomb");
    expect(bundle?.mentalModels.map((m) => m.id)).not.toContain(model.id);
    expect(bundle?.facts.find((f) => f.id === bank.memories[0]!.id)?.text).toBe("edited in Hindsight");
  });
});

describe("HINDSIGHT_IMPORT_ORIGINS", () => {
  it("reads origins case-insensitively, with or without a trailing slash, path or default port", () => {
    const env = {
      HINDSIGHT_IMPORT_ORIGINS:
        " HTTPS://Hindsight.Example.COM:443/ ,http://10.0.0.5:8888/hindsight/,, http://[::1]:8888",
    };
    expect(readImportOrigins(env)).toEqual({
      origins: ["https://hindsight.example.com", "http://10.0.0.5:8888", "http://[::1]:8888"],
      unusable: [],
    });
  });

  it("an entry without a scheme or with a wildcard names no origin, and the refusal says so (before any request)", async () => {
    fake = await startFakeHindsight({ banks: [sampleBank("alice")] });
    const port = new URL(fake.url).port;
    const env = { HINDSIGHT_IMPORT_ORIGINS: `127.0.0.1:${port}, http://*.example.com, *` };
    expect(readImportOrigins(env).origins).toEqual([]);
    const err = await failure(importFromHindsightApi(db, { baseUrl: fake.url, bankId: "alice", replace: false }, env));
    expect(isAppError(err, "invalid_input")).toBe(true);
    expect(err.message).toContain("no usable origin");
    expect(err.message).toContain(`"127.0.0.1:${port}"`);
    expect(err.message).toContain('"http://*.example.com"');
    expect(fake.requests).toHaveLength(0);
  });
});

describe("hostile Hindsight: a malformed reflect trace", () => {
  it("odd tools, huge durations and citations of unknown memories store a run that opens and compares", async () => {
    fake = await startFakeHindsight({
      banks: [sampleBank("odd")],
      override: (path) =>
        path.endsWith("/reflect")
          ? {
              body: {
                text: "An answer.",
                based_on: {
                  memories: [
                    { id: "no-such-fact", text: "?", type: "world" },
                    { id: "../../etc/passwd", text: "?", type: "observation" },
                    { id: null, text: "no id" },
                    { id: "x".repeat(10_000), text: "?", type: "experience" },
                  ],
                  mental_models: [{ id: "no-such-model", text: "?" }],
                  directives: [],
                },
                trace: {
                  tool_calls: [
                    { tool: "t".repeat(10_000), input: {}, duration_ms: 9_000_000_000_000 },
                    { tool: "recall", input: { query: "q" }, output: null, duration_ms: 0, iteration: 99 },
                    { tool: "done", input: { answer: "<img src=https://evil.example/x>" }, duration_ms: 5 },
                  ],
                  llm_calls: [],
                },
              },
            }
          : undefined,
    });
    await importFromHindsight(db, { baseUrl: fake.url, bankId: "odd" });
    const hs = await askHindsight(db, { baseUrl: fake.url, bankId: "odd", question: "What does Alice do?" });
    expect(hs.toolCalls).toBe(3);
    expect(await getRun(db, hs.runId)).not.toBeNull();
    const { runId, finished } = await startRun(db, {
      bankId: "odd",
      question: "What does Alice do?",
      mode: "synthesize",
    });
    await finished;
    const comparison = compareRuns(await getRunEvents(db, runId), await getRunEvents(db, hs.runId));
    expect(comparison.steps.length).toBeGreaterThan(0);
  });

  it("a duration no number can hold is refused by field, saying no run was stored", async () => {
    fake = await startFakeHindsight({
      banks: [sampleBank("odd")],
      override: (path) =>
        path.endsWith("/reflect")
          ? { body: { text: "a", trace: { tool_calls: [{ tool: "recall", input: {}, duration_ms: 1e300 }] } } }
          : undefined,
    });
    const err = await failure(askHindsight(db, { baseUrl: fake.url, bankId: "odd", question: "q?" }));
    expect(isAppError(err, "upstream_failed")).toBe(true);
    expect(err.message).toContain("trace.tool_calls[0].duration_ms");
    expect(err.message).toMatch(/no run was stored\.$/);
  });
});

describe("the API's import when its caller goes away", () => {
  it("a page closed mid-import stops reading the Hindsight server, imports nothing and frees its ingest slot", async () => {
    // Every memories page is held 10 s: the import is mid-read when its caller leaves.
    fake = await startFakeHindsight({
      banks: [sampleBank("gone")],
      override: (path) => (path.endsWith("/memories/list") ? { stallBodyMs: 10_000 } : undefined),
    });
    const env = { HINDSIGHT_IMPORT_ORIGINS: fake.url };
    const left = new AbortController();
    const started = Date.now();
    const pending = failure(
      importFromHindsightApi(db, { baseUrl: fake.url, bankId: "gone", replace: false }, env, left.signal),
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(admissionState().ingest.active).toBe(1);
    left.abort();
    const err = await pending;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(isAppError(err, "upstream_failed")).toBe(true);
    expect(err.message).toMatch(/abandoned/);
    expect(admissionState().ingest.active).toBe(0);
    expect(await exportBundle(db, "gone")).toBeNull();
  });
});

describe("the API's origin list against URL tricks", () => {
  it("another spelling of a listed origin reaches only it; userinfo, fragments, a trailing dot and mapped IPv6 are refused before any request", async () => {
    fake = await startFakeHindsight({ banks: [sampleBank("spell")] });
    const port = new URL(fake.url).port;
    const env = { HINDSIGHT_IMPORT_ORIGINS: `http://127.0.0.1:${port}` };
    for (const baseUrl of [
      `http://127.0.0.1:${port}@evil.example`,
      `http://evil.example#@127.0.0.1:${port}`,
      `http://user:pw@127.0.0.1:${port}`,
      `http://localhost.:${port}`,
      `http://[::ffff:127.0.0.1]:${port}`,
      `http://127.0.0.1:${Number(port) + 1}`,
      `ftp://127.0.0.1:${port}`,
    ]) {
      const err = await failure(importFromHindsightApi(db, { baseUrl, bankId: "spell", replace: false }, env));
      expect(isAppError(err, "invalid_input"), baseUrl).toBe(true);
    }
    expect(fake.requests).toHaveLength(0);
    expect(await exportBundle(db, "spell")).toBeNull();
    // The same origin spelt otherwise (a decimal address, upper case, a trailing slash) is that origin.
    const result = await importFromHindsightApi(
      db,
      { baseUrl: `HTTP://2130706433:${port}/`, bankId: "spell", replace: false },
      env,
    );
    expect(result.bankId).toBe("spell");
    expect(fake.requests.length).toBeGreaterThan(0);
  });
});
