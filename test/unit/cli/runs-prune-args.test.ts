/** `runs prune` / `runs retention` command lines: what is refused, with which words, and what is read. */
import { describe, expect, it } from "vitest";
import { parsePruneArgs, parseRetentionArgs } from "@/lib/cli/runs-prune";
import { isAppError } from "@/lib/contracts/errors";
import { durationMs } from "@/lib/contracts/retention";

function refusal(parse: () => unknown): string {
  try {
    parse();
  } catch (err) {
    if (isAppError(err) && err.code === "invalid_input") return err.message;
    throw err;
  }
  throw new Error("accepted");
}

describe("runs prune arguments", () => {
  it.each([
    [["--older-than", "30x"], /^--older-than: not a duration like "30d"/],
    [["--older-than", "30"], /^--older-than: not a duration/],
    [["--older-than", "0d"], /^--older-than: not a duration/],
    [["--older-than", "-3d"], /argument is ambiguous|not a duration/],
    [["--older-than", "999999d"], /^--older-than: at most 36500d/],
    [["--older-than", "876001h"], /^--older-than: at most 36500d/],
    [["--older-than", "30d", "--keep", "2"], /^give exactly one of --older-than <30d\|12h> and --keep <N>$/],
    [[], /^give exactly one of --older-than/],
    [["--dry-run"], /^give exactly one of --older-than/],
    [["--keep", "2x"], /^--keep must be a whole number ≥ 0$/],
    [["--keep", "1.5"], /^--keep must be a whole number ≥ 0$/],
    [["--keep="], /^--keep must be a whole number ≥ 0$/],
    [["--keep", "99999999"], /^--keep must be a whole number ≥ 0$/],
    [["--older-than", "30d", "--bank", "no such bank"], /^--bank: an id is a slug/],
    [["--older-than", "30d", "--force"], /Unknown option '--force'/],
    [["--older-than", "30d", "extra"], /^unexpected argument "extra"$/],
  ])("refuses %j", (argv, message) => {
    expect(refusal(() => parsePruneArgs([...argv]))).toMatch(message);
  });

  it("reads a valid command line", () => {
    expect(parsePruneArgs(["--older-than", "30d", "--bank", "demo", "--dry-run", "--json"])).toEqual({
      input: { olderThan: "30d", bank: "demo", dryRun: true, vacuum: false },
      json: true,
    });
    expect(parsePruneArgs(["--keep", "0", "--vacuum"]).input).toEqual({ keep: 0, dryRun: false, vacuum: true });
    expect(durationMs("30d")).toBe(30 * 86_400_000);
    expect(durationMs("12h")).toBe(12 * 3_600_000);
  });
});

describe("runs retention arguments", () => {
  it.each([
    [["--keep", "3"], /^--bank is required$/],
    [["--bank", "demo", "--keep", "10", "--off"], /^give one of --older-than, --keep and --off$/],
    [["--bank", "demo", "--older-than", "2w"], /^--older-than: not a duration/],
    [["--bank", "demo", "--keep", "-1"], /ambiguous|whole number/],
  ])("refuses %j", (argv, message) => {
    expect(refusal(() => parseRetentionArgs([...argv]))).toMatch(message);
  });

  it("reads show, set and off", () => {
    expect(parseRetentionArgs(["--bank", "demo"]).rule).toBeUndefined();
    expect(parseRetentionArgs(["--bank", "demo", "--keep", "5"]).rule).toEqual({ keep: 5 });
    expect(parseRetentionArgs(["--bank", "demo", "--off"]).rule).toBeNull();
  });
});
