/**
 * The `--json` casing rule (docs/cli.md#json-output): every key is camelCase, except names that are
 * on the wire as the engine's tool schema and the chat API define them — the tool schema's
 * parameter names (`memory_ids`, `max_results`…), tier ids used as keys (`raw_facts`…), and chat
 * messages as sent to the model (`tool_calls`, `tool_call_id`). Walks the --json output of every
 * command that has one, so a new snake_case (or PascalCase, kebab-case) key fails here.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TIERS } from "@/lib/reflect/domain";
import { TOOL_DEFINITIONS } from "@/lib/reflect/tools";
import { sampleBank, startFakeHindsight } from "@/test/fixtures/fake-hindsight-server";
import { type FakeOpenAI, serverProfile, startFakeOpenAI } from "@/test/fixtures/fake-openai-server";
import { MINI_LOCOMO } from "@/test/fixtures/locomo/mini";
import { type CliResult, cliInProcess, cliInProcessWith, root } from "./cli-process";

const dir = resolve(root, "test/.tmp", `cli-json-keys-${process.pid}-${Date.now()}`);
const dbUrl = `file:${join(dir, "cli.db")}`;
const cli = cliInProcess(dbUrl);
let fake: FakeOpenAI;

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

const CAMEL = /^[a-z][a-zA-Z0-9]*$/;

/** Every property name in the engine's tool schema (what the model writes and the citations carry). */
function schemaKeys(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const s of schema) schemaKeys(s, into);
  else if (schema && typeof schema === "object") {
    const o = schema as Record<string, unknown>;
    if (o.properties && typeof o.properties === "object") for (const k of Object.keys(o.properties)) into.add(k);
    for (const v of Object.values(o)) schemaKeys(v, into);
  }
  return into;
}

const TOOL_SCHEMA_KEYS = schemaKeys(Object.values(TOOL_DEFINITIONS).map((d) => d.function.parameters));
const WIRE_KEYS = new Set<string>([...TOOL_SCHEMA_KEYS, ...TIERS]);

/** Keys that break the rule, with their paths. `messages` holds chat messages as the chat API defines them. */
function offending(value: unknown, path = "$"): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => offending(v, `${path}[]`));
  if (!value || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const at = `${path}.${key}`;
    const own = CAMEL.test(key) || WIRE_KEYS.has(key) ? [] : [at];
    if (key === "messages" && Array.isArray(v)) return own; // the chat API's own message shape
    return [...own, ...offending(v, at)];
  });
}

/** stdout as one JSON object (stderr may carry progress lines, as experiment run's). */
function json(out: CliResult): unknown {
  expect(out.stdout.trim().split("\n"), out.stderr).toHaveLength(1);
  return JSON.parse(out.stdout);
}

describe("--json keys: camelCase, wire names as the tool schema has them", { timeout: 120_000 }, () => {
  it("the rule's wire set is what the engine's tool schema defines (the citation keys among them)", () => {
    for (const k of ["memory_ids", "observation_ids", "mental_model_ids"]) expect(TOOL_SCHEMA_KEYS).toContain(k);
    // It catches what it must: a snake_case, kebab or Pascal key the schema does not define.
    expect(offending({ llmCalls: 1, llm_calls: 1, "run-id": 2, RunId: 3, nested: [{ input_tokens: 1 }] })).toEqual([
      "$.llm_calls",
      "$.run-id",
      "$.RunId",
      "$.nested[].input_tokens",
    ]);
  });

  it("reflect --json: citations keep memory_ids / observation_ids / mental_model_ids, the rest camelCase", async () => {
    const out = json(await cli("reflect", "--bank", "demo", "--json", "What did we decide about the launch date?"));
    expect(offending(out)).toEqual([]);
    const r = out as { citations: Record<string, unknown>; llmCalls: number; modelRequests: number };
    expect(Object.keys(r.citations).sort()).toEqual(["memory_ids", "mental_model_ids", "observation_ids"]);
    expect(r.llmCalls).toEqual(expect.any(Number));
    expect(r.modelRequests).toEqual(expect.any(Number));
  });

  it("reflect --json --mode facts", async () => {
    const out = json(await cli("reflect", "--bank", "demo", "--mode", "facts", "--json", "Who owns the SSO rollout?"));
    expect(offending(out)).toEqual([]);
  });

  it("experiment run --json", async () => {
    const out = json(await cli("experiment", "run", "--bank", "demo", "--suite", "demo-tour", "--json"));
    expect(offending(out)).toEqual([]);
    expect((out as { results: unknown[] }).results.length).toBeGreaterThan(0);
  });

  it("runs prune --json, runs retention --json", async () => {
    expect(offending(json(await cli("runs", "prune", "--keep", "1", "--dry-run", "--json")))).toEqual([]);
    expect(offending(json(await cli("runs", "retention", "--bank", "demo", "--keep", "50", "--json")))).toEqual([]);
    expect(offending(json(await cli("runs", "retention", "--bank", "demo", "--json")))).toEqual([]);
  });

  it("bench import locomo --json", async () => {
    const file = join(dir, "mini.json");
    writeFileSync(file, JSON.stringify(MINI_LOCOMO));
    expect(offending(json(await cli("bench", "import", "locomo", file, "--json")))).toEqual([]);
  });

  it("import --from hindsight --json, reflect --hindsight --json", async () => {
    const hindsight = await startFakeHindsight({ banks: [sampleBank("alice")] });
    try {
      const imported = json(await cli("import", "--from", "hindsight", hindsight.url, "--bank", "alice", "--json"));
      expect(offending(imported)).toEqual([]);
      const asked = json(await cli("reflect", "--hindsight", hindsight.url, "--bank", "alice", "--json", "Hi?"));
      expect(offending(asked)).toEqual([]);
    } finally {
      await hindsight.close();
    }
  });

  it("model check --json, version --json", async () => {
    fake.setScript(serverProfile("compatible"));
    const env = { DATABASE_URL: dbUrl, REFLECT_LLM: "openai", OPENAI_API_KEY: "k", OPENAI_BASE_URL: fake.url };
    expect(offending(json(await cliInProcessWith(env, "model", "check", "--json")))).toEqual([]);
    expect(offending(json(await cli("version", "--json")))).toEqual([]);
  });
});
