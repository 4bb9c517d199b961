/** `cli runs export`: a stored run written out as an OTLP trace or as its raw event log. */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OtlpTrace } from "@/lib/timeline/otlp";

const root = resolve(import.meta.dirname, "../../..");
const dir = resolve(root, "test/.tmp", `otlp-cli-${process.pid}-${Date.now()}`);
const dbUrl = `file:${join(dir, "cli.db")}`;

function cli(...args: string[]) {
  const res = spawnSync(process.execPath, [join(root, "node_modules/tsx/dist/cli.mjs"), "lib/cli/main.ts", ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: dbUrl, REFLECT_LLM: "offline", OTEL_EXPORTER_OTLP_ENDPOINT: "" },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

let runId = "";

beforeAll(() => {
  mkdirSync(dir, { recursive: true });
  const out = cli("reflect", "--bank", "demo", "--json", "What did we decide about the launch date?");
  expect(out.code, out.stderr).toBe(0);
  runId = (JSON.parse(out.stdout) as { id: string }).id;
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Each case spawns the CLI (tsx start-up dominates): allow for a loaded machine.
describe("cli runs export", { timeout: 60_000 }, () => {
  it("prints the run as an OTLP trace with one invoke_agent root and chat spans beneath it", () => {
    const out = cli("runs", "export", runId, "--format", "otlp");
    expect(out.code, out.stderr).toBe(0);
    const spans = (JSON.parse(out.stdout) as OtlpTrace).resourceSpans[0]!.scopeSpans[0]!.spans;
    const roots = spans.filter((s) => !s.parentSpanId);
    expect(roots.map((s) => s.name)).toEqual(["invoke_agent reflect"]);
    const chats = spans.filter((s) => s.name.startsWith("chat "));
    expect(chats.length).toBeGreaterThan(0);
    for (const c of chats) expect(c.parentSpanId).toBe(roots[0]!.spanId);
  });

  it("writes the raw run and events as JSON to a file with --out", () => {
    const file = join(dir, "run.json");
    const out = cli("runs", "export", runId, "--out", file);
    expect(out.code, out.stderr).toBe(0);
    const body = JSON.parse(readFileSync(file, "utf8")) as { run: { id: string }; events: { type: string }[] };
    expect(body.run.id).toBe(runId);
    expect(body.events[0]!.type).toBe("run.started");
    expect(body.events.at(-1)!.type).toBe("run.finished");
  });

  it("rejects an unknown run or format with exit code 2", () => {
    const missing = cli("runs", "export", "run_missing");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/unknown run "run_missing"/);
    const bad = cli("runs", "export", runId, "--format", "xml");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--format must be otlp or json/);
  });
});
