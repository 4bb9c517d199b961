/**
 * `POST /api/v1/banks/import/hindsight` called as a route handler with real Requests: it imports
 * only from an origin in HINDSIGHT_IMPORT_ORIGINS (never an arbitrary host: SECURITY.md), its
 * responses are the documented ones, and the API key is never echoed.
 */
import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";

const dbFile = vi.hoisted(() => {
  const path = `${process.cwd()}/test/.tmp/hindsight-api-${process.pid}-${Date.now()}.db`;
  process.env.DATABASE_URL = `file:${path}`;
  process.env.REFLECT_LLM = "offline";
  return path;
});

import * as route from "@/app/api/v1/banks/import/hindsight/route";
import { exportBundle } from "@/db/bundle-io";
import { HindsightImportResult } from "@/lib/contracts/hindsight";
import { endpoints } from "@/lib/server/api/endpoints";
import { getAppDb } from "@/lib/server/db";
import { checkRequest } from "@/lib/server/request-policy";
import { type FakeHindsight, sampleBank, startFakeHindsight } from "../../fixtures/fake-hindsight-server";

const KEY = "hs-api-secret-key";
let fake: FakeHindsight;
const saved = process.env.HINDSIGHT_IMPORT_ORIGINS;

beforeAll(async () => {
  mkdirSync(resolve(process.cwd(), "test/.tmp"), { recursive: true });
  await getAppDb();
  fake = await startFakeHindsight({ banks: [sampleBank("alice")], apiKey: KEY });
});
afterEach(() => {
  if (saved === undefined) delete process.env.HINDSIGHT_IMPORT_ORIGINS;
  else process.env.HINDSIGHT_IMPORT_ORIGINS = saved;
  fake.requests.length = 0;
});
afterAll(async () => {
  await fake.close();
  (await getAppDb()).$client.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${dbFile}${suffix}`, { force: true });
});

async function post(body: unknown) {
  const request = new Request("http://127.0.0.1/api/v1/banks/import/hindsight", {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
  const res = await route.POST(request, { params: Promise.resolve(undefined) });
  const text = await res.text();
  // Every status the route answers is one its OpenAPI entry declares.
  expect(Object.keys(endpoints.importHindsight.responses)).toContain(String(res.status));
  return { status: res.status, text, json: JSON.parse(text) };
}

describe("POST /api/v1/banks/import/hindsight", () => {
  it("refuses every origin while HINDSIGHT_IMPORT_ORIGINS is unset, before any request leaves", async () => {
    delete process.env.HINDSIGHT_IMPORT_ORIGINS;
    const res = await post({ baseUrl: fake.url, bankId: "alice", apiKey: KEY });
    expect(res.status).toBe(400);
    expect(res.json.error.fieldErrors.baseUrl[0]).toMatch(/HINDSIGHT_IMPORT_ORIGINS is not set/);
    expect(fake.requests).toEqual([]);
  });

  it("refuses an origin not in the list (no SSRF to other hosts or ports), before any request", async () => {
    process.env.HINDSIGHT_IMPORT_ORIGINS = "https://hindsight.example.com";
    for (const baseUrl of [fake.url, "http://169.254.169.254/latest", "http://localhost:1/"]) {
      const res = await post({ baseUrl, bankId: "alice" });
      expect(res.status).toBe(400);
      expect(res.text).toMatch(/not in HINDSIGHT_IMPORT_ORIGINS/);
    }
    expect(fake.requests).toEqual([]);
  });

  it("imports from a listed origin: 201 with the result, the key not echoed", async () => {
    process.env.HINDSIGHT_IMPORT_ORIGINS = `https://other.example, ${fake.url}/`;
    const res = await post({ baseUrl: fake.url, bankId: "alice", localBankId: "alice-api", apiKey: KEY });
    expect(res.status).toBe(201);
    const result = HindsightImportResult.parse(res.json);
    expect(result.counts.facts).toBe(6);
    expect(res.text).not.toContain(KEY);
    expect((await exportBundle(await getAppDb(), "alice-api"))?.observations.length).toBe(1);
  });

  it("a refused key is 502 upstream_failed without the key; an unknown field is 400", async () => {
    process.env.HINDSIGHT_IMPORT_ORIGINS = fake.url;
    const bad = await post({ baseUrl: fake.url, bankId: "alice", localBankId: "alice-x", apiKey: "nope-key" });
    expect(bad.status).toBe(502);
    expect(bad.json.error.code).toBe("upstream_failed");
    expect(bad.text).not.toContain("nope-key");
    const unknown = await post({ baseUrl: fake.url, bankId: "alice", apikey: KEY });
    expect(unknown.status).toBe(400);
  });

  it("is a write the request policy guards: a cross-site form post is refused before the route", () => {
    expect(endpoints.importHindsight.method).toBe("POST");
    const refused = checkRequest({
      method: "POST",
      pathname: "/api/v1/banks/import/hindsight",
      host: "127.0.0.1:3000",
      origin: "https://evil.example",
      secFetchSite: "cross-site",
      contentType: "text/plain",
    });
    expect(refused?.code).toBe("forbidden_origin");
    // Without Origin (a form a page cannot send as JSON cross-site): the route takes JSON only.
    const plain = checkRequest({
      method: "POST",
      pathname: "/api/v1/banks/import/hindsight",
      host: "127.0.0.1:3000",
      origin: null,
      secFetchSite: null,
      contentType: "text/plain",
    });
    expect(plain?.code).toBe("unsupported_media_type");
  });
});
