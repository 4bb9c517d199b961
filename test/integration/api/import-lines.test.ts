/**
 * `POST /api/v1/banks/import` with a `.jsonl` body (`Content-Type: application/x-ndjson`, what the
 * browser's import page sends for a JSON-lines file): the route called as a function with real
 * Requests over a temp database. The body is streamed into the CLI's staged import; every failure —
 * a bad line, a query it does not take, too large, cut short, not UTF-8 — imports nothing.
 */
import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const dbFile = vi.hoisted(() => {
  const path = `${process.cwd()}/test/.tmp/api-lines-${process.pid}-${Date.now()}.db`;
  process.env.DATABASE_URL = `file:${path}`;
  process.env.REFLECT_LLM = "offline";
  return path;
});

import * as importRoute from "@/app/api/v1/banks/import/route";
import { BUNDLE_MAX_BYTES } from "@/lib/server/http/api/endpoints";
import { getAppDb } from "@/lib/server/runtime/db";
import { exportBundle } from "@/lib/server/services/bundle-io";

const header = (id: string, name = `Bank ${id}`) =>
  JSON.stringify({ version: 1, bank: { id, name, permittedTeams: [] } });
const fact = (i: number) =>
  JSON.stringify({
    fact: {
      id: `f${i}`,
      text: `Note ${i}: the billing rollout moved to week ${i}.`,
      kind: "world",
      tags: [],
      scope: "personal",
      recordedAt: "2026-01-01T00:00:00Z",
    },
  });
const observation = JSON.stringify({
  observation: {
    id: "o1",
    text: "Billing rollouts slip.",
    tags: [],
    scope: "personal",
    sourceFactIds: ["f1", "f2"],
    updatedAt: "2026-01-02T00:00:00Z",
  },
});

/** The 201 result or the error body, as a test reads either. */
interface Answer {
  bankId?: string;
  counts?: Record<string, number>;
  error: { code: string; message: string; fieldErrors: Record<string, string[]> };
}

async function post(body: BodyInit | null, init: { query?: string; headers?: Record<string, string> } = {}) {
  const request = new Request(`http://127.0.0.1/api/v1/banks/import${init.query ?? ""}`, {
    method: "POST",
    body,
    headers: { "content-type": "application/x-ndjson", ...init.headers },
    // A stream body needs it (undici); a string or bytes ignore it.
    duplex: "half",
  } as RequestInit);
  const res = await importRoute.POST(request, { params: Promise.resolve(undefined) });
  return { status: res.status, json: (await res.json()) as Answer };
}

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    pull(controller) {
      const next = chunks.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
}

const exists = async (bankId: string) => (await exportBundle(await getAppDb(), bankId)) !== null;

