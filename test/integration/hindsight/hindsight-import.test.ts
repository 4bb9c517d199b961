/**
 * `import --from hindsight` against a loopback fake built from Hindsight's OpenAPI document
 * (test/fixtures/fake-hindsight-server.ts): the mapping, paging, auth, timeouts, malformed
 * responses and all-or-nothing writes, on a real libSQL file.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { exportBundle, importBundle } from "@/db/bundle-io";
import type { Db } from "@/db/client";
import { isAppError } from "@/lib/contracts/errors";
import { HindsightImportResult } from "@/lib/contracts/hindsight";
import { importFromHindsight } from "@/lib/server/hindsight-import";
import {
  type FakeHindsight,
  type FakeHindsightOptions,
  sampleBank,
  startFakeHindsight,
} from "../../fixtures/fake-hindsight-server";
import { openTempDb } from "../db/temp-db";

let temp: Awaited<ReturnType<typeof openTempDb>>;
let db: Db;
let fake: FakeHindsight | undefined;

beforeAll(async () => {
  temp = await openTempDb("hindsight");
  db = temp.db;
});
afterAll(() => temp.cleanup());
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function serve(options: Partial<FakeHindsightOptions> = {}) {
  fake = await startFakeHindsight({ banks: [sampleBank()], ...options });
  return fake;
}

/** The error a call fails with (the test fails when it does not fail). */
async function failure(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error("expected the import to fail");
}

describe("import from hindsight: mapping", () => {
  it("imports facts, observations with their sources, mental models and the mission as a skill, and says what it skipped", async () => {
    const server = await serve();
    const result = HindsightImportResult.parse(
      await importFromHindsight(db, { baseUrl: server.url, bankId: "alice", localBankId: "alice-happy" }),
    );
    expect(result.counts).toEqual({ facts: 6, observations: 1, mentalModels: 2, skills: 1, suites: 0 });
    expect(result.source).toEqual({ baseUrl: server.url, bankId: "alice" });
    const bundle = await exportBundle(db, "alice-happy");
    if (!bundle) throw new Error("bank not imported");
    expect(bundle.bank.name).toBe("Alice");
    const world = bundle.facts.find((f) => f.id === "00000000-0000-4000-8000-000000000000");
    expect(world).toMatchObject({
      kind: "world",
      text: "Alice world fact 0",
      tags: ["user:alice"],
      documentId: "session_1",
    });
    expect(world?.recordedAt).toBe("2024-01-01T10:30:00.000Z");
    // A naive Hindsight time is read as UTC; occurred_start becomes occurredAt.
    const exp = bundle.facts.find((f) => f.id === "00000000-0000-4000-9000-000000000000");
    expect(exp).toMatchObject({
      kind: "experience",
      recordedAt: "2024-02-01T09:00:00.000Z",
      occurredAt: "2024-02-01T00:00:00.000Z",
    });
    const [obs] = bundle.observations;
    expect(obs?.id).toBe("obs-1");
    // Its sources: the two imported facts; the id Hindsight lists but never served is dropped and counted.
    expect(obs?.sourceFactIds.sort()).toEqual([
      "00000000-0000-4000-8000-000000000000",
      "00000000-0000-4000-9000-000000000000",
    ]);
    expect(result.skipped).toContainEqual(expect.objectContaining({ kind: "observation sources", count: 1 }));
    const model = bundle.mentalModels.find((m) => m.id === "team-communication");
    expect(model).toMatchObject({
      name: "Team Communication",
      sourceQuery: "How does the team communicate?",
      content: "# Team\nThey use Slack.",
      refreshedAt: "2024-03-02T00:00:00.000Z",
    });
    expect(bundle.mentalModels.find((m) => m.id === "empty-model")?.content).toBe("");
    const [skill] = bundle.skills;
    expect(skill?.mission).toBe("I help Alice remember her work.");
    // Active directives, highest priority first; the inactive one is not there.
    expect(skill?.disposition).toEqual(["Be kind.", "Always cite the fact you rely on."]);
    expect(result.skipped.map((s) => s.kind)).toEqual(expect.arrayContaining(["disposition", "mental model content"]));
    expect(result.skipped.find((s) => s.kind === "disposition")?.reason).toContain("skepticism 4");
  });

  it("an observation gone (404) when its sources are read imports without sources, counted", async () => {
    const server = await serve({
      banks: [sampleBank("vanish")],
      override: (path) =>
        path.endsWith("/memories/obs-1") ? { status: 404, body: { detail: "Memory unit not found" } } : undefined,
    });
    const result = await importFromHindsight(db, { baseUrl: server.url, bankId: "vanish" });
    expect(result.counts.observations).toBe(1);
    expect(result.skipped).toContainEqual(
      expect.objectContaining({ kind: "observation sources", count: 1, reason: expect.stringMatching(/404/) }),
    );
    expect((await exportBundle(db, "vanish"))?.observations[0]?.sourceFactIds).toEqual([]);
  });

  it("skips invalidated and untimed facts by count and reason", async () => {
    const bank = sampleBank("bob", 1);
    bank.memories.push(
      { id: "inv-1", text: "curated out", fact_type: "world", mentioned_at: "2024-01-01T00:00:00Z", state: "valid" },
      { id: "untimed-1", text: "no time at all", fact_type: "world", mentioned_at: null, date: "" },
    );
    const server = await serve({
      banks: [bank],
      // The server lists an invalidated unit when asked for one (state filter): shown as such here.
      override: (path, q) =>
        path.endsWith("/memories/list") && q.get("type") === "world"
          ? {
              body: {
                items: [
                  { id: "w1", text: "kept", fact_type: "world", mentioned_at: "2024-01-01T00:00:00Z", tags: [] },
                  {
                    id: "inv-1",
                    text: "curated out",
                    fact_type: "world",
                    mentioned_at: "2024-01-01T00:00:00Z",
                    state: "invalidated",
                  },
                  { id: "untimed-1", text: "no time", fact_type: "world", mentioned_at: null, date: "" },
                ],
                total: 3,
                limit: 500,
                offset: 0,
              },
            }
          : undefined,
    });
    const result = await importFromHindsight(db, { baseUrl: server.url, bankId: "bob" });
    const kinds = Object.fromEntries(
      result.skipped.filter((s) => s.kind === "facts").map((s) => [s.reason.split(" ")[0], s.count]),
    );
    expect(kinds).toEqual({ invalidated: 1, no: 1 });
    const bundle = await exportBundle(db, "bob");
    expect(bundle?.facts.map((f) => f.id).sort()).toEqual(["00000000-0000-4000-9000-000000000000", "w1"]);
  });
});

