/** The stale-check `npm start` and `npm run cli` share (scripts/stale.mjs): when a build must be redone. */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { appBuildStale, BUILD_INPUTS } from "@/scripts/app-build.mjs";
import { isStale, newestMtime } from "@/scripts/stale.mjs";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A file with a given modification time (seconds since the epoch). */
function file(path: string, at: number) {
  writeFileSync(path, "x");
  utimesSync(path, at, at);
  return path;
}

describe("stale-check", () => {
  it("is stale when the build is missing, a source is newer, or a source is gone; fresh otherwise", () => {
    const dir = mkdtempSync(join(tmpdir(), "stale-"));
    dirs.push(dir);
    mkdirSync(join(dir, "src", "deep"), { recursive: true });
    const a = file(join(dir, "src", "a.ts"), 1_000);
    file(join(dir, "src", "deep", "b.ts"), 2_000);
    const built = join(dir, "out.mjs");
    expect(isStale(built, [join(dir, "src")])).toBe(true);
    file(built, 3_000);
    expect(isStale(built, [join(dir, "src"), a])).toBe(false);
    file(join(dir, "src", "deep", "b.ts"), 4_000);
    expect(isStale(built, [join(dir, "src")])).toBe(true);
    expect(isStale(built, [join(dir, "gone.ts")])).toBe(true);
  });

  it("walks folders for the newest time, skipping node_modules and dot-entries", () => {
    const dir = mkdtempSync(join(tmpdir(), "stale-"));
    dirs.push(dir);
    mkdirSync(join(dir, "node_modules"));
    mkdirSync(join(dir, ".cache"));
    file(join(dir, "a.ts"), 1_000);
    file(join(dir, "node_modules", "x.js"), 9_000);
    file(join(dir, ".cache", "y"), 9_000);
    expect(newestMtime(dir)).toBe(1_000_000);
    expect(newestMtime(join(dir, "missing"))).toBe(0);
  });

  it("the app build (npm start, npm test, e2e): stale after a source, a build setting or a new .env file", () => {
    const root = mkdtempSync(join(tmpdir(), "stale-app-"));
    dirs.push(root);
    for (const input of BUILD_INPUTS) {
      if (input.includes(".")) file(join(root, input), 1_000);
      else {
        mkdirSync(join(root, input));
        file(join(root, input, "page.tsx"), 1_000);
      }
    }
    expect(appBuildStale(root)).toBe(true);
    mkdirSync(join(root, ".next"));
    file(join(root, ".next", "BUILD_ID"), 2_000);
    expect(appBuildStale(root)).toBe(false);
    file(join(root, ".env.local"), 3_000);
    expect(appBuildStale(root)).toBe(true);
    file(join(root, ".env.local"), 1_500);
    expect(appBuildStale(root)).toBe(false);
    file(join(root, "next.config.mjs"), 3_000);
    expect(appBuildStale(root)).toBe(true);
  });
});
