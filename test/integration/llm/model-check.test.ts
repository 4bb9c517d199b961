/** `checkModel` in process over the real SDK: the cases the CLI tests leave out. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkModel, formatModelCheck } from "@/lib/llm";
import { type FakeOpenAI, serverProfile, startFakeOpenAI } from "@/test/fixtures/fake-openai-server";

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());

const KEY = "plain-key-without-prefix-123";
const check = () =>
  checkModel({ kind: "openai", apiKey: KEY, baseURL: fake.url, model: "m", timeoutMs: 5000, maxRetries: 0 });

describe("checkModel", () => {
  it("vLLM without --enable-auto-tool-choice: auto rejected with its 400, named still works, but runs would fail: exit 1", async () => {
    fake.setScript((body) =>
      body.tool_choice === "auto"
        ? {
            status: 400,
            body: {
              object: "error",
              message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
            },
          }
        : serverProfile("compatible")(body, 0),
    );
    const report = await check();
    expect(report.probes.find((p) => p.probe === "tools_auto")).toMatchObject({ ok: false });
    expect(report.probes.find((p) => p.probe === "tools_auto")?.detail).toMatch(
      /HTTP 400: "auto" tool choice requires/,
    );
    expect(report.recommendedForcedToolChoice).toBe("named");
    // The engine's free turns go out under "auto": every run would fail at its first one.
    expect(report.exitCode).toBe(1);
    expect(report.summary).toMatch(/runs would fail/);
    expect(report.summary).toMatch(/--enable-auto-tool-choice/);
  });

  it("a server that does not answer: later probes are not sent, exit 1, the key in no field", async () => {
    fake.setScript(() => ({ status: 403, body: { error: { message: `key ${KEY} is not allowed` } } }));
    const report = await check();
    expect(report.exitCode).toBe(1);
    expect(report.probes.slice(1).every((p) => p.latencyMs === null && p.detail.startsWith("not sent"))).toBe(true);
    expect(fake.requests.filter((r) => r.path.endsWith("/chat/completions")).length).toBeGreaterThan(0);
    expect(JSON.stringify(report)).not.toContain(KEY);
    expect(formatModelCheck(report)).not.toContain(KEY);
    expect(formatModelCheck(report)).toContain("HTTP 403");
  });

  it("a server that accepts a request and never answers: the check stops at the first time-out and says so", async () => {
    const never = new Promise(() => {});
    // Plain chat answers; every tool request hangs (it used to take four time-outs, then say "cannot call tools").
    fake.setScript((body) => (body.tools ? { content: "x", waitFor: never } : { content: "ready" }));
    fake.requests.length = 0;
    const report = await checkModel({
      kind: "openai",
      apiKey: KEY,
      baseURL: fake.url,
      model: "m",
      timeoutMs: 800,
      maxRetries: 0,
    });
    expect(fake.requests.filter((r) => r.path.endsWith("/chat/completions"))).toHaveLength(2);
    expect(report.probes.map((p) => p.detail)).toEqual([
      "answered",
      "timed out after 800 ms",
      ...Array(3).fill("not sent: the server did not answer the tools, tool_choice auto request"),
    ]);
    expect(report.exitCode).toBe(1);
    expect(report.summary).toMatch(
      /^The server accepted the connection but did not answer the tools, tool_choice auto request within 0\.8 s/,
    );
    expect(report.summary).not.toMatch(/cannot call tools/);
    expect(formatModelCheck(report)).toContain("did not answer the tools, tool_choice auto request within 0.8 s");

    // Silent from the first request: one request, and the summary says so.
    fake.setScript(() => ({ content: "x", waitFor: never }));
    fake.requests.length = 0;
    const silent = await checkModel({
      kind: "openai",
      apiKey: KEY,
      baseURL: fake.url,
      model: "m",
      timeoutMs: 800,
      maxRetries: 0,
    });
    expect(fake.requests.filter((r) => r.path.endsWith("/chat/completions"))).toHaveLength(1);
    expect(silent.summary).toMatch(/did not answer the plain chat request within 0\.8 s/);
  });

  it("a 200 HTML page (a base URL without /v1) is named as such with the base URL to check, not 'no choices'", async () => {
    fake.setScript(() => ({
      rawBody: { contentType: "text/html", text: "<!doctype html><html><body>Welcome</body></html>" },
    }));
    const report = await check();
    expect(report.probes[0]?.detail).toBe(
      "answered with an HTML page, not the chat-completions format: check OPENAI_BASE_URL (an OpenAI-compatible server's usually ends in /v1)",
    );
    expect(report.summary).toMatch(
      /^The server answered with an HTML page, not the chat-completions format: check OPENAI_BASE_URL/,
    );
    expect(report.exitCode).toBe(1);
    fake.setScript(() => ({ rawBody: { contentType: "application/json", text: '{"status":"ok"}' } }));
    expect((await check()).probes[0]?.detail).toMatch(
      /^answered JSON without `choices`, not the chat-completions format/,
    );
  });

  it("a server that echoes the key as a tool name: the key in no field", async () => {
    fake.setScript((body) =>
      body.tool_choice === "required"
        ? { content: `<tool_call>{"name": "lookup ${KEY}", "arguments": {}}</tool_call>` }
        : body.tools
          ? { tool_calls: [{ name: `lookup Bearer ${KEY}`, arguments: {} }] }
          : { content: "ready" },
    );
    const report = await check();
    expect(report.probes.find((p) => p.probe === "named_choice")?.detail).toBe("called lookup Bearer [redacted]");
    expect(report.probes.find((p) => p.probe === "required_choice")?.detail).toMatch(/\[redacted\] as text \(hermes\)/);
    expect(JSON.stringify(report)).not.toContain(KEY);
    expect(formatModelCheck(report)).not.toContain(KEY);
  });

  it("reasoning in a <think> block and Mistral text calls are reported by source and form", async () => {
    fake.setScript((body) =>
      body.tools
        ? { content: '<think>I should look it up.</think>[TOOL_CALLS]lookup[ARGS]{"query": "ping"}' }
        : { content: "ready" },
    );
    const report = await check();
    expect(report.toolCalls).toBe("text");
    expect(report.textForms).toEqual(["mistral"]);
    expect(report.reasoning).toEqual(["think_block"]);
  });
});
