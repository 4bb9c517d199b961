/**
 * Structured tool results (MCP 2025-06-18+): every tool declares an `outputSchema` and answers
 * with `structuredContent` beside its text. Driven by the SDK's own client, which checks the
 * content against the listed schema itself; each result is also validated here with ajv against
 * the schema as `tools/list` serves it, so a drift in either fails.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { listExperimentRecords } from "@/db/experiments";
import { getRun } from "@/db/runs";
import { saveSuite } from "@/db/suites";
import { createOfflineModel } from "@/lib/llm";
import { ensureDemoBank } from "@/lib/server/db";
import { cancelExperiment, startExperiment } from "@/lib/server/experiments";
import { createMcpServer } from "@/lib/server/mcp";
import { openTempDb } from "../db/temp-db";

const BASE = "http://inspector.test:3000";
let db: Db;
let cleanup: () => void;
let client: Client;
let tools: Tool[];
/** A validator for the schema's own draft (the SDK serves draft-07; 2020-12 otherwise). */
const draft07 = new Ajv({ strict: false, allErrors: true });
const draft2020 = new Ajv2020({ strict: false, allErrors: true });
addFormats(draft07);
addFormats(draft2020);
const compile = (schema: Record<string, unknown>) =>
  (String(schema.$schema ?? "").includes("draft-07") ? draft07 : draft2020).compile(schema);
const errorsText = (errors: unknown) => draft07.errorsText(errors as never);

beforeAll(async () => {
  ({ db, cleanup } = await openTempDb("mcp-structured"));
  await ensureDemoBank(db);
  const server = createMcpServer({ getDb: async () => db, publicUrl: BASE, model: createOfflineModel() });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: "structured-test", version: "1.0.0" });
  await client.connect(clientSide);
  ({ tools } = await client.listTools());
}, 60_000);

afterAll(async () => {
  await client?.close();
  cleanup?.();
});

/** Calls a tool and checks its structured content against the listed output schema. */
async function call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  expect(result.isError, text).toBeFalsy();
  expect(text.length).toBeGreaterThan(0);
  const tool = tools.find((t) => t.name === name)!;
  const validate = compile(tool.outputSchema!);
  expect(validate(result.structuredContent), `${name}: ${errorsText(validate.errors)}`).toBe(true);
  return result.structuredContent!;
}

