/** The CLI as a user runs it: a real process (tsx), a given database, the offline model. */
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";

export const root = resolve(import.meta.dirname, "../../..");

export function cliRunner(dbUrl: string, timeout = 60_000) {
  return (...args: string[]) => {
    const res = spawnSync(process.execPath, [join(root, "node_modules/tsx/dist/cli.mjs"), "lib/cli/main.ts", ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: dbUrl, REFLECT_LLM: "offline", OPENAI_API_KEY: "" },
      encoding: "utf8",
      timeout,
    });
    return { code: res.status, stdout: res.stdout, stderr: res.stderr };
  };
}
