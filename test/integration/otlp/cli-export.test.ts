/**
 * `cli runs export`: a stored run written out as an OTLP trace or as its raw event log; and
 * `cli reflect` with a collector configured: the run's trace arrives before the process exits.
 * `runs export` runs in-process (`runCli`); the pushes run the built CLI as a real process.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OtlpTrace } from "@/lib/timeline/otlp";
import { CLI_ARGS, cliInProcessWith } from "../cli/cli-process";
import { startCollector } from "./collector";

const root = resolve(import.meta.dirname, "../../..");
const dir = resolve(root, "test/.tmp", `otlp-cli-${process.pid}-${Date.now()}`);
const dbUrl = `file:${join(dir, "cli.db")}`;

function cli(...args: string[]) {
  return cliInProcessWith({ DATABASE_URL: dbUrl, REFLECT_LLM: "offline", OTEL_EXPORTER_OTLP_ENDPOINT: "" }, ...args);
}

let runId = "";

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  const out = await cli("reflect", "--bank", "demo", "--json", "What did we decide about the launch date?");
  expect(out.code, out.stderr).toBe(0);
  runId = (JSON.parse(out.stdout) as { id: string }).id;
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("cli runs export", () => {
  it("prints the run as an OTLP trace with one invoke_agent root and chat spans beneath it", async () => {
    const out = await cli("runs", "export", runId, "--format", "otlp");
    expect(out.code, out.stderr).toBe(0);
    const spans = (JSON.parse(out.stdout) as OtlpTrace).resourceSpans[0]!.scopeSpans[0]!.spans;
    const roots = spans.filter((s) => !s.parentSpanId);
    expect(roots.map((s) => s.name)).toEqual(["invoke_agent reflect"]);
    const chats = spans.filter((s) => s.name.startsWith("chat "));
    expect(chats.length).toBeGreaterThan(0);
    for (const c of chats) expect(c.parentSpanId).toBe(roots[0]!.spanId);
  });

  it("writes the raw run and events as JSON to a file with --out", async () => {
    const file = join(dir, "run.json");
    const out = await cli("runs", "export", runId, "--out", file);
    expect(out.code, out.stderr).toBe(0);
    const body = JSON.parse(readFileSync(file, "utf8")) as { run: { id: string }; events: { type: string }[] };
    expect(body.run.id).toBe(runId);
    expect(body.events[0]!.type).toBe("run.started");
    expect(body.events.at(-1)!.type).toBe("run.finished");
  });

  it("rejects an unknown run or format with exit code 2", async () => {
    const missing = await cli("runs", "export", "run_missing");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/unknown run "run_missing"/);
    const bad = await cli("runs", "export", runId, "--format", "xml");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--format must be otlp or json/);
  });
});

/** The CLI as a child process that does not block this one (the collector answers from here). */
function cliAsync(env: Record<string, string>, ...args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string; exitedAt: number }>((resolve) => {
    const child = spawn(process.execPath, [...CLI_ARGS, ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: dbUrl, REFLECT_LLM: "offline", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => {
      stdout += c;
    });
    child.stderr.on("data", (c) => {
      stderr += c;
    });
    child.on("close", (code) => resolve({ code, stdout, stderr, exitedAt: Date.now() }));
  });
}

describe("cli reflect with a collector configured", { timeout: 60_000 }, () => {
  it("pushes the finished run as protobuf before the process exits, retrying a 503", async () => {
    const collector = await startCollector({ protobufOnly: true });
    try {
      collector.replies.push({ status: 503, headers: { "retry-after": "1" } });
      const out = await cliAsync(
        { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
        "reflect",
        "--bank",
        "demo",
        "--json",
        "What is blocking the SSO rollout?",
      );
      expect(out.code, out.stderr).toBe(0);
      const { id } = JSON.parse(out.stdout) as { id: string };
      expect(collector.refused.map((r) => r.status)).toEqual([503]);
      expect(collector.received).toHaveLength(1);
      const hit = collector.received[0]!;
      expect(hit.headers["content-type"]).toBe("application/x-protobuf");
      expect(hit.at).toBeLessThanOrEqual(out.exitedAt);
      const root = hit.trace.resourceSpans[0]!.scopeSpans[0]!.spans.find((s) => !s.parentSpanId)!;
      expect(root.attributes).toContainEqual({ key: "reflect.run.id", value: { stringValue: id } });
      // The pushed trace is the one `runs export --format otlp` writes.
      const exported = await cli("runs", "export", id, "--format", "otlp");
      expect(hit.trace).toEqual(JSON.parse(exported.stdout));
    } finally {
      await collector.close();
    }
  });

  it("still exits 0 with the answer when the collector refuses, saying so on stderr", async () => {
    const collector = await startCollector({ protobufOnly: true });
    try {
      const out = await cliAsync(
        { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
        "reflect",
        "--bank",
        "demo",
        "What did we decide about the launch date?",
      );
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toMatch(/^Run run_\w+: done/m);
      expect(out.stderr).toMatch(/OTLP export of run run_\w+ failed: .*HTTP 415/);
    } finally {
      await collector.close();
    }
  });
});
