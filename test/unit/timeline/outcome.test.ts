import { describe, expect, it } from "vitest";
import { outcomeWords } from "@/lib/timeline/outcome";
import { walkRun } from "@/lib/timeline/walk";
import { LogBuilder } from "../../fixtures/timeline/builder";
import { freshRun, haltedRun, noEvidenceRun, staleRun } from "../../fixtures/timeline/scenarios";

describe("outcome words", () => {
  it("a run answered after searching only mental models says so", () => {
    expect(outcomeWords(walkRun(freshRun()))).toEqual(["answered from mental models only"]);
  });

  it("a run that searched lower tiers has nothing to add", () => {
    expect(outcomeWords(walkRun(staleRun()))).toEqual([]);
  });

  it("a halt names what repeated and how often", () => {
    const words = outcomeWords(walkRun(haltedRun()));
    expect(words[0]).toBe("halted: same failing search 3 times");
    expect(words).toContain("3 tool errors");
  });

  it("a halt on identical empty searches reads as the same empty search", () => {
    const b = new LogBuilder("run-empty-halt").started({ enabledTiers: ["raw_facts"] });
    for (let i = 0; i < 3; i++) b.search(i, "raw_facts", "nothing", "again", []);
    b.emit(
      "steering.halt",
      {
        reason: "same empty search",
        trigger: "identical_failure",
        signature: `recall:${"nothing".length.toString(16).padStart(16, "0")}`,
        count: 3,
        sinceIteration: 0,
      },
      2,
    );
    const words = outcomeWords(walkRun(b.finished({ status: "halted", answer: "x" }).events));
    expect(words).toEqual(["halted: same empty search 3 times"]);
  });

  it("counts scope rejections", () => {
    const b = new LogBuilder("run-scope").started({ enabledTiers: ["raw_facts"] });
    b.search(0, "raw_facts", "ops", "team", [], { outcome: "policy_reject", error: "scope not permitted" });
    b.search(1, "raw_facts", "ops", "team", [], { outcome: "policy_reject", error: "scope not permitted" });
    b.search(2, "raw_facts", "launch", "ok", [{ id: "f-1", text: "Launch in March." }]);
    const words = outcomeWords(walkRun(b.finished({ status: "done", answer: "March [f-1]." }).events));
    expect(words).toEqual(["2 scope rejections"]);
  });

  it("a run that ended before any search says nothing beyond its status", () => {
    expect(outcomeWords(walkRun(noEvidenceRun()))).toEqual([]);
  });
});