describe("import from hindsight: paging", () => {
  it("reads every page of memories, mental models and directives", async () => {
    const bank = sampleBank("paged", 25);
    for (let i = 0; i < 7; i++)
      bank.mentalModels.push({ id: `m-${i}`, name: `Model ${i}`, source_query: "q", content: "c" });
    const server = await serve({ banks: [bank] });
    const result = await importFromHindsight(db, { baseUrl: server.url, bankId: "paged", pageSize: 10 });
    expect(result.counts.facts).toBe(50);
    expect(result.counts.mentalModels).toBe(9);
    const worldPages = server.requests.filter((r) => r.url.includes("/memories/list?type=world"));
    expect(worldPages.map((r) => new URL(r.url, "http://x").searchParams.get("offset"))).toEqual(["0", "10", "20"]);
    // 9 models: a page of 9, then the empty page that ends a list without a total.
    expect(
      server.requests
        .filter((r) => r.url.includes("/mental-models?"))
        .map((r) => new URL(r.url, "http://x").searchParams.get("offset")),
    ).toEqual(["0", "9"]);
    expect(result.requests).toBe(server.requests.length);
  });

  it("follows the server's own page size when it caps limit below the one asked for", async () => {
    const server = await serve({ banks: [sampleBank("capped", 12)], maxLimit: 5 });
    const result = await importFromHindsight(db, { baseUrl: server.url, bankId: "capped", pageSize: 10 });
    // Short pages end the listing only when the total is reached: 5+5+2 of each kind.
    expect(result.counts.facts).toBe(24);
  });

  it("refuses a server that ignores offset (the same page again) and writes nothing", async () => {
    const server = await serve({
      banks: [sampleBank("loop", 12)],
      override: (path, q) =>
        path.endsWith("/memories/list") && q.get("offset") !== "0"
          ? {
              body: {
                items: [
                  {
                    id: "00000000-0000-4000-8000-000000000000",
                    text: "again",
                    fact_type: q.get("type"),
                    mentioned_at: "2024-01-01T00:00:00Z",
                  },
                ],
                total: 12,
                limit: 10,
                offset: 0,
              },
            }
          : undefined,
    });
    const err = await failure(importFromHindsight(db, { baseUrl: server.url, bankId: "loop", pageSize: 10 }));
    expect(isAppError(err, "upstream_failed")).toBe(true);
    expect(err.message).toMatch(/already listed/);
    expect(await exportBundle(db, "loop")).toBeNull();
  });
});