beforeAll(async () => {
  mkdirSync(resolve(process.cwd(), "test/.tmp"), { recursive: true });
  await getAppDb();
});
afterAll(async () => {
  (await getAppDb()).$client.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${dbFile}${suffix}`, { force: true });
});

describe("POST /api/v1/banks/import as JSON lines", () => {
  it("imports a .jsonl body (CRLF line ends, a blank line) and answers the counts", async () => {
    const body = [header("lines-a"), fact(1), "", fact(2), observation].join("\r\n");
    const res = await post(body);
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      bankId: "lines-a",
      counts: { facts: 2, observations: 1, mentalModels: 0, skills: 0, suites: 0 },
    });
    const bundle = await exportBundle(await getAppDb(), "lines-a");
    expect(bundle?.observations[0]?.sourceFactIds).toEqual(["f1", "f2"]);
  });

  it("a bad line is named by its number and imports nothing", async () => {
    const res = await post([header("lines-bad"), fact(1), '{"fact":{"id":"f2"}}'].join("\n"));
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_bundle");
    expect(Object.keys(res.json.error.fieldErrors).join(" ")).toMatch(/^line 3/);
    expect(await exists("lines-bad")).toBe(false);
  });

  it("an existing bank is refused without replace=true and replaced whole with it", async () => {
    await post([header("lines-r", "First"), fact(1), fact(2)].join("\n"));
    const refused = await post([header("lines-r", "Second"), fact(9)].join("\n"));
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toMatch(/exists/);
    expect((await exportBundle(await getAppDb(), "lines-r"))?.bank.name).toBe("First");
    const replaced = await post([header("lines-r", "Second"), fact(9)].join("\n"), { query: "?replace=true" });
    expect(replaced.status).toBe(201);
    const bundle = await exportBundle(await getAppDb(), "lines-r");
    expect(bundle?.bank.name).toBe("Second");
    expect(bundle?.facts.map((f) => f.id)).toEqual(["f9"]);
  });

  it("a query parameter it does not take, or replace=yes, is refused before anything is read", async () => {
    const unknown = await post([header("lines-q"), fact(1)].join("\n"), { query: "?replace=true&x=1" });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.message).toMatch(/Unknown query parameter "x"/);
    const bad = await post([header("lines-q"), fact(1)].join("\n"), { query: "?replace=yes" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("invalid_input");
    expect(await exists("lines-q")).toBe(false);
  });

  it("an empty body says the file is empty", async () => {
    const res = await post("");
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_bundle");
    expect(JSON.stringify(res.json.error.fieldErrors)).toMatch(/empty/);
  });

  it("a body past the bundle limit is refused by its Content-Length, and counted when it has none", async () => {
    const declared = await post(streamOf([new TextEncoder().encode(header("lines-big"))]), {
      headers: { "content-length": String(BUNDLE_MAX_BYTES + 1) },
    });
    expect(declared.status).toBe(413);
    expect(declared.json.error.code).toBe("body_too_large");
    // No Content-Length: a header, one fact, then 51 lines of 1 MiB of spaces (blank lines, allowed).
    const blank = new TextEncoder().encode(`${" ".repeat(1_048_575)}\n`);
    const chunks = [new TextEncoder().encode(`${header("lines-big")}\n${fact(1)}\n`)];
    for (let i = 0; i < 51; i++) chunks.push(blank);
    const counted = await post(streamOf(chunks));
    expect(counted.status).toBe(413);
    expect(await exists("lines-big")).toBe(false);
  });

  it("a body that ends before its Content-Length (cut short on the way) imports nothing", async () => {
    const text = new TextEncoder().encode([header("lines-cut"), fact(1), fact(2)].join("\n"));
    const res = await post(streamOf([text]), { headers: { "content-length": String(text.byteLength + 500) } });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(/ended after \d+ of its \d+ bytes; nothing was imported/);
    expect(await exists("lines-cut")).toBe(false);
  });

  it("a body of blank lines does not hold the server's thread: other work runs while it is read", async () => {
    // The body is in memory, so every read resolves at once: without turns of the event loop the
    // timer below would not fire until the import ended (it fired twice in 200k lines, measured).
    const body = `${header("lines-blank")}\n${"\n".repeat(200_000)}${fact(1)}\n`;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      const res = await post(body);
      expect(res.status).toBe(201);
      expect(res.json.counts?.facts).toBe(1);
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThanOrEqual(10);
  });

  it("a client that goes away mid-body (the page closed) stops the import: nothing imported, its staging gone", async () => {
    const stop = new AbortController();
    const head = new TextEncoder().encode(`${header("lines-gone")}\n${fact(1)}\n${fact(2)}\n`);
    // The body sends its first lines, then waits (a slow upload) until the client goes.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(head);
        stop.signal.addEventListener("abort", () => controller.error(new Error("client gone")));
      },
    });
    const request = new Request("http://127.0.0.1/api/v1/banks/import", {
      method: "POST",
      body,
      headers: { "content-type": "application/x-ndjson" },
      signal: stop.signal,
      duplex: "half",
    } as RequestInit);
    const answer = importRoute.POST(request, { params: Promise.resolve(undefined) });
    await new Promise((r) => setTimeout(r, 200));
    stop.abort();
    const res = await answer;
    expect(res.status).toBe(400);
    expect(((await res.json()) as Answer).error.message).toMatch(/stopped: nothing was imported/);
    expect(await exists("lines-gone")).toBe(false);
    const staged = await (await getAppDb()).$client.execute("SELECT id FROM banks WHERE import_owner IS NOT NULL");
    expect(staged.rows).toEqual([]);
  });

  it("bytes that are not UTF-8 are refused and import nothing", async () => {
    const head = new TextEncoder().encode(`${header("lines-utf")}\n`);
    const res = await post(streamOf([head, new Uint8Array([0x7b, 0xff, 0xfe, 0x7d, 0x0a])]));
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_text");
    expect(res.json.error.message).toMatch(/the request body is not UTF-8 text; nothing was imported/);
    expect(await exists("lines-utf")).toBe(false);
  });

  it("a JSON body still goes the JSON way (one document), and a JSON-lines text sent as JSON is refused as JSON", async () => {
    const json = await post(
      JSON.stringify({ version: 1, bank: { id: "lines-json", name: "J", permittedTeams: [] }, facts: [] }),
      { headers: { "content-type": "application/json" } },
    );
    expect(json.status).toBe(201);
    const mixed = await post([header("lines-mixed"), fact(1)].join("\n"), {
      headers: { "content-type": "application/json" },
    });
    expect(mixed.status).toBe(400);
    expect(mixed.json.error.code).toBe("invalid_json");
    expect(await exists("lines-mixed")).toBe(false);
  });
});
