/**
 * Stored text is valid text, ids are slugs, unknown fields are refused and one set of limits holds
 * (SECURITY.md), at every door: the API route handlers, server actions, MCP tools (a real SDK client
 * over an in-memory transport), the CLI (a real process) and bundles. Each refusal changes nothing.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const dbFile = vi.hoisted(() => {
  const path = `${process.cwd()}/test/.tmp/text-${process.pid}-${Date.now()}.db`;
  process.env.DATABASE_URL = `file:${path}`;
  process.env.REFLECT_LLM = "offline";
  return path;
});

import { startRunAction } from "@/app/actions/runs";
import * as exportRoute from "@/app/api/v1/banks/[bank]/export/route";
import * as facts from "@/app/api/v1/banks/[bank]/facts/route";
import * as mentalModels from "@/app/api/v1/banks/[bank]/mental-models/route";
import * as reflect from "@/app/api/v1/banks/[bank]/reflect/route";
import * as skills from "@/app/api/v1/banks/[bank]/skills/route";
import * as importRoute from "@/app/api/v1/banks/import/route";
import { LIMITS } from "@/lib/contracts/fields";
import { createMcpServer } from "@/lib/server/http/mcp";
import { getAppDb } from "@/lib/server/runtime/db";
import { CLI_ARGS } from "../cli/cli-process";

const root = resolve(import.meta.dirname, "../../..");

type Handler = (request: Request, ctx: { params: Promise<Record<string, string> | undefined> }) => Promise<Response>;

async function call(
  handler: Handler,
  params: Record<string, string>,
  body: string | Uint8Array<ArrayBuffer> | undefined,
  query = "",
) {
  const request = new Request(`http://127.0.0.1/api/v1/x${query}`, {
    method: body === undefined ? "GET" : "POST",
    body,
    headers: { "content-type": "application/json" },
  });
  const res = await handler(request, { params: Promise.resolve(Object.keys(params).length ? params : undefined) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

async function factCount(): Promise<number> {
  const res = await call(exportRoute.GET, { bank: "demo" }, undefined);
  return res.json.facts.length;
}

let mcp: Client;

beforeAll(async () => {
  mkdirSync(resolve(root, "test/.tmp"), { recursive: true });
  await getAppDb();
  const server = createMcpServer({ getDb: getAppDb });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  mcp = new Client({ name: "text-test", version: "1.0.0" });
  await mcp.connect(clientSide);
});
afterAll(async () => {
  await mcp?.close();
  (await getAppDb()).$client.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${dbFile}${suffix}`, { force: true });
});

describe("text that stays text", () => {
  it("refuses a NUL in a fact with 400 naming the field, and stores nothing (it used to read back cut)", async () => {
    const before = await factCount();
    const res = await call(facts.POST, { bank: "demo" }, JSON.stringify({ facts: [{ text: "before\u0000after" }] }));
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_text");
    expect(Object.keys(res.json.error.fieldErrors)).toEqual(["facts[0].text"]);
    expect(res.json.error.message).toContain("facts[0].text");
    expect(await factCount()).toBe(before);
  });

  it("refuses a lone surrogate and invalid UTF-8 bytes", async () => {
    const lone = await call(facts.POST, { bank: "demo" }, '{"facts":[{"text":"ok","tags":["a\\ud800"]}]}');
    expect(lone.status).toBe(400);
    expect(Object.keys(lone.json.error.fieldErrors)).toEqual(["facts[0].tags[0]"]);
    const bytes = new Uint8Array([...Buffer.from('{"facts":[{"text":"caf'), 0xff, 0xfe, ...Buffer.from('"}]}')]);
    const bad = await call(facts.POST, { bank: "demo" }, bytes);
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("invalid_text");
    expect(bad.json.error.message).toMatch(/UTF-8/);
  });

  it("refuses a NUL in a query parameter and a path id", async () => {
    const q = await call(exportRoute.GET, { bank: "demo\u0000x" }, undefined);
    expect(q.status).toBe(400);
    expect(q.json.error.code).toBe("invalid_text");
  });

  it("refuses a bundle carrying a NUL, over HTTP and in the CLI, and keeps the bank", async () => {
    const exported = (await call(exportRoute.GET, { bank: "demo" }, undefined)).json;
    const poisoned = structuredClone(exported);
    poisoned.facts[2].text = "x\u0000y";
    const res = await call(importRoute.POST, {}, JSON.stringify(poisoned), "?replace=true");
    expect(res.status).toBe(400);
    expect(res.json.error.fieldErrors).toHaveProperty(["facts[2].text"]);
    expect(await factCount()).toBe(exported.facts.length);
  });

  it("refuses it in a server action", async () => {
    const result = await startRunAction({ bankId: "demo", question: "what\u0000now?" });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe("invalid_text");
      expect(result.error.fieldErrors).toHaveProperty("question");
    }
  });

  it("refuses it in an MCP tool with one line of text", async () => {
    const before = await factCount();
    const res = await mcp.callTool({ name: "memory_retain", arguments: { facts: [{ text: "a\u0000b" }] } });
    expect(res.isError).toBe(true);
    const text = (res.content as { text: string }[])[0]?.text ?? "";
    expect(text).toContain("facts[0].text");
    expect(text).not.toContain("\n");
    expect(await factCount()).toBe(before);
  });
});

describe("ids are slugs; unknown fields are refused; one set of limits", () => {
  it("refuses the mental model ids . and .. (they were created and then unreachable)", async () => {
    for (const id of [".", "..", "a/b", "has space"]) {
      const res = await call(mentalModels.POST, { bank: "demo" }, JSON.stringify({ id, name: "dots" }));
      expect(res.status, id).toBe(400);
      expect(res.json.error.fieldErrors).toHaveProperty("id");
    }
  });

  it("refuses a fact in a team scope the bank does not permit (it could never be read back), and stores nothing", async () => {
    const before = await factCount();
    const res = await call(
      facts.POST,
      { bank: "demo" },
      JSON.stringify({ facts: [{ text: "fine" }, { text: "hidden", scope: "team:nope" }] }),
    );
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe("scope_not_permitted");
    expect(Object.keys(res.json.error.fieldErrors)).toEqual(["facts[1].scope"]);
    expect(await factCount()).toBe(before);
  });

  it("refuses an over-long scope and document id", async () => {
    const scope = await call(
      facts.POST,
      { bank: "demo" },
      JSON.stringify({ facts: [{ text: "x", scope: `team:${"x".repeat(100_000)}` }] }),
    );
    expect(scope.status).toBe(400);
    const doc = await call(
      facts.POST,
      { bank: "demo" },
      JSON.stringify({ facts: [{ text: "x", documentId: "d".repeat(5_000_000) }] }),
    );
    expect([400, 413]).toContain(doc.status);
    const fits = await call(
      facts.POST,
      { bank: "demo" },
      JSON.stringify({ facts: [{ text: "x", documentId: "d".repeat(3000) }] }),
    );
    expect(fits.status).toBe(400);
    expect(Object.keys(fits.json.error.fieldErrors)).toEqual(["facts[0].documentId"]);
  });

  it("refuses a misspelt field and names it, instead of dropping it", async () => {
    const res = await call(reflect.POST, { bank: "demo" }, JSON.stringify({ question: "What now?", budjet: "low" }));
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.json.error)).toContain("budjet");
    const skill = await call(
      skills.POST,
      { bank: "demo" },
      JSON.stringify({ name: "x", mission: "m", retrieval: { types: ["facts"], tagz: [] } }),
    );
    expect(skill.status).toBe(400);
    expect(JSON.stringify(skill.json.error)).toContain("tagz");
  });

  it("refuses a model over the content limit the editor has (the API took 60,000 characters)", async () => {
    const over = await call(
      mentalModels.POST,
      { bank: "demo" },
      JSON.stringify({ name: "big one", sourceQuery: "big?", content: "x".repeat(60_000) }),
    );
    expect(over.status).toBe(400);
    expect(over.json.error.fieldErrors.content[0]).toContain("50,000");
    const at = await call(
      mentalModels.POST,
      { bank: "demo" },
      JSON.stringify({ name: "big enough", sourceQuery: "big?", content: "x".repeat(LIMITS.contentChars) }),
    );
    expect(at.status).toBe(201);
  });

  it("MCP refuses an over-long question as one line naming the field, not a zod dump", async () => {
    const res = await mcp.callTool({ name: "memory_reflect", arguments: { question: "q".repeat(4001) } });
    expect(res.isError).toBe(true);
    const text = (res.content as { text: string }[])[0]?.text ?? "";
    expect(text).toMatch(/question: oversize question: keep the question under 4,000 characters/);
    expect(text).not.toContain("\n");
    expect(text).not.toContain('"code"');
  });

  it("the CLI prints one line and exits 2 for an over-long question and a bundle that is not UTF-8", () => {
    const dir = resolve(root, "test/.tmp", `cli-text-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      const cli = (...args: string[]) =>
        spawnSync(process.execPath, [...CLI_ARGS, ...args], {
          cwd: root,
          env: { ...process.env, DATABASE_URL: `file:${join(dir, "cli.db")}`, REFLECT_LLM: "offline" },
          encoding: "utf8",
          timeout: 60_000,
        });
      const long = cli("reflect", "--bank", "demo", "q".repeat(4001));
      expect(long.status).toBe(2);
      expect(long.stderr.trim().split("\n")).toHaveLength(1);
      expect(long.stderr).toContain("keep the question under 4,000 characters");
      const file = join(dir, "latin1.json");
      writeFileSync(
        file,
        Buffer.from([...Buffer.from('{"version":1,"bank":{"id":"x","name":"caf'), 0xe9, 0x22, 0x7d, 0x7d]),
      );
      const bad = cli("import", file);
      expect(bad.status).toBe(2);
      expect(bad.stderr.trim().split("\n")).toHaveLength(1);
      expect(bad.stderr).toContain("not valid UTF-8");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
