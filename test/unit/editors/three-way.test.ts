import { describe, expect, it } from "vitest";
import { threeWayMerge } from "@/components/editors/three-way";

const base = { name: "Pricing", content: "v1 text", tags: ["a"] };

describe("threeWayMerge", () => {
  it("re-applies my fields on theirs when the changed fields do not overlap", () => {
    const mine = { ...base, content: "my text" };
    const theirs = { ...base, name: "Pricing 2026", tags: ["a", "b"] };
    expect(threeWayMerge(base, mine, theirs)).toEqual({
      ok: true,
      merged: { name: "Pricing 2026", content: "my text", tags: ["a", "b"] },
      mine: ["content"],
    });
  });

  it("names the overlapping fields and merges nothing", () => {
    const mine = { ...base, content: "my text", name: "Mine" };
    const theirs = { ...base, content: "their text" };
    expect(threeWayMerge(base, mine, theirs)).toEqual({ ok: false, overlap: ["content"] });
  });

  it("the same change on both sides is no conflict", () => {
    const mine = { ...base, content: "same" };
    const theirs = { ...base, content: "same", name: "Other" };
    const merged = threeWayMerge(base, mine, theirs);
    expect(merged.ok && merged.merged).toEqual({ name: "Other", content: "same", tags: ["a"] });
  });
});
