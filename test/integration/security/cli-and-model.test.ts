/**
 * Issue #28 items 5 and 11 through real processes: the CLI never hands stored text or a model
 * server's words to the terminal raw (escape sequences are shown escaped, JSON stays exact), and a
 * model server that sends headers and then one byte a second is cut off by the per-call timeout.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIModel } from "@/lib/llm/openai-model";
import { ModelCallError } from "@/lib/reflect/errors";
import { cliAsync, cliRunner, root } from "../cli/cli-process";

const dir = resolve(root, "test/.tmp", `cli-hostile-${process.pid}-${Date.now()}`);
const dbUrl = `file:${join(dir, "cli.db")}`;
const cli = cliRunner(dbUrl, 90_000);

/** Set the title, clear the screen, go red: what a planted fact tried. */
const HOSTILE = "\u001b]0;pwned\u0007\u001b[2J\u001b[31m\u009b1m";
// biome-ignore lint/suspicious/noControlCharactersInRegex: raw control characters are what must not reach the terminal
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

let server: http.Server;
let url = "";
let mode: "hostile-error" | "drip" = "hostile-error";
const open = new Set<http.ServerResponse>();

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  server = http.createServer((req, res) => {
    req.resume();
    if (mode === "hostile-error") {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `bad model ${HOSTILE}name`, type: "invalid_request_error" } }));
      return;
    }
    // Headers at once, then one byte a second for as long as the client listens.
    open.add(res);
    res.writeHead(200, { "content-type": "application/json" });
    res.write(" ");
    const timer = setInterval(() => res.write(" "), 1000);
    res.on("close", () => {
      clearInterval(timer);
      open.delete(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  for (const res of open) res.destroy();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe("item 11: the CLI escapes control characters in human output", () => {
  it("reflect: a stored fact with escape sequences is printed escaped; --json keeps it exact", () => {
    const bundle = {
      version: 1,
      bank: { id: "hostile", name: "Hostile" },
      facts: [
        {
          id: "f1",
          text: `The quokka budget memo says ${HOSTILE} the budget is 42 dollars.`,
          kind: "world",
          scope: "personal",
          recordedAt: "2025-01-01T00:00:00Z",
        },
      ],
      skills: [{ id: "sk", name: "recap", mission: "Answer.", retrieval: { types: ["episodic"] } }],
    };
    writeFileSync(join(dir, "hostile.json"), JSON.stringify(bundle));
    expect(cli("import", join(dir, "hostile.json")).code).toBe(0);

    const human = cli("reflect", "--bank", "hostile", "--budget", "low", "What does the quokka budget memo say?");
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("quokka budget memo");
    expect(human.stdout).not.toMatch(RAW_CONTROL);
    expect(human.stdout).toContain("\\x1b]0;pwned\\x07");

    const json = cli(
      "reflect",
      "--bank",
      "hostile",
      "--budget",
      "low",
      "--json",
      "What does the quokka budget memo say?",
    );
    expect(json.code).toBe(0);
    expect(JSON.stringify(JSON.parse(json.stdout))).toContain(JSON.stringify(HOSTILE).slice(1, -1));
  });

  it("model check: a model server's error with escape sequences is printed escaped", async () => {
    mode = "hostile-error";
    const out = await cliAsync(
      { REFLECT_LLM: "openai", OPENAI_API_KEY: "k", OPENAI_BASE_URL: url, REFLECT_MODEL: "m" },
      "model",
      "check",
    );
    expect(`${out.stdout}${out.stderr}`).toContain("bad model");
    expect(out.stdout).not.toMatch(RAW_CONTROL);
    expect(out.stderr).not.toMatch(RAW_CONTROL);
  }, 60_000);
});

describe("item 5: the per-call timeout covers the whole response, body included", () => {
  it("model check against headers-then-a-byte-a-second ends in about the timeout, not minutes", async () => {
    mode = "drip";
    const started = Date.now();
    const out = await cliAsync(
      {
        REFLECT_LLM: "openai",
        OPENAI_API_KEY: "k",
        OPENAI_BASE_URL: url,
        REFLECT_MODEL: "m",
        REFLECT_LLM_TIMEOUT_MS: "3000",
      },
      "model",
      "check",
      "--json",
    );
    const seconds = (Date.now() - started) / 1000;
    expect(out.code).not.toBe(0);
    expect(out.stdout).toMatch(/timed out|did not answer/i);
    // One probe times out (3 s, no retries) and the rest are not sent: well under a minute.
    expect(seconds).toBeLessThan(25);
  }, 120_000);

  it("a run's model call (the client every run uses) against headers-then-a-byte-a-second ends at its timeout too", async () => {
    mode = "drip";
    const model = createOpenAIModel({
      kind: "openai",
      apiKey: "k",
      baseURL: url,
      model: "m",
      forcedToolChoice: "named",
      timeoutMs: 2_000,
      maxRetries: 0,
    });
    const started = Date.now();
    const outcome = await Promise.race([
      model.complete({ messages: [{ role: "user", content: "q" }], tools: [], toolChoice: "auto" }).then(
        () => "answered",
        (e: unknown) => e,
      ),
      new Promise((r) => setTimeout(() => r("still reading the body after 15 s"), 15_000)),
    ]);
    expect(outcome).toBeInstanceOf(ModelCallError);
    expect((outcome as Error).message).toMatch(/timed out after 2000 ms/);
    expect((Date.now() - started) / 1000).toBeLessThan(10);
  }, 60_000);
});
