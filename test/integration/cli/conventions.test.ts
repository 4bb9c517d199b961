/**
 * The CLI's conventions (clig.dev; docs/cli.md): `--version` / `-V` / `version`, `-` for stdin and
 * stdout wherever a file is taken, help that names every MCP tool the server serves. In-process
 * through `runCli` with an injected stdin; one real process pipes bundles through `node dist/cli.mjs`.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "@/db/client";
import { getRun } from "@/db/queries/runs";
import { getSuite } from "@/db/queries/suites";
import { runCli } from "@/lib/cli/main";
import { ReflectJson } from "@/lib/contracts/runs";
import { createMcpServer } from "@/lib/server/http/mcp";
import { CLI_ARGS, cliInProcess, cliInProcessStdin, root } from "./cli-process";

const dir = resolve(root, "test/.tmp", `cli-conventions-${process.pid}-${Date.now()}`);
const dbUrl = `file:${join(dir, "cli.db")}`;
const cli = cliInProcess(dbUrl);
const cliStdin = cliInProcessStdin(dbUrl);
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name: string; version: string };

beforeAll(() => mkdirSync(dir, { recursive: true }));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function withDb<T>(fn: (db: Awaited<ReturnType<typeof openDb>>) => Promise<T>): Promise<T> {
  const db = await openDb(dbUrl);
  try {
    return await fn(db);
  } finally {
    db.$client.close();
  }
}

const runCount = () =>
  withDb(async (db) => Number((await db.$client.execute("SELECT count(*) AS n FROM runs")).rows[0]!.n));

describe("cli --version", () => {
  it.each([["--version"], ["-V"], ["version"]])("%s prints the package version, one line, exit 0", async (flag) => {
    const out = await cli(flag);
    expect(out.code).toBe(0);
    expect(out.stderr).toBe("");
    expect(out.stdout).toBe(`${pkg.version}\n`);
  });

  it.each([["--version"], ["-V"], ["version"]])("%s --json prints {name, version} as one JSON line", async (flag) => {
    const out = await cli(flag, "--json");
    expect(out.code).toBe(0);
    expect(out.stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(out.stdout)).toEqual({ name: pkg.name, version: pkg.version });
  });

  it.each([
    ["version", "extra"],
    ["-V", "--frobnicate"],
    ["version", "--json", "--json", "x"],
  ])("%s %s is a one-line usage error, exit 2", async (...args) => {
    const out = await cli(...args);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe("");
    expect(out.stderr.trim().split("\n")).toHaveLength(1);
    expect(out.stderr).toContain("usage: version [--json]");
  });

  it("the overview and `help version` name it", async () => {
    expect((await cli("--help")).stdout).toMatch(/^ {2}version /m);
    expect((await cli("--help")).stdout).toContain("--version");
    expect((await cli("help", "version")).stdout).toContain("usage: cli version [--json]");
  });
});

describe("- is stdout", () => {
  it("export --out - writes the bundle to stdout, nothing else, and no file named -", async () => {
    const plain = await cli("export", "--bank", "demo");
    const dash = await cli("export", "--bank", "demo", "--out", "-");
    expect(dash.code).toBe(0);
    expect(dash.stderr).toBe("");
    expect(dash.stdout).toBe(plain.stdout);
    expect(JSON.parse(dash.stdout).bank.id).toBe("demo");
    expect(existsSync(join(process.cwd(), "-"))).toBe(false);
    expect(existsSync(join(root, "-"))).toBe(false);
  });

  it("runs export <id> --out - writes the run to stdout", async () => {
    const run = ReflectJson.parse(
      JSON.parse((await cli("reflect", "--bank", "demo", "--json", "Who owns SSO?")).stdout),
    );
    const out = await cli("runs", "export", run.id, "--out", "-");
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout).run.id).toBe(run.id);
    expect(existsSync(join(process.cwd(), "-"))).toBe(false);
  });

  it("a flag given twice is refused, not the last one taken; an empty --out names no file", async () => {
    const run = ReflectJson.parse(
      JSON.parse((await cli("reflect", "--bank", "demo", "--json", "Who owns SSO?")).stdout),
    );
    const file = join(dir, "twice.json");
    for (const argv of [
      ["export", "--bank", "demo", "--out", "-", "--out", file],
      ["runs", "export", run.id, "--out", "-", "--out", file],
      ["reflect", "--bank", "demo", "--bank", "demo", "Who owns SSO?"],
      ["experiment", "run", "--bank", "demo", "--suite", "a", "--suite", "b"],
    ]) {
      const out = await cli(...argv);
      expect(out.code, argv.join(" ")).toBe(2);
      expect(out.stderr).toMatch(/--(out|bank|suite) was given twice; give it once/);
      expect(out.stdout).toBe("");
    }
    expect(existsSync(file)).toBe(false);
    for (const argv of [
      ["export", "--bank", "demo", "--out", ""],
      ["runs", "export", run.id, "--out", ""],
    ]) {
      const out = await cli(...argv);
      expect(out.code, argv.join(" ")).toBe(2);
      expect(out.stderr).toMatch(/--out needs a file name, or - for stdout/);
      expect(out.stdout).toBe("");
    }
  });
});

describe("- is stdin", () => {
  it("import - reads one JSON document (what export prints) and imports it", async () => {
    const bundle = JSON.parse((await cli("export", "--bank", "demo")).stdout);
    bundle.bank.id = "from-stdin";
    bundle.bank.name = "From stdin";
    const out = await cliStdin(JSON.stringify(bundle, null, 2), "import", "-");
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^imported bank from-stdin: 185 facts, /);
    const back = JSON.parse((await cli("export", "--bank", "from-stdin")).stdout);
    expect(back.facts).toHaveLength(bundle.facts.length);
  });

  it("import - reads JSON lines when the first line is a header, across chunk boundaries", async () => {
    const bundle = JSON.parse((await cli("export", "--bank", "demo")).stdout);
    const lines = [
      JSON.stringify({ version: bundle.version, bank: { ...bundle.bank, id: "lines-stdin" } }),
      ...bundle.facts.map((fact: unknown) => JSON.stringify({ fact })),
    ];
    const out = await cliStdin(`${lines.join("\r\n")}\n`, "import", "-");
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^imported bank lines-stdin: 185 facts, 0 observations/);
  });

  it.each([
    ["empty", "", /stdin is empty/],
    ["blank lines", "\n \n", /stdin is empty/],
    ["not JSON", "{ nope", /cannot read stdin/],
    ["not UTF-8", Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), /stdin is not UTF-8/],
  ])("import - with %s stdin is a one-line error, exit 2, nothing imported", async (_what, input, message) => {
    const before = (await cli("export", "--bank", "demo")).stdout;
    const out = await cliStdin(input, "import", "-", "--replace");
    expect(out.code).toBe(2);
    expect(out.stderr.trim().split("\n")).toHaveLength(1);
    expect(out.stderr).toMatch(message);
    expect((await cli("export", "--bank", "demo")).stdout).toBe(before);
  });

  it("suite import … - reads the JSONL from stdin; empty stdin imports nothing", async () => {
    const jsonl = (await cli("suite", "export", "--bank", "demo", "--suite", "demo-tour")).stdout;
    const out = await cliStdin(jsonl, "suite", "import", "--bank", "demo", "--suite", "piped", "-");
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^imported suite piped \(version 1\): 10 questions/);
    const suite = await withDb((db) => getSuite(db, "demo", "piped"));
    expect(suite?.questions).toHaveLength(10);

    const empty = await cliStdin("", "suite", "import", "--bank", "demo", "--suite", "piped", "-");
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/stdin is empty/);
    expect((await withDb((db) => getSuite(db, "demo", "piped")))?.version).toBe(1);
  });

  it("reflect --bank demo - takes the question from stdin and stores it", async () => {
    const out = await cliStdin("What is blocking the SSO rollout?\n", "reflect", "--bank", "demo", "--json", "-");
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    const json = ReflectJson.parse(JSON.parse(out.stdout));
    expect(json.status).toBe("done");
    const run = await withDb((db) => getRun(db, json.id));
    expect(run?.question).toBe("What is blocking the SSO rollout?");
  });

  it.each([
    ["empty", ""],
    ["whitespace", "  \n\t\n"],
  ])("reflect - with %s stdin is a clear error and stores no run", async (_what, input) => {
    const before = await runCount();
    const out = await cliStdin(input, "reflect", "--bank", "demo", "-");
    expect(out.code).toBe(2);
    expect(out.stdout).toBe("");
    expect(out.stderr.trim()).toBe("error: stdin is empty: pipe the question in (no run was started)");
    expect(await runCount()).toBe(before);
  });

  it("reflect - refuses a NUL in stdin's question as it refuses one in the argument (exit 2, no run)", async () => {
    const before = await runCount();
    const out = await cliStdin("Who\u0000 owns the SSO rollout?\n", "reflect", "--bank", "demo", "-");
    expect(out.code).toBe(2);
    expect(out.stdout).toBe("");
    expect(out.stderr).toMatch(/^error: stdin contains a NUL character/);
    expect(await runCount()).toBe(before);
  });

  it.each([
    ["control characters", "\u0001\u0002\u0007\n"],
    ["invisible characters", "\u00a0\u200b\u2028\ufeff\n"],
  ])("a question of only %s is empty: refused, no run (stdin and argument alike)", async (_what, input) => {
    const before = await runCount();
    const piped = await cliStdin(input, "reflect", "--bank", "demo", "-");
    expect(piped.code).toBe(2);
    expect(piped.stderr).toMatch(/^error: (stdin is empty|the question must not be empty)/);
    const given = await cli("reflect", "--bank", "demo", input);
    expect(given.code).toBe(2);
    expect(given.stderr).toMatch(/^error: the question must not be empty/);
    expect(await runCount()).toBe(before);
  });

  it("bench import locomo - with empty stdin says so (exit 2)", async () => {
    const out = await cliStdin("", "bench", "import", "locomo", "-");
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^error: stdin is empty/);
  });

  it("reflect - checks stdin's question like any other (oversize: refused, no run)", async () => {
    const before = await runCount();
    const out = await cliStdin("x".repeat(5_000), "reflect", "--bank", "demo", "-");
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/oversize question/);
    expect(await runCount()).toBe(before);
  });

  it("reflect - refuses a stdin far over the question limit without reading it all, no run", async () => {
    const before = await runCount();
    const out = await cliStdin(Buffer.alloc(20 * 1_048_576, 0x61), "reflect", "--bank", "demo", "-");
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^error: stdin is longer than \d+ bytes; nothing was read\n$/);
    expect(await runCount()).toBe(before);
  });

  it("- with a terminal on stdin is refused at once, not waited on", async () => {
    // A terminal that never sends anything: reading it would hang the test.
    const terminal = {
      isTTY: true,
      [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<string>>(() => {}) }),
    };
    for (const args of [
      ["reflect", "--bank", "demo", "-"],
      ["import", "-"],
      ["suite", "import", "--bank", "demo", "--suite", "tty", "-"],
    ]) {
      let stderr = "";
      const code = await runCli(args, {
        stdout: { write: () => true },
        stderr: { write: (t: string) => (stderr += t) },
        stdin: terminal,
      });
      expect(code, args.join(" ")).toBe(2);
      expect(stderr).toBe("error: - reads stdin, but stdin is a terminal: pipe the input in\n");
    }
  });

  it("an unknown command or help topic is named with its control characters escaped (no raw ESC on the terminal)", async () => {
    for (const args of [["\x1b]0;pwned\x07"], ["help", "\x1b[2J"], ["--help", "\u009b31m"]]) {
      const out = await cli(...args);
      expect(out.code, JSON.stringify(args)).toBe(2);
      expect(out.stderr).toMatch(/^error: unknown command "/);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the raw control characters are what must not appear
      expect(out.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      expect(out.stderr).toMatch(/\\x(1b|9b)/);
    }
  });

  it("a document nested a million levels deep on stdin is refused as input (exit 2), not a stack overflow (exit 1)", async () => {
    const n = 1_000_000;
    const deep = `[${"[".repeat(n)}${"]".repeat(n)}]`;
    const out = await cliStdin(deep, "bench", "import", "locomo", "-");
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^error: not a LoCoMo file, nothing was imported: \[0\]: .*\(got \[\[\[/);
    expect(out.stderr).not.toMatch(/call stack/);
  });

  it("a bad flag is refused before stdin is read", async () => {
    const out = await cliStdin("never read", "reflect", "--bank", "demo", "--budget", "huge", "-");
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--budget/);
  });
});

// Six process starts: under a loaded 2-core machine each can take several seconds.
describe("as a process: pipes through node dist/cli.mjs", { timeout: 120_000 }, () => {
  it("export --out - | import - into another database, and a question piped into reflect -", () => {
    const run = (url: string, args: string[], input?: string) =>
      spawnSync(process.execPath, [...CLI_ARGS, ...args], {
        cwd: root,
        env: { ...process.env, DATABASE_URL: url, REFLECT_LLM: "offline", OPENAI_API_KEY: "" },
        encoding: "utf8",
        input,
        timeout: 60_000,
      });
    const other = `file:${join(dir, "piped.db")}`;
    const exported = run(dbUrl, ["export", "--bank", "demo", "--out", "-"]);
    expect(exported.status).toBe(0);
    expect(exported.stderr).toBe("");
    expect(existsSync(join(root, "-"))).toBe(false);
    const imported = run(other, ["import", "-", "--replace"], exported.stdout);
    expect(imported.stderr).toBe("");
    expect(imported.status).toBe(0);
    expect(imported.stdout).toMatch(/^imported bank demo: 185 facts/);
    expect(run(other, ["export", "--bank", "demo"]).stdout).toBe(exported.stdout);

    const asked = run(other, ["reflect", "--bank", "demo", "--json", "-"], "Who owns the SSO rollout?");
    expect(asked.status).toBe(0);
    expect(ReflectJson.parse(JSON.parse(asked.stdout)).status).toBe("done");
    const empty = run(other, ["reflect", "--bank", "demo", "-"], "");
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/stdin is empty/);
  });
});

describe("help names every MCP tool served", () => {
  it("`mcp --help` and the overview list exactly the tools tools/list returns", async () => {
    const server = createMcpServer({ getDb: () => Promise.reject(new Error("not used")) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "help-test", version: "1.0.0" });
    await client.connect(clientSide);
    try {
      const served = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(served.length).toBeGreaterThanOrEqual(4);
      const named = (text: string) => [...new Set(text.match(/\bmemory_[a-z_]+/g) ?? [])].sort();
      const mcpHelp = await cli("mcp", "--help");
      expect(named(mcpHelp.stdout)).toEqual(served);
      const overview = (await cli("--help")).stdout.split("\n").find((l) => l.startsWith("  mcp "));
      expect(named(overview ?? "")).toEqual(served);
    } finally {
      await client.close();
    }
  });
});
