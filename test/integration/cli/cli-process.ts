/** The CLI as a user runs it: a real process (tsx), a given database, the offline model. */
import { spawn, spawnSync } from "node:child_process";
import { join, resolve } from "node:path";

export const root = resolve(import.meta.dirname, "../../..");

const CLI_ARGS = [join(root, "node_modules/tsx/dist/cli.mjs"), "lib/cli/main.ts"];

export function cliRunner(dbUrl: string, timeout = 60_000) {
  return (...args: string[]) => {
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
 * The CLI without blocking this process: for a model server (the fake) that answers from here.
 * `env` is laid over the caller's environment with the model settings cleared.
 */
export function cliAsync(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
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
