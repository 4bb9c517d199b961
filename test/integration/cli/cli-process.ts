/**
 * The CLI two ways. In-process (`cliInProcess`): `runCli` called here with string streams — most
 * CLI behaviour is asserted this way, at no process start-up. As a user runs it (`cliRunner`,
 * `cliAsync`, `CLI_ARGS`): a real process on the built JavaScript (dist/cli.mjs, rebuilt first when
 * stale), for what needs a process: its own environment, push before exit, signals, stdio.
 */
import { spawn, spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { Readable } from "node:stream";
import { format } from "node:util";
import { runCli } from "@/lib/cli/main";
import { ensureCli } from "@/scripts/build-cli.mjs";

export const root = resolve(import.meta.dirname, "../../..");

/** `node <CLI_ARGS> …args` runs the built CLI. */
export const CLI_ARGS = [ensureCli()];

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cliRunner(dbUrl: string, timeout = 60_000) {
  return (...args: string[]): CliResult => {
    const res = spawnSync(process.execPath, [...CLI_ARGS, ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: dbUrl, REFLECT_LLM: "offline", OPENAI_API_KEY: "" },
      encoding: "utf8",
      timeout,
    });
    return { code: res.status, stdout: res.stdout, stderr: res.stderr };
  };
}

/**
 * `runCli` in this process on `dbUrl` with the offline model. The database and the model settings
 * the runs use are process-wide and opened on first use, so one test file uses one database
 * through this.
 */
export function cliInProcess(dbUrl: string) {
  return (...args: string[]) =>
    cliInProcessWith({ DATABASE_URL: dbUrl, REFLECT_LLM: "offline", OPENAI_API_KEY: "" }, ...args);
}

/**
 * `runCli` in this process with `env` laid over the environment for the call (the model settings
 * cleared first, as `cliAsync` does). What the code under it logs through `console` lands in the
 * same strings, as it would on the process's streams.
 */
export function cliInProcessWith(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  return inProcess(env, undefined, args);
}

/** `cliInProcess` with `stdin` (text or bytes) on the command's stdin, for `-` arguments. */
export function cliInProcessStdin(dbUrl: string) {
  return (stdin: string | Buffer, ...args: string[]) =>
    inProcess({ DATABASE_URL: dbUrl, REFLECT_LLM: "offline", OPENAI_API_KEY: "" }, stdin, args);
}

async function inProcess(
  env: Record<string, string>,
  stdin: string | Buffer | undefined,
  args: string[],
): Promise<CliResult> {
  const set = { OPENAI_API_KEY: "", OPENAI_BASE_URL: "", REFLECT_FORCED_TOOL_CHOICE: "", ...env };
  const saved = Object.fromEntries(Object.keys(set).map((k) => [k, process.env[k]]));
  Object.assign(process.env, set);
  let stdout = "";
  let stderr = "";
  const logged = { log: console.log, info: console.info, warn: console.warn, error: console.error };
  const line = (...parts: unknown[]) => `${format(...parts)}\n`;
  console.log = console.info = (...parts: unknown[]) => (stdout += line(...parts));
  console.warn = console.error = (...parts: unknown[]) => (stderr += line(...parts));
  try {
    const code = await runCli(args, {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      // In chunks, as a pipe delivers it: the readers must join lines across chunk boundaries.
      stdin: stdin === undefined ? undefined : Readable.from(chunks(Buffer.from(stdin), 4096)),
    });
    return { code, stdout, stderr };
  } finally {
    Object.assign(console, logged);
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/**
 * The CLI without blocking this process: for a model server (the fake) that answers from here.
 * `env` is laid over the caller's environment with the model settings cleared.
 */
export function cliAsync(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...CLI_ARGS, ...args], {
      cwd: root,
      env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", REFLECT_FORCED_TOOL_CHOICE: "", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

function* chunks(bytes: Buffer, size: number): Generator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}
