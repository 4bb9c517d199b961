/** The stale-check `npm start` and `npm run cli` share (scripts/stale.mjs): when a build must be redone. */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
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
});
