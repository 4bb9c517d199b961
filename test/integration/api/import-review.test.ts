/**
 * The bundle import route under hostile use (the review of the import page, docs/curation.md#import-a-bank):
 * a flood of JSON bundle imports is bounded by the ingest slots like the Hindsight import (each holds
 * a parsed bank in memory while it validates and writes: 8 at once held 1.6 GB and stalled the event
 * loop for 23 s), and odd files — a byte-order mark, UTF-16, a `.json` that is JSON lines and the
 * reverse — are answered clearly and import nothing. Route handlers called with real Requests over a
 * temp database.
 */
import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const dbFile = vi.hoisted(() => {
  const path = `${process.cwd()}/test/.tmp/import-review-${process.pid}-${Date.now()}.db`;
  process.env.DATABASE_URL = `file:${path}`;
  process.env.REFLECT_LLM = "offline";
  return path;
});

import * as health from "@/app/api/health/route";
import * as hindsightRoute from "@/app/api/v1/banks/import/hindsight/route";
import * as importRoute from "@/app/api/v1/banks/import/route";
import { ADMISSION_LIMITS, admissionState, admit, type Slot } from "@/lib/server/runtime/admission";
import { getAppDb } from "@/lib/server/runtime/db";
import { exportBundle } from "@/lib/server/services/bundle-io";

const bankLine = (id: string) => ({ version: 1, bank: { id, name: `Bank ${id}`, permittedTeams: [] } });
const factOf = (i: number) => ({
  id: `f${i}`,
  text: `Note ${i}: the billing rollout moved to week ${i}.`,
  kind: "world",
  tags: [],
  scope: "personal",
  recordedAt: "2026-01-01T00:00:00Z",
});
const jsonBundle = (id: string) => JSON.stringify({ ...bankLine(id), facts: [factOf(1), factOf(2)] });
const jsonlBundle = (id: string) =>
  [JSON.stringify(bankLine(id)), JSON.stringify({ fact: factOf(1) }), JSON.stringify({ fact: factOf(2) })].join("\n");

async function post(body: BodyInit, type: "application/json" | "application/x-ndjson", signal?: AbortSignal) {
  const request = new Request("http://127.0.0.1/api/v1/banks/import", {
    method: "POST",
    body,
    headers: { "content-type": type },
    signal,
  });
  return importRoute.POST(request, { params: Promise.resolve(undefined) });
}

const exists = async (bankId: string) => (await exportBundle(await getAppDb(), bankId)) !== null;

async function fillIngest(): Promise<() => void> {
  const slots: Slot[] = [];
  for (let i = 0; i < ADMISSION_LIMITS.ingest.concurrency; i++) slots.push(await admit("ingest"));
  return () => {
    for (const s of slots) s.release();
  };
}

const settledWithin = async <T>(p: Promise<T>, ms = 100) => {
  let done = false;
  p.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((r) => setTimeout(r, ms));
  return done;
};

