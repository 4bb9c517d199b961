/**
 * The MCP server over stdio, driven by the SDK's own client spawning `cli mcp` as an agent host
 * would: tools are listed, a reflect becomes a stored run the returned link points at.
 */
import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDb } from "@/db/client";
import { getRun } from "@/db/queries/runs";
import { saveSuite } from "@/db/queries/suites";
import { CLI_ARGS } from "../cli/cli-process";

const root = resolve(import.meta.dirname, "../../..");
const dir = resolve(root, "test/.tmp");
const dbPath = resolve(dir, `mcp-stdio-${process.pid}-${Date.now()}.db`);
const PUBLIC_URL = "http://inspector.test:3000";

let client: Client;
let stderr = "";
let db: Db;

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...CLI_ARGS, "mcp"],
    cwd: root,
    env: {
      ...(process.env as Record<string, string>),
      DATABASE_URL: `file:${dbPath}`,
      REFLECT_LLM: "offline",
      INSPECTOR_PUBLIC_URL: PUBLIC_URL,
      OTEL_EXPORTER_OTLP_ENDPOINT: "",
    },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (d) => {
    stderr += d;
  });
  client = new Client({ name: "stdio-test", version: "1.0.0" });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
  db?.$client.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${dbPath}${suffix}`, { force: true });
});

const textOf = (r: unknown) => (r as CallToolResult).content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

describe("MCP over stdio", { timeout: 60_000 }, () => {
  it("lists the four memory tools with their input schemas", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "memory_experiment",
      "memory_recall",
      "memory_reflect",
      "memory_retain",
    ]);
    const reflect = tools.find((t) => t.name === "memory_reflect")!;
    expect(reflect.inputSchema.required).toEqual(["question"]);
    expect(Object.keys(reflect.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(["question", "skill", "budget", "scope", "mode", "bank"]),
    );
  });

  it("answers memory_reflect with cited memories and a link to a stored, finished run", async () => {
    const result = await client.callTool({
      name: "memory_reflect",
      arguments: { question: "What did we decide about the launch date?", skill: "decisions", budget: "low" },
    });
    expect(result.isError, stderr).toBeFalsy();
    const text = textOf(result);
    const link = /Inspect: (\S+)\/runs\/(run_\w+)/.exec(text);
    expect(link?.[1]).toBe(PUBLIC_URL);
    const runId = link![2]!;

    db = await openDb(`file:${dbPath}`);
    const run = await getRun(db, runId);
    expect(run).toMatchObject({ bankId: "demo", skillName: "decisions", budget: "low", status: "done" });
    expect(run!.answer).toBeTruthy();
    expect(text.startsWith(run!.answer!)).toBe(true);
    const cited = [
      ...run!.citations!.memory_ids,
      ...run!.citations!.observation_ids,
      ...run!.citations!.mental_model_ids,
    ];
    expect(cited.length).toBeGreaterThan(0);
    for (const id of cited) expect(text).toMatch(new RegExp(`- \\[${id}\\] \\(\\w+\\) \\S`));
  });

  it("retains a fact that memory_recall then finds", async () => {
    const retained = await client.callTool({
      name: "memory_retain",
      arguments: { facts: [{ text: "The zephyr migration finished on Friday.", tags: ["zephyr"] }] },
    });
    expect(retained.isError, textOf(retained)).toBeFalsy();
    const id = /(fact_[\w-]+)/.exec(textOf(retained))?.[1];
    expect(id).toBeDefined();

    const recalled = await client.callTool({ name: "memory_recall", arguments: { query: "zephyr migration" } });
    expect(textOf(recalled)).toContain(`[${id}]`);
    expect(textOf(recalled)).toContain("The zephyr migration finished on Friday.");
  });

  it("memory_recall searches the tier asked for: observations name the facts they came from", async () => {
    const found = await client.callTool({ name: "memory_recall", arguments: { query: "SSO", tier: "observations" } });
    expect(found.isError, textOf(found)).toBeFalsy();
    expect(textOf(found)).toMatch(/^\d+ observations from bank "demo":\n- \[o-[\w-]+\] .+ \(from f-\d+/);
    const models = await client.callTool({
      name: "memory_recall",
      arguments: { query: "launch", tier: "mental_models" },
    });
    expect(textOf(models)).toMatch(/mental models from bank "demo":\n- \[mm-[\w-]+\] .+ \((fresh|stale: .+)\)/);
  });

  it("runs a suite with memory_experiment: totals, and each failing question with the expectation it missed", async () => {
    const passing = await client.callTool({ name: "memory_experiment", arguments: { suite: "demo-tour" } });
    expect(passing.isError, textOf(passing)).toBeFalsy();
    expect(textOf(passing)).toMatch(
      /^Experiment exp_\w+ \(suite demo-tour v1\): done\n10 questions: 10 passed, 0 failed/,
    );
    expect(textOf(passing)).not.toContain("Failing questions");

    db ??= await openDb(`file:${dbPath}`);
    await saveSuite(db, {
      bankId: "demo",
      name: "mcp-fails",
      description: "",
      questions: [{ question: "When did Atlas launch?", skill: "recap", expect: { contains: ["the year 1999"] } }],
      expectedVersion: 0,
    });
    const failing = await client.callTool({ name: "memory_experiment", arguments: { suite: "mcp-fails" } });
    expect(textOf(failing)).toContain("1 question: 0 passed, 1 failed");
    expect(textOf(failing)).toMatch(
      /Failing questions:\n- When did Atlas launch\? \(done, run run_\w+\)\n {2}✗ contains: the answer does not contain "the year 1999"/,
    );

    const unknown = await client.callTool({ name: "memory_experiment", arguments: { suite: "nope" } });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/unknown suite "nope"/);
  });

  it("reports an unknown bank as a tool error, not a crash", async () => {
    const result = await client.callTool({ name: "memory_reflect", arguments: { question: "Hi?", bank: "nope" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/unknown bank "nope"/);
    const recall = await client.callTool({ name: "memory_recall", arguments: { query: "x", bank: "nope" } });
    expect(recall.isError).toBe(true);
  });
});

describe("MCP tool metadata", { timeout: 60_000 }, () => {
  type Schema = { description?: string; properties?: Record<string, Schema>; items?: Schema };
  /** `facts[].text`-style paths of input properties without a description. */
  function undescribed(schema: Schema, path = ""): string[] {
    const out: string[] = [];
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const here = path ? `${path}.${name}` : name;
      if (!property.description) out.push(here);
      out.push(...undescribed(property, here));
      if (property.items) out.push(...undescribed(property.items, `${here}[]`));
    }
    return out;
  }

  it("describes every input property, nested ones included", async () => {
    const { tools } = await client.listTools();
    for (const tool of tools) expect(undescribed(tool.inputSchema as Schema), tool.name).toEqual([]);
    const retain = tools.find((t) => t.name === "memory_retain")!.inputSchema as Schema;
    expect(Object.keys(retain.properties?.facts?.items?.properties ?? {})).toEqual(
      expect.arrayContaining(["text", "tags", "kind", "scope"]),
    );
  });

  it("does not advertise tools.listChanged: the tool list never changes", () => {
    const capabilities = client.getServerCapabilities();
    expect(capabilities?.tools).toBeDefined();
    expect(capabilities?.tools?.listChanged).not.toBe(true);
  });
});

describe("MCP over stdio with a database that cannot be opened", { timeout: 60_000 }, () => {
  it("says why on stderr before announcing ready, and every tool answers with that line as a tool error", async () => {
    // A folder where the database file should be: SQLite alone would say only "…: 14".
    const folder = resolve(dir, `mcp-not-a-file-${process.pid}`);
    mkdirSync(folder, { recursive: true });
    let log = "";
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...CLI_ARGS, "mcp"],
      cwd: root,
      env: { ...(process.env as Record<string, string>), DATABASE_URL: `file:${folder}`, REFLECT_LLM: "offline" },
      stderr: "pipe",
    });
    transport.stderr?.on("data", (d) => {
      log += d;
    });
    const broken = new Client({ name: "stdio-bad-db", version: "1.0.0" });
    try {
      await broken.connect(transport);
      const expected = `cannot open the database ${folder} (DATABASE_URL=file:${folder}): it is a folder, not a database file`;
      const lines = log.trim().split("\n");
      expect(lines[0]).toBe(`error: ${expected} (the tools will answer with this error)`);
      expect(lines[1]).toMatch(/MCP server ready on stdio/);
      const result = (await broken.callTool({
        name: "memory_recall",
        arguments: { query: "launch" },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(expected);
    } finally {
      await broken.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
