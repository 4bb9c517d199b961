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
