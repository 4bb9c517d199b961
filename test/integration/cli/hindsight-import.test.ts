/**
 * `import --from hindsight` through `runCli` in-process, against the loopback fake Hindsight
 * server (test/fixtures/fake-hindsight-server.ts), on a real libSQL file.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { exportBundle } from "@/db/bundle-io";
import { openDb } from "@/db/client";
import { getRun } from "@/db/runs";
import { AskHindsightResult, HindsightImportResult } from "@/lib/contracts/hindsight";
import { type FakeHindsight, sampleBank, startFakeHindsight } from "../../fixtures/fake-hindsight-server";
import { cliInProcess, cliInProcessWith, root } from "./cli-process";

const dir = resolve(root, "test/.tmp", `cli-hindsight-${process.pid}-${Date.now()}`);
const dbUrl = `file:${join(dir, "cli.db")}`;
const cli = cliInProcess(dbUrl);
const KEY = "sk-hindsight-very-secret";

let fake: FakeHindsight;
beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  fake = await startFakeHindsight({ banks: [sampleBank("alice"), sampleBank("bob", 1)], apiKey: KEY });
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  fake.requests.length = 0;
});

async function bankIn(id: string) {
  const db = await openDb(dbUrl);
  try {
    return await exportBundle(db, id);
  } finally {
    db.$client.close();
  }
}

describe("cli import --from hindsight", () => {
  it("imports the bank, prints counts and what it did not carry, and never prints the key", async () => {
    const out = await cli("import", "--from", "hindsight", fake.url, "--bank", "alice", "--api-key", KEY);
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /^imported bank alice from Hindsight http:\/\/127\.0\.0\.1:\d+ bank alice: 6 facts, 1 observation, 2 mental models, 1 skill \(\d+ requests\)$/m,
    );
    expect(out.stdout).toMatch(/not carried: 1 disposition: skepticism 4/);
    expect(out.stdout + out.stderr).not.toContain(KEY);
    expect((await bankIn("alice"))?.facts.length).toBe(6);
    expect(fake.requests.every((r) => r.authorization === `Bearer ${KEY}`)).toBe(true);
  });

  it("--json prints the result object; HINDSIGHT_API_KEY is the key when --api-key is not given", async () => {
    const out = await cliInProcessWith(
      { DATABASE_URL: dbUrl, REFLECT_LLM: "offline", HINDSIGHT_API_KEY: KEY },
      "import",
      "--from=hindsight",
      fake.url,
      "--bank",
      "bob",
      "--as",
      "bob-json",
      "--json",
    );
    expect(out.code).toBe(0);
    const json = HindsightImportResult.parse(JSON.parse(out.stdout));
    expect(json).toMatchObject({
      bankId: "bob-json",
      source: { bankId: "bob" },
      counts: { facts: 2, observations: 1 },
    });
    expect(json.skipped.map((s) => s.kind)).toContain("disposition");
    expect(out.stdout).not.toContain(KEY);
  });

  it("re-import: refused without --replace, replaces with it", async () => {
    const again = await cli("import", "--from", "hindsight", fake.url, "--bank", "alice", "--api-key", KEY);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/error: .*alice.*(exists|replace)/);
    const replaced = await cli(
      "import",
      "--from",
      "hindsight",
      fake.url,
      "--bank",
      "alice",
      "--api-key",
      KEY,
      "--replace",
    );
    expect(replaced.code).toBe(0);
    expect((await bankIn("alice"))?.facts.length).toBe(6);
  });

  it("a wrong key: exit 2, one error line naming the refusal, the key not echoed, nothing written", async () => {
    const out = await cli(
      "import",
      "--from",
      "hindsight",
      fake.url,
      "--bank",
      "alice",
      "--as",
      "alice-nokey",
      "--api-key",
      "wrong-key-123",
    );
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(
      /^error: Hindsight GET \/v1\/default\/banks\/alice\/profile: the server refused the request \(HTTP 401\)/,
    );
    expect(out.stderr).not.toContain("wrong-key-123");
    expect(await bankIn("alice-nokey")).toBeNull();
  });

  it("reflect --hindsight stores Hindsight's answer as an imported run and prints it, without the key", async () => {
    const out = await cli(
      "reflect",
      "--hindsight",
      fake.url,
      "--bank",
      "alice",
      "--api-key",
      KEY,
      "Where does Alice work?",
    );
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /^Run (otlp_\w+): Hindsight's answer \(imported run in bank alice, 4 tool calls, 4 citations\)/,
    );
    expect(out.stdout).toContain("Hindsight answer to: Where does Alice work?");
    expect(out.stdout).not.toContain(KEY);
    const runId = /^Run (\S+):/.exec(out.stdout)?.[1] ?? "";
    const db = await openDb(dbUrl);
    try {
      expect((await getRun(db, runId))?.question).toBe("Where does Alice work?");
    } finally {
      db.$client.close();
    }
    const json = await cli("reflect", "--hindsight", fake.url, "--bank", "alice", "--api-key", KEY, "--json", "Hi?");
    expect(AskHindsightResult.parse(JSON.parse(json.stdout)).toolCalls).toBe(4);
  });

  it.each([
    [["reflect", "--hindsight", "http://127.0.0.1:1", "q?"], /--bank is required/],
    [["reflect", "--hindsight", "http://127.0.0.1:1", "--bank", "a"], /question is required/],
    [["reflect", "--hindsight", "gopher://x", "--bank", "a", "q?"], /only http and https/],
    [["import", "--from", "hindsight", "http://127.0.0.1:1"], /--bank is required/],
    [["import", "--from", "mem0", "http://127.0.0.1:1", "--bank", "a"], /--from takes one source: "hindsight"/],
    [["import", "--from", "hindsight", "--bank", "a"], /base URL is required/],
    [["import", "--from", "hindsight", "file:///etc/passwd", "--bank", "a"], /only http and https/],
    [["import", "--from", "hindsight", "http://127.0.0.1:1", "--bank", "a", "--timeout-ms", "0"], /--timeout-ms/],
    [["import", "--from", "hindsight", "http://127.0.0.1:1", "--bank", "a", "--bogus"], /bogus/],
  ])("%j → a usage error", async (args, message) => {
    const out = await cli(...args);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(message);
  });
});
