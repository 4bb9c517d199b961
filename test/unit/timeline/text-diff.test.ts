import { describe, expect, it } from "vitest";
import { answerLayout, diffLines, diffWords, hasChanges } from "@/lib/text/text-diff";

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

  it("keeps two 5,000-line documents a real diff: only the edited lines change", () => {
    const lines = Array.from({ length: 5_000 }, (_, i) => `- item ${i}: decision recorded on day ${i % 365}`);
    const a = lines.join("\n");
    const edited = lines.slice();
    edited[10] = "- item 10: decision reversed";
    edited.splice(2_500, 1);
    edited.splice(4_000, 0, "- a new line in the middle");
    const b = edited.join("\n");
    const started = performance.now();
    const ops = diffLines(a, b);
    const elapsed = performance.now() - started;
    expect(ops.filter((o) => o.op === "remove").map((o) => o.text)).toEqual([
      "- item 10: decision recorded on day 10",
      "- item 2500: decision recorded on day 310",
    ]);
    expect(ops.filter((o) => o.op === "add").map((o) => o.text)).toEqual([
      "- item 10: decision reversed",
      "- a new line in the middle",
    ]);
    expect(ops.filter((o) => o.op === "same")).toHaveLength(4_998);
    expect(side(ops, "add").join("\n")).toBe(a);
    expect(side(ops, "remove").join("\n")).toBe(b);
    expect(elapsed).toBeLessThan(2_000);
  });

  it("keeps a long answer a real word diff", () => {
    const words = Array.from({ length: 20_000 }, (_, i) => `word${i % 997}`);
    const a = words.join(" ");
    const b = words.map((w, i) => (i === 12_345 ? "changed" : w)).join(" ");
    const ops = diffWords(a, b);
    expect(ops.filter((o) => o.op !== "same").map((o) => [o.op, o.text.trim()])).toEqual([
      ["remove", "word381"],
      ["add", "changed"],
    ]);
    expect(side(ops, "add").join("")).toBe(a);
    expect(side(ops, "remove").join("")).toBe(b);
  });
});

describe("answerLayout (compare's answer diff)", () => {
  const bullets = ["- Atlas GA is October 20.", "- SSO ships with GA.", "- Pricing is per seat."].join("\n");
  it("shows a rewritten lead over identical bullets line by line: the bullets stay unmarked", () => {
    const a = `The launch moved twice; the team settled on a new date after the go/no-go meeting.\n${bullets}`;
    const b = `Decided: GA on Tuesday.\n${bullets}`;
    const shown = answerLayout(a, b, diffWords(a, b));
    expect(shown.layout).toBe("lines");
    if (shown.layout !== "lines") return;
    const same = shown.ops.filter((o) => o.op === "same").map((o) => o.text);
    expect(same).toEqual(bullets.split("\n"));
  });

  it("says same, inline or stacked where those read best", () => {
    expect(answerLayout("x y", "x y", diffWords("x y", "x y")).layout).toBe("same");
    const edit = ["Atlas GA is October 20, 2026.", "Atlas GA is October 21, 2026."] as const;
    expect(answerLayout(...edit, diffWords(...edit)).layout).toBe("inline");
    const rewrite = ["Nothing was found about pricing.", "Per-seat pricing starts in Q4 for every tier."] as const;
    expect(answerLayout(...rewrite, diffWords(...rewrite)).layout).toBe("stacked");
  });
});