beforeAll(async () => {
  mkdirSync(resolve(process.cwd(), "test/.tmp"), { recursive: true });
  await getAppDb();
});
afterAll(async () => {
  (await getAppDb()).$client.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${dbFile}${suffix}`, { force: true });
});

describe("a flood of bundle imports", () => {
  it("a JSON bundle import waits for an ingest slot (nothing imported meanwhile) and completes once one frees", async () => {
    const release = await fillIngest();
    let pending: Promise<Response> | undefined;
    try {
      pending = post(jsonBundle("flood-wait"), "application/json");
      expect(await settledWithin(pending)).toBe(false);
      expect(admissionState().ingest.waiting).toBe(1);
      expect(await exists("flood-wait")).toBe(false);
      // /api/health is never queued behind it.
      expect((await health.GET()).status).toBe(200);
    } finally {
      release();
    }
    const res = await pending;
    expect(res.status).toBe(201);
    expect(await exists("flood-wait")).toBe(true);
    expect(admissionState().ingest).toMatchObject({ active: 0, waiting: 0 });
  });

  it("a JSON bundle is validated inside its slot (the costly part): a bad one waits its turn too, then is refused by path", async () => {
    const release = await fillIngest();
    let pending: Promise<Response> | undefined;
    try {
      const bad = JSON.parse(jsonBundle("flood-bad"));
      bad.facts[1].text = 42;
      pending = post(JSON.stringify(bad), "application/json");
      expect(await settledWithin(pending)).toBe(false);
    } finally {
      release();
    }
    const res = await pending;
    expect(res.status).toBe(400);
    expect((await res.json()).error.fieldErrors).toHaveProperty(["facts[1].text"]);
    expect(await exists("flood-bad")).toBe(false);
  });

  it("past the ingest queue a JSON bundle import is refused at once (503 too_busy, Retry-After) and changes nothing", async () => {
    const release = await fillIngest();
    const waiters = Array.from({ length: ADMISSION_LIMITS.ingest.queue }, () => admit("ingest"));
    try {
      const refused = await post(jsonBundle("flood-refused"), "application/json");
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await refused.json()).error.code).toBe("too_busy");
      expect(await exists("flood-refused")).toBe(false);
    } finally {
      release();
      for (const w of waiters) (await w).release();
    }
    expect(admissionState().ingest).toMatchObject({ active: 0, waiting: 0 });
  });

  it("a JSON bundle import whose client leaves while it waits for a slot imports nothing and leaves the line", async () => {
    const release = await fillIngest();
    const abort = new AbortController();
    try {
      const pending = post(jsonBundle("flood-left"), "application/json", abort.signal);
      expect(await settledWithin(pending)).toBe(false);
      abort.abort();
      await pending;
      expect(admissionState().ingest.waiting).toBe(0);
    } finally {
      release();
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(await exists("flood-left")).toBe(false);
  });
});

describe("odd bundle files", () => {
  it("a UTF-8 byte-order mark before a .json or a .jsonl bundle is read past", async () => {
    expect((await post(`\uFEFF${jsonBundle("bom-json")}`, "application/json")).status).toBe(201);
    expect((await post(`\uFEFF${jsonlBundle("bom-jsonl")}`, "application/x-ndjson")).status).toBe(201);
    expect(await exists("bom-json")).toBe(true);
    expect(await exists("bom-jsonl")).toBe(true);
  });

  it("a UTF-16 file (with its byte-order mark) is refused as not UTF-8, either way, and imports nothing", async () => {
    const utf16 = (text: string) => {
      const bytes = new Uint8Array(2 + text.length * 2);
      bytes[0] = 0xff;
      bytes[1] = 0xfe;
      for (let i = 0; i < text.length; i++) {
        bytes[2 + i * 2] = text.charCodeAt(i) & 0xff;
        bytes[3 + i * 2] = text.charCodeAt(i) >> 8;
      }
      return bytes;
    };
    for (const [body, type] of [
      [utf16(jsonBundle("utf16-json")), "application/json"],
      [utf16(jsonlBundle("utf16-jsonl")), "application/x-ndjson"],
    ] as const) {
      const res = await post(body, type);
      expect(res.status).toBe(400);
      const { error } = await res.json();
      expect(error.code).toBe("invalid_text");
      expect(error.message).toMatch(/UTF-8/);
    }
    expect(await exists("utf16-json")).toBe(false);
    expect(await exists("utf16-jsonl")).toBe(false);
  });

  it("a whole bundle on one line sent as .jsonl is refused with a message naming line 1, importing nothing", async () => {
    const res = await post(jsonBundle("one-line"), "application/x-ndjson");
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(JSON.stringify(error)).toMatch(/line 1/);
    expect(await exists("one-line")).toBe(false);
  });
});

describe("the Hindsight form's API key", () => {
  it("a key the body's schema refuses (too long, not a string) is never quoted back in the error", async () => {
    const secret = `sk-live-${"S3cr3t".repeat(700)}`; // past the 4096 characters a key may have
    for (const apiKey of [secret, [secret], { key: secret }]) {
      const res = await hindsightRoute.POST(
        new Request("http://127.0.0.1/api/v1/banks/import/hindsight", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ baseUrl: "http://127.0.0.1:9", bankId: "b", apiKey }),
        }),
        { params: Promise.resolve(undefined) },
      );
      expect(res.status).toBe(400);
      const text = await res.text();
      expect(JSON.parse(text).error.fieldErrors.apiKey).toBeDefined();
      expect(text).not.toContain("S3cr3t");
      expect(text).not.toContain("sk-live");
    }
    expect(await exists("b")).toBe(false);
  });
});
