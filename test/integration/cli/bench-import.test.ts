/** `bench import locomo` as a user runs it (a real process, a temp database): exit codes and error lines. */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MINI_LOCOMO } from "@/test/fixtures/locomo/mini";
import { cliRunner, root } from "./cli-process";

const dir = resolve(root, "test/.tmp", `bench-import-${process.pid}-${Date.now()}`);
mkdirSync(dir, { recursive: true });
const cli = cliRunner(`file:${join(dir, "cli.db")}`);
const file = (name: string, json: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(json));
  return path;
};
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("cli bench import locomo", { timeout: 60_000 }, () => {
  it("names the flag as typed and quotes a bad --min-f1", () => {
    const res = cli("bench", "import", "locomo", file("mini.json", MINI_LOCOMO), "--min-f1", "abc");
    expect(res.code).toBe(2);
    expect(res.stderr.trim()).toBe('error: --min-f1: a number from 0 to 1 (got "abc")');
  });

  it("refuses a file with a turn that is not a turn in one line, exit 2, naming its path and value", () => {
    const bad = structuredClone(MINI_LOCOMO) as unknown as { conversation: Record<string, unknown[]> }[];
    bad[0]!.conversation.session_3![0] = null;
    const res = cli("bench", "import", "locomo", file("bad.json", bad));
    expect(res.code).toBe(2);
    expect(res.stderr.trim()).toMatch(
      /^error: not a LoCoMo file, nothing was imported: \[0\]\.conversation\.session_3\[0\]: .+ \(got null\)$/,
    );
    expect(res.stdout).toBe("");
  });
});
