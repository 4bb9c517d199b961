/** What the editor's "Refresh runs" list says became of each proposal, from stored data. */
import { describe, expect, it } from "vitest";
import type { RefreshRunRow } from "@/db/queries/mental-model-reads";
import { refreshOutcomeOf } from "@/lib/server/services/refresh-outcome";

const run = (patch: Partial<RefreshRunRow>): RefreshRunRow => ({
  id: "run_1",
  question: "What is the launch plan?",
  status: "done",
  createdAt: "2026-11-01T00:00:00.000Z",
  answer: "Atlas launches on March 3.",
  baseVersion: 3,
  decision: null,
  acceptedVersion: null,
  ...patch,
});
const model = { version: 3 };
const label = (r: RefreshRunRow, versions: Parameters<typeof refreshOutcomeOf>[2] = []) =>
  refreshOutcomeOf(r, model, versions).outcomeLabel;

describe("refresh outcome", () => {
  it("says what was decided", () => {
    expect(label(run({ decision: "accepted", acceptedVersion: 4 }))).toBe("accepted as v4");
    expect(label(run({ decision: "discarded" }))).toBe("discarded");
  });

  it("an undecided proposal is open on the current version, not accepted once the model moved on", () => {
    expect(label(run({}))).toBe("open proposal");
    expect(label(run({ baseVersion: 2 }))).toBe("not accepted (proposed on v2)");
  });

  it("an unusable run was never a proposal, whatever was recorded", () => {
    expect(label(run({ status: "no_evidence", answer: null }))).toBe("not used (unusable: no evidence)");
    expect(label(run({ status: "failed", answer: null, decision: "discarded" }))).toBe("not used (unusable: failed)");
    expect(label(run({ answer: "Generating content..." }))).toBe("not used (unusable: placeholder text)");
    expect(label(run({ status: "running", answer: null }))).toBe("running");
  });

  it("a run from before decisions were recorded is accepted only when a refreshed version holds its answer", () => {
    const legacy = run({ baseVersion: null });
    expect(label(legacy)).toBe("no decision recorded");
    expect(
      label(legacy, [{ version: 5, content: "Atlas launches on March 3.", refreshedAt: "2026-11-01T01:00:00Z" }]),
    ).toBe("accepted as v5");
    // The same answer proposed again after that version was saved (an upgraded database's later,
    // undecided refresh) was not accepted as it.
    expect(
      label(run({ baseVersion: null, createdAt: "2026-11-01T02:00:00.000Z" }), [
        { version: 5, content: "Atlas launches on March 3.", refreshedAt: "2026-11-01T01:00:00Z" },
      ]),
    ).toBe("no decision recorded");
    // A hand edit that happens to hold the same text is not a refresh.
    expect(label(legacy, [{ version: 5, content: "Atlas launches on March 3.", refreshedAt: null }])).toBe(
      "no decision recorded",
    );
  });
});