describe("import from hindsight: refused responses write nothing", () => {
  it("names the malformed field and request, and imports nothing", async () => {
    const server = await serve({
      banks: [sampleBank("bad")],
      override: (path, q) =>
        path.endsWith("/memories/list") && q.get("type") === "experience"
          ? { body: { items: [{ id: "x1", text: 42, fact_type: "experience" }], total: 1, limit: 500, offset: 0 } }
          : undefined,
    });
    const err = await failure(importFromHindsight(db, { baseUrl: server.url, bankId: "bad" }));
    expect(isAppError(err, "upstream_failed")).toBe(true);
    expect(err.message).toContain("GET /v1/default/banks/bad/memories/list?type=experience");
    expect(err.message).toContain("items[0].text");
    expect(err.message).toContain("nothing was imported");
    expect(await exportBundle(db, "bad")).toBeNull();
  });

  it.each([
    ["a partial page (no total)", { body: { items: [], limit: 500, offset: 0 } }, /total/],
    ["a body that is not JSON", { rawText: "<html>proxy error</html>" }, /not JSON/],
    ["a server error", { status: 500, body: { detail: "database down" } }, /HTTP 500: database down/],
    ["a disposition out of range", undefined, /disposition\.empathy/],
  ])("%s is refused", async (_name, fault, message) => {
    const bank = sampleBank("partial");
    if (!fault) bank.disposition = { skepticism: 3, literalism: 3, empathy: 9 };
    const server = await serve({
      banks: [bank],
      override: (path, q) =>
        fault && path.endsWith("/memories/list") && q.get("type") === "observation" ? fault : undefined,
    });
    const err = await failure(importFromHindsight(db, { baseUrl: server.url, bankId: "partial" }));
    expect(err.message).toMatch(message);
    expect(await exportBundle(db, "partial")).toBeNull();
  });

  it("401: says the key was refused, never prints the key, imports nothing", async () => {
    const server = await serve({ apiKey: "right-key" });
    const err = await failure(
      importFromHindsight(db, {
        baseUrl: server.url,
        bankId: "alice",
        localBankId: "alice-401",
        apiKey: "wrong-secret-key",
      }),
    );
    expect(isAppError(err, "upstream_failed")).toBe(true);
    expect(err.message).toMatch(/HTTP 401.*API key/);
    expect(err.message).not.toContain("wrong-secret-key");
    expect(await exportBundle(db, "alice-401")).toBeNull();
    // The right key is sent as a bearer token and works.
    await importFromHindsight(db, {
      baseUrl: server.url,
      bankId: "alice",
      localBankId: "alice-401",
      apiKey: "right-key",
    });
    expect(server.requests.at(-1)?.authorization).toBe("Bearer right-key");
  });

  it("an unknown bank is not_found", async () => {
    const server = await serve();
    const err = await failure(importFromHindsight(db, { baseUrl: server.url, bankId: "nobody" }));
    expect(isAppError(err, "not_found")).toBe(true);
    expect(err.message).toContain('no bank "nobody"');
  });

  it("a body that stalls past the timeout fails in time and imports nothing", async () => {
    const server = await serve({
      banks: [sampleBank("slow")],
      override: (path) => (path.endsWith("/mental-models") ? { stallBodyMs: 5_000 } : undefined),
    });
    const started = Date.now();
    const err = await failure(importFromHindsight(db, { baseUrl: server.url, bankId: "slow", timeoutMs: 300 }));
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(err.message).toMatch(/no complete answer within 300 ms/);
    expect(await exportBundle(db, "slow")).toBeNull();
  });

  it("a response body over the cap is refused while it streams, and nothing is written", async () => {
    const server = await serve({ banks: [sampleBank("big", 40)] });
    const err = await failure(importFromHindsight(db, { baseUrl: server.url, bankId: "big", maxResponseBytes: 2_000 }));
    expect(isAppError(err, "upstream_failed")).toBe(true);
    expect(err.message).toMatch(/larger than 2,000 bytes/);
    expect(await exportBundle(db, "big")).toBeNull();
  });

  it("an unreachable server is upstream_failed", async () => {
    const server = await serve();
    const url = server.url;
    await server.close();
    fake = undefined;
    const err = await failure(importFromHindsight(db, { baseUrl: url, bankId: "alice", localBankId: "alice-gone" }));
    expect(isAppError(err, "upstream_failed")).toBe(true);
    expect(err.message).toMatch(/cannot reach the server/);
  });

  it.each([
    ["file:///etc/passwd", /only http and https/],
    ["ftp://example.com/", /only http and https/],
    ["http://user:pw@127.0.0.1:1/", /credentials in the URL/],
    ["not a url", /not a URL/],
    ["http://127.0.0.1:1/?x=1", /query/],
  ])("refuses %s before any request", async (url, message) => {
    const err = await failure(importFromHindsight(db, { baseUrl: url, bankId: "alice" }));
    expect(isAppError(err, "invalid_input")).toBe(true);
    expect(err.message).toMatch(message);
  });

  it("a key a header cannot carry is refused without echoing it, before any request", async () => {
    const server = await serve();
    const err = await failure(
      importFromHindsight(db, {
        baseUrl: server.url,
        bankId: "alice",
        localBankId: "alice-k",
        apiKey: "abc\nSECRET-PART",
      }),
    );
    expect(isAppError(err, "invalid_input")).toBe(true);
    expect(err.message).not.toContain("SECRET-PART");
    expect(server.requests).toEqual([]);
  });

  it.each([".", ".."])("bank id %j is refused (a dot segment would read another endpoint)", async (id) => {
    const server = await serve();
    const err = await failure(importFromHindsight(db, { baseUrl: server.url, bankId: id, localBankId: "dots" }));
    expect(err.message).toMatch(/not a Hindsight bank id/);
    expect(server.requests).toEqual([]);
  });

  it("a redirect is refused, not followed (it could carry the key elsewhere)", async () => {
    const server = await serve({
      override: (path) =>
        path === "/v1/default/banks/alice/profile"
          ? { status: 302, body: {}, headers: { location: "/v1/default/banks/elsewhere/profile" } }
          : undefined,
    });
    const err = await failure(
      importFromHindsight(db, { baseUrl: server.url, bankId: "alice", localBankId: "alice-r" }),
    );
    expect(isAppError(err, "upstream_failed")).toBe(true);
    expect(err.message).toMatch(/redirect/);
    expect(server.requests.map((r) => r.url)).toEqual(["/v1/default/banks/alice/profile"]);
    expect(await exportBundle(db, "alice-r")).toBeNull();
  });

  it("tags too long for a tag here are dropped and counted", async () => {
    const bank = sampleBank("tags", 1);
    bank.memories[0]!.tags = ["ok", "x".repeat(150)];
    const server = await serve({ banks: [bank] });
    const result = await importFromHindsight(db, { baseUrl: server.url, bankId: "tags" });
    expect(result.skipped).toContainEqual({ kind: "tags", count: 1, reason: "longer than 100 characters" });
    expect((await exportBundle(db, "tags"))?.facts.find((f) => f.id === bank.memories[0]!.id)?.tags).toEqual(["ok"]);
  });

  it("a Hindsight id that is not a bank id here asks for --as", async () => {
    const bank = sampleBank("Alice Smith");
    const server = await serve({ banks: [bank] });
    const err = await failure(importFromHindsight(db, { baseUrl: server.url, bankId: "Alice Smith" }));
    expect(err.message).toMatch(/--as/);
    const ok = await importFromHindsight(db, {
      baseUrl: server.url,
      bankId: "Alice Smith",
      localBankId: "alice-smith",
    });
    expect(ok.counts.facts).toBe(6);
    expect(server.requests.some((r) => r.url.startsWith("/v1/default/banks/Alice%20Smith/profile"))).toBe(true);
  });
});

