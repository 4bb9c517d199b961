import { describe, expect, it } from "vitest";
import { diffLines, diffWords, hasChanges } from "@/lib/timeline/text-diff";

const side = (ops: ReturnType<typeof diffLines>, keep: "add" | "remove") =>
  ops.filter((o) => o.op !== keep).map((o) => o.text);

describe("text diff", () => {
  it("identical texts have no changes", () => {
    expect(hasChanges(diffLines("a\nb", "a\nb"))).toBe(false);
  });

  it("marks a changed line as removed then added, keeping the rest", () => {
    const ops = diffLines("Launch: Oct 6\nOwner: Maya\nRisk: SSO", "Launch: Oct 20\nOwner: Maya\nRisk: SSO");
    expect(ops).toEqual([
      { op: "remove", text: "Launch: Oct 6" },
      { op: "add", text: "Launch: Oct 20" },
      { op: "same", text: "Owner: Maya" },
      { op: "same", text: "Risk: SSO" },
    ]);
  });

  it("rebuilds either side exactly from the word ops", () => {
    const a = "The launch moved to October 6 after the SSO blocker.";
    const b = "The launch moved to October 20 at the go/no-go.";
    const ops = diffWords(a, b);
    expect(side(ops, "add").join("")).toBe(a);
    expect(side(ops, "remove").join("")).toBe(b);
    expect(ops.some((o) => o.op === "add" && o.text.includes("20"))).toBe(true);
  });

  it("handles insertions into and deletions from the middle", () => {
    const ops = diffLines("a\nb\nc", "a\nx\nb\nc");
    expect(ops.filter((o) => o.op === "add")).toEqual([{ op: "add", text: "x" }]);
    expect(diffLines("a\nb\nc", "a\nc").filter((o) => o.op === "remove")).toEqual([{ op: "remove", text: "b" }]);
  });
});
