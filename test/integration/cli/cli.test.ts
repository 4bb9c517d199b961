/**
 * The command line: `runCli` in-process on a real libSQL file with the offline model; a real
 * process where the process matters (its exit code and streams, its own DATABASE_URL).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "@/db/client";
import { getRunEvents, listRuns } from "@/db/queries/runs";
import { ReflectJson } from "@/lib/contracts/runs";
import { CLI_ARGS, cliInProcess, cliRunner, root } from "./cli-process";

const dir = resolve(root, "test/.tmp", `cli-${process.pid}-${Date.now()}`);
const dbUrl = `file:${join(dir, "cli.db")}`;

const cli = cliInProcess(dbUrl);
const cliProcess = cliRunner(dbUrl);

beforeAll(() => mkdirSync(dir, { recursive: true }));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("cli reflect", () => {
  it("prints one JSON object for a done run with valid citations, and the run is in the store", async () => {
    const out = await cli(
      "reflect",
      "--bank",
      "demo",
      "--skill",
      "decisions",
      "--json",
      "What did we decide about the launch date?",
    );
    expect(out.code).toBe(0);
    const json = ReflectJson.parse(JSON.parse(out.stdout));
    expect(json.status).toBe("done");
    expect(json.citations.memory_ids.length + json.citations.observation_ids.length).toBeGreaterThan(0);
    expect(json.dropped).toEqual([]);
    const db = await openDb(dbUrl);
    try {
      const { runs } = await listRuns(db, { bankId: "demo" });
      expect(runs.map((r) => r.id)).toContain(json.id);
      expect((await getRunEvents(db, json.id)).length).toBe(json.events.length);
    } finally {
      db.$client.close();
    }
  });

  it("prints the answer, cited text and a per-iteration trace without --json", async () => {
    const out = await cli("reflect", "--bank", "demo", "--budget", "low", "What is blocking the SSO rollout?");
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^Run run_\w+: done/m);
    expect(out.stdout).toContain("Citations:");
    expect(out.stdout).toMatch(/#0 forced search_mental_models/);
  });

  it.each([
    [["reflect", "--bank", "demo", "--budget", "huge", "q?"], /--budget/],
    [["reflect", "--bank", "nope", "q?"], /unknown bank "nope"/],
    [["reflect", "--bank", "demo", "--skill", "poetry", "q?"], /unknown skill "poetry"/],
    [["reflect", "--bank", "demo", "   "], /question must not be empty/],
    [["reflect", "--bank", "demo", "--scope", "team:", "q?"], /--scope/],
    [["reflect", "--bank", "demo", "--frobnicate", "q?"], /frobnicate/],
    [["reflect", "q?"], /--bank is required/],
  ])("rejects bad input %j with a one-line error and a non-zero exit", async (args, message) => {
    const out = await cli(...args);
    expect(out.code).not.toBe(0);
    expect(out.stderr.trim().split("\n")).toHaveLength(1);
    expect(out.stderr).toMatch(message);
  });
});

describe("cli import / export", () => {
  it("round-trips: export → import into a fresh database → export is identical", async () => {
    const first = await cli("export", "--bank", "demo");
    expect(first.code).toBe(0);
    const file = join(dir, "demo.json");
    writeFileSync(file, first.stdout);
    const other = `file:${join(dir, "other.db")}`;
    const env = { ...process.env, DATABASE_URL: other };
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [...CLI_ARGS, ...args], {
        cwd: root,
        env,
        encoding: "utf8",
      });
    // The fresh database seeds the demo bank on first use, so import with --replace.
    const imported = run("import", file, "--replace");
    expect(imported.status).toBe(0);
    expect(imported.stdout).toMatch(/imported bank demo: 185 facts, .* skills, 1 suite\n/);
    const second = run("export", "--bank", "demo");
    expect(second.stdout).toBe(first.stdout);
  });

  it("a bad bundle fails naming the JSON path and changes nothing", async () => {
    const before = (await cli("export", "--bank", "demo")).stdout;
    const bundle = JSON.parse(readFileSync(join(root, "db/demo/demo-bank.json"), "utf8"));
    bundle.facts[3].scope = "team:";
    bundle.facts[0].text = "This edit must not land.";
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify(bundle));
    const out = await cli("import", file, "--replace");
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/facts\[3\]\.scope/);
    expect((await cli("export", "--bank", "demo")).stdout).toBe(before);
  });

  it("an unreadable file is a one-line error", async () => {
    const out = await cli("import", join(dir, "missing.json"));
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/cannot read/);
  });
});

describe("cli help", () => {
  it.each([["--help"], ["-h"], ["help"]])("%s prints every command and exits 0", async (flag) => {
    const out = await cli(flag);
    expect(out.code).toBe(0);
    expect(out.stderr).toBe("");
    for (const command of ["import", "export", "reflect", "runs", "mcp", "embed"]) {
      expect(out.stdout).toMatch(new RegExp(`^  ${command} `, "m"));
    }
  });

  it.each([
    [
      ["reflect", "--help"],
      ["--bank <id>", "--budget low|mid|high", "(default: synthesize)", "--json"],
    ],
    [
      ["help", "reflect"],
      ["--anchor-every <N>", "examples:"],
    ],
    [["import", "-h"], ["--replace"]],
    [
      ["export", "--help"],
      ["--out <file>", "(default: stdout)"],
    ],
    [
      ["runs", "export", "--help"],
      ["--format json|otlp", "(default: json)"],
    ],
    [["mcp", "--help"], ["over stdio"]],
    [
      ["embed", "-h"],
      ["REFLECT_EMBEDDINGS=openai", "(default: every bank)"],
    ],
  ])("%j prints the command's usage, flags, defaults and examples to stdout and exits 0", async (args, expected) => {
    const out = await cli(...args);
    expect(out.code).toBe(0);
    expect(out.stderr).toBe("");
    expect(out.stdout).toMatch(/^usage: cli /);
    expect(out.stdout).toContain("examples:");
    for (const text of expected) expect(out.stdout).toContain(text);
  });

  it("as a process: --help on stdout with exit 0, bad input as one line on stderr with exit 2", () => {
    const help = cliProcess("--help");
    expect(help.code).toBe(0);
    expect(help.stderr).toBe("");
    expect(help.stdout).toMatch(/^ {2}reflect /m);
    const bad = cliProcess("reflect", "--bank", "demo", "--budget", "huge", "q?");
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe("");
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).toMatch(/--budget/);
  });

  it("an unknown command is a one-line error pointing at --help, exit 2", async () => {
    const out = await cli("frobnicate");
    expect(out.code).toBe(2);
    expect(out.stdout).toBe("");
    expect(out.stderr.trim()).toBe('error: unknown command "frobnicate"; run `cli --help` for the list');
  });
});

describe("cli with a database that cannot be opened", () => {
  it.each([
    ["a folder", (d: string) => d, "it is a folder, not a database file"],
    ["a path under a file", (d: string) => join(d, "file.txt", "x.db"), "is a file, not a folder"],
  ])("DATABASE_URL naming %s: one line naming the path and the cause, exit 2", (_what, pathOf, cause) => {
    const bad = join(dir, "bad-db");
    mkdirSync(bad, { recursive: true });
    writeFileSync(join(bad, "file.txt"), "not a folder");
    const path = pathOf(bad);
    const out = spawnSync(process.execPath, [...CLI_ARGS, "export", "--bank", "demo"], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: `file:${path}` },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(out.status).toBe(2);
    const lines = out.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`error: cannot open the database ${path} (DATABASE_URL=file:${path}): `);
    expect(lines[0]).toContain(cause);
  });
});