describe("import from hindsight: re-import", () => {
  it("refuses an existing bank without replace; with it, replaces by Hindsight id (no duplicates)", async () => {
    const bank = sampleBank("again", 2);
    const server = await serve({ banks: [bank] });
    await importFromHindsight(db, { baseUrl: server.url, bankId: "again" });
    const err = await failure(importFromHindsight(db, { baseUrl: server.url, bankId: "again" }));
    expect(err.message).toMatch(/exists|replace/);
    bank.memories[0]!.text = "Alice world fact 0, edited";
    bank.memories.splice(2, 1);
    const second = await importFromHindsight(db, { baseUrl: server.url, bankId: "again", replace: true });
    expect(second.counts.facts).toBe(3);
    const bundle = await exportBundle(db, "again");
    expect(bundle?.facts.length).toBe(3);
    expect(bundle?.facts.find((f) => f.id === bank.memories[0]!.id)?.text).toBe("Alice world fact 0, edited");
  });

  it("a failed re-import leaves the bank as it was", async () => {
    const server = await serve({ banks: [sampleBank("keep", 2)] });
    await importFromHindsight(db, { baseUrl: server.url, bankId: "keep" });
    const before = await exportBundle(db, "keep");
    await server.close();
    fake = await startFakeHindsight({
      banks: [sampleBank("keep", 5)],
      override: (path) => (path.endsWith("/directives") ? { status: 503, body: { detail: "busy" } } : undefined),
    });
    await failure(importFromHindsight(db, { baseUrl: fake.url, bankId: "keep", replace: true }));
    expect(await exportBundle(db, "keep")).toEqual(before);
  });

  it("does not touch a bank it was not asked for", async () => {
    await importBundle(db, { version: 1, bank: { id: "native", name: "Native" } });
    const server = await serve();
    await importFromHindsight(db, { baseUrl: server.url, bankId: "alice", localBankId: "alice-other" });
    expect((await exportBundle(db, "native"))?.bank.name).toBe("Native");
  });
});