describe("MCP structured tool results", { timeout: 60_000 }, () => {
  it("declares an object output schema for every tool", () => {
    expect(tools.map((t) => t.name).sort()).toEqual([
      "memory_experiment",
      "memory_recall",
      "memory_reflect",
      "memory_retain",
    ]);
    for (const t of tools) {
      expect(t.outputSchema?.type, t.name).toBe("object");
      expect(t.outputSchema?.required?.length, t.name).toBeGreaterThan(0);
    }
    // The validator is live: a reflect result without its run id fails the schema.
    const validate = compile(tools.find((t) => t.name === "memory_reflect")!.outputSchema!);
    expect(validate({ status: "done", answer: "x", citations: [], flags: [], error: null, links: {} })).toBe(false);
  });

  it("memory_reflect: the answer, its citations, the run id and absolute links, matching the stored run", async () => {
    const out = (await call("memory_reflect", {
      question: "What did we decide about the launch date?",
      skill: "decisions",
      budget: "low",
    })) as {
      runId: string;
      status: string;
      answer: string;
      citations: { id: string; tier: string; text: string | null }[];
      links: { inspector: string; self: string; events: string };
    };
    const run = (await getRun(db, out.runId))!;
    if (!run.citations) throw new Error("a finished run has its citations");
    expect(out.status).toBe(run.status);
    expect(out.answer).toBe(run.answer);
    expect(out.citations.length).toBeGreaterThan(0);
    expect(out.citations.map((c) => c.id).sort()).toEqual(
      [...run.citations.memory_ids, ...run.citations.observation_ids, ...run.citations.mental_model_ids].sort(),
    );
    expect(out.links).toEqual({
      inspector: `${BASE}/runs/${out.runId}`,
      self: `${BASE}/api/v1/runs/${out.runId}`,
      events: `${BASE}/api/v1/runs/${out.runId}/events`,
    });
  });

  it("memory_retain then memory_recall: the new fact's id, then the hit carrying it", async () => {
    const retained = (await call("memory_retain", {
      facts: [{ text: "The structured-content check shipped on a Tuesday." }],
    })) as { bank: string; inserted: string[] };
    expect(retained.bank).toBe("demo");
    expect(retained.inserted).toHaveLength(1);
    const recalled = (await call("memory_recall", { query: "structured-content check" })) as {
      bank: string;
      result: { tier: string; count: number; memories: { id: string }[] };
    };
    expect(recalled.result.tier).toBe("raw_facts");
    expect(recalled.result.memories.map((m) => m.id)).toContain(retained.inserted[0]);
    const empty = (await call("memory_recall", { query: "zeppelin quokka" })) as { result: { count: number } };
    expect(empty.result.count).toBe(0);
  });

  it("memory_experiment: totals and each failing question with its run link", async () => {
    await saveSuite(db, {
      bankId: "demo",
      name: "structured-fails",
      description: "",
      questions: [{ question: "When did Atlas launch?", skill: "recap", expect: { contains: ["the year 1999"] } }],
      expectedVersion: 0,
    });
    const out = (await call("memory_experiment", { suite: "structured-fails" })) as {
      experimentId: string;
      totals: { questions: number; failed: number };
      failing: { runId: string; failures: { expectation: string }[]; inspector: string }[];
      links: { inspector: string };
    };
    expect(out.totals).toMatchObject({ questions: 1, failed: 1 });
    expect(out.failing).toHaveLength(1);
    expect(out.failing[0]!.failures[0]!.expectation).toBe("contains");
    expect(out.failing[0]!.inspector).toBe(`${BASE}/runs/${out.failing[0]!.runId}`);
    expect(out.links.inspector).toBe(`${BASE}/experiments/${out.experimentId}`);
  });

  it("memory_experiment: allowIncompleteBaseline compares with a cancelled baseline, and is refused without one", async () => {
    await saveSuite(db, {
      bankId: "demo",
      name: "structured-incomplete",
      description: "",
      questions: [
        { question: "When did Atlas launch?", skill: "recap" },
        { question: "Who owns the checklist?", skill: "recap" },
      ],
      expectedVersion: 0,
    });
    // A baseline that stopped before its questions ran: incomplete.
    const { experimentId: baseId, finished } = await startExperiment(db, {
      bankId: "demo",
      suite: "structured-incomplete",
      config: { mentalModels: [] },
      allowIncompleteBaseline: false,
      concurrency: 1,
    });
    await cancelExperiment(db, baseId);
    await finished;
    const refused = await client.callTool({
      name: "memory_experiment",
      arguments: { suite: "structured-incomplete", baseline: baseId },
    });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("not complete");
    const out = (await call("memory_experiment", {
      suite: "structured-incomplete",
      baseline: baseId,
      allowIncompleteBaseline: true,
    })) as { baseline: { id: string } | null };
    expect(out.baseline?.id).toBe(baseId);
    const alone = await client.callTool({
      name: "memory_experiment",
      arguments: { suite: "structured-incomplete", allowIncompleteBaseline: true },
    });
    expect(alone.isError).toBe(true);
    expect(JSON.stringify(alone.content)).toContain("applies to a baseline");
    // Not a boolean: refused by the tool's schema, and no experiment is started.
    const before = (await listExperimentRecords(db, { bankId: "demo", limit: 500 })).length;
    for (const wrong of ["true", 1, null, { yes: true }]) {
      const res = await client.callTool({
        name: "memory_experiment",
        arguments: { suite: "structured-incomplete", baseline: baseId, allowIncompleteBaseline: wrong },
      });
      expect(res.isError, JSON.stringify(wrong)).toBe(true);
      expect(JSON.stringify(res.content)).toContain("allowIncompleteBaseline");
    }
    expect((await listExperimentRecords(db, { bankId: "demo", limit: 500 })).length).toBe(before);
  });

  it("a tool error carries no structured content (isError, text only)", async () => {
    const result = (await client.callTool({
      name: "memory_reflect",
      arguments: { question: "Hi?", bank: "nope" },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
  });
});
