/**
 * `cli model check`: `runCli` in-process (one case as a real process, for its exit code), the real
 * `openai` SDK against the loopback fake server answering like four kinds of servers, and the
 * offline model.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelCheckReport } from "@/lib/contracts/model-check";
import {
  type FakeOpenAI,
  type ServerProfile,
  serverProfile,
  startFakeOpenAI,
} from "@/test/fixtures/fake-openai-server";
import { cliAsync, cliInProcessWith } from "./cli-process";

const KEY = "local-secret-key-7f3a9c";
const cli = cliInProcessWith;

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());

const openai = () => ({
  REFLECT_LLM: "openai",
  OPENAI_API_KEY: KEY,
  OPENAI_BASE_URL: fake.url,
  REFLECT_MODEL: "probe-model",
});

async function check(profile: ServerProfile, run = cli) {
  fake.setScript(serverProfile(profile));
  const out = await run(openai(), "model", "check", "--json");
  expect(`${out.stdout}${out.stderr}`).not.toContain(KEY);
  return { ...out, report: ModelCheckReport.parse(JSON.parse(out.stdout)) };
}

const probe = (r: ModelCheckReport, name: string) => r.probes.find((p) => p.probe === name);

describe("cli model check", { timeout: 90_000 }, () => {
  it("(a) a fully compatible server: structured calls under every choice, named recommended, reasoning seen, exit 0", async () => {
    const { code, report } = await check("compatible");
    expect(code).toBe(0);
    expect(report.toolCalls).toBe("structured");
    expect(report.recommendedForcedToolChoice).toBe("named");
    expect(report.probes.map((p) => [p.probe, p.ok, p.call])).toEqual([
      ["plain_chat", true, null],
      ["tools_auto", true, "structured"],
      ["named_choice", true, "structured"],
      ["required_choice", true, "structured"],
      ["no_choice", true, "structured"],
    ]);
    expect(report.reasoning).toEqual(["reasoning_content"]);
    for (const p of report.probes) expect(p.latencyMs).toBeGreaterThanOrEqual(0);
    expect(report.provider).toEqual({ kind: "openai", model: "probe-model", baseUrlHost: new URL(fake.url).host });
  });

  it("(b) a server that rejects a named tool choice: the rejection is shown and required recommended, exit 0", async () => {
    const { code, report } = await check("rejects_named");
    expect(code).toBe(0);
    expect(probe(report, "named_choice")).toMatchObject({ ok: false, call: null });
    expect(probe(report, "named_choice")?.detail).toMatch(/HTTP 400.*tool_choice/);
    expect(probe(report, "required_choice")).toMatchObject({ ok: true, call: "structured" });
    expect(report.recommendedForcedToolChoice).toBe("required");
    expect(report.toolCalls).toBe("structured");
  });

  it("(c) no tool parsing but Hermes-style text: tools work as text, exit 0", async () => {
    const { code, report } = await check("hermes_text");
    expect(code).toBe(0);
    expect(report.toolCalls).toBe("text");
    expect(report.textForms).toEqual(["hermes"]);
    expect(probe(report, "tools_auto")).toMatchObject({ ok: true, call: "text", textFormat: "hermes" });
    expect(report.recommendedForcedToolChoice).toBe("named");
  });

  it("(d) no tool support at all: every tool probe fails, no recommendation, exit 1 (as a process)", async () => {
    const { code, report } = await check("no_tools", cliAsync);
    expect(code).toBe(1);
    expect(report.toolCalls).toBe("none");
    expect(report.recommendedForcedToolChoice).toBeNull();
    expect(report.probes.filter((p) => p.probe !== "plain_chat").every((p) => !p.ok && p.call === "none")).toBe(true);
    expect(report.summary).toMatch(/cannot call tools/);
  });

  it("prints a table with the recommendation, and never the key even when the server echoes it", async () => {
    fake.setScript(serverProfile("compatible"));
    const table = await cli(openai(), "model", "check");
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^Model check: probe-model at 127\.0\.0\.1:\d+/);
    expect(table.stdout).toMatch(/named tool choice\s+ok\s+\d+ ms/);
    expect(table.stdout).toContain("REFLECT_FORCED_TOOL_CHOICE=named (the default: leave it unset)");

    fake.setScript(() => ({
      status: 401,
      body: { error: { message: `Invalid header Authorization: Bearer ${KEY}`, type: "invalid_request_error" } },
    }));
    const refused = await cli(openai(), "model", "check");
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/HTTP 401/);
    expect(refused.stdout).toContain("[redacted]");
    expect(`${refused.stdout}${refused.stderr}`).not.toContain(KEY);
    expect(refused.stdout).toMatch(/did not answer a plain chat request/);
  });

  it("with the offline model: trivially compatible, exit 0", async () => {
    const out = await cli({ REFLECT_LLM: "offline" }, "model", "check", "--json");
    expect(out.code).toBe(0);
    const report = ModelCheckReport.parse(JSON.parse(out.stdout));
    expect(report.provider.kind).toBe("offline");
    expect(report.toolCalls).toBe("structured");
  });

  it.each([
    [["model"], /subcommand/],
    [["model", "check", "--frobnicate"], /frobnicate/],
  ])("rejects bad input %j with exit 2", async (args, message) => {
    const out = await cli({ REFLECT_LLM: "offline" }, ...args);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(message);
  });

  it("a bad model setting is bad input: exit 2 naming the variable", async () => {
    const out = await cli({ ...openai(), REFLECT_FORCED_TOOL_CHOICE: "sometimes" }, "model", "check");
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/REFLECT_FORCED_TOOL_CHOICE/);
    expect(out.stderr).not.toContain(KEY);
  });
});
