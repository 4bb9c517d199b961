/**
 * The adversarial review of issue 17 (branch review-a): natural questions on the demo bank whose
 * first line misled or whose "not found" ended badly. The questions themselves are also in the
 * scored set (test/fixtures/offline-questions.ts); this file holds what the set cannot say: what
 * must NOT be on the first line, which section an item lands in, and how a not-found run ends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { createOfflineModel } from "@/lib/llm";
import { ensureDemoBank } from "@/lib/server/runtime/db";
import { termStatsPort } from "@/lib/server/runtime/model";
import { startRun } from "@/lib/server/services/runs";
import { openTempDb } from "../db/temp-db";

let db: Db;
let cleanup: () => void;

beforeAll(async () => {
  ({ db, cleanup } = await openTempDb("offline-review"));
  expect(await ensureDemoBank(db)).toBe(true);
}, 120_000);
afterAll(() => cleanup());

async function ask(question: string, skill?: string) {
  const model = createOfflineModel({ termStats: termStatsPort(db, "demo") });
  const { finished } = await startRun(db, { mode: "synthesize", bankId: "demo", question, skill }, { model });
  const result = await finished;
  const cited = [
    ...result.citations.memory_ids,
    ...result.citations.observation_ids,
    ...result.citations.mental_model_ids,
  ];
  return { ...result, cited, firstLine: result.answer.split("\n")[0] ?? "" };
}

describe("review: the offline model on questions outside its first test set", () => {
  it("blockers skill: a blocker that cleared is not presented as current", async () => {
    for (const question of ["What is blocking SSO?", "Is the pen test still blocking SSO?"]) {
      const r = await ask(question, "blockers");
      expect(r.firstLine, question).not.toMatch(/^Blocked:/);
      expect(r.firstLine, question).toMatch(/no longer blocked|closed both|approved SSO|turned on SSO/);
    }
  });

  it("answers from a retrieved action item (f-163) instead of saying it found nothing", async () => {
    const r = await ask("What does Tomás owe from the postmortem?", "actionables");
    expect(r.answer).not.toMatch(/could not find/i);
    expect(r.citations.memory_ids).toContain("f-163");
    expect(r.flags).not.toContain("ungrounded");
  });

  it("says which store serves dashboards (f-145: ClickHouse), not the code-freeze note that says 'today'", async () => {
    const r = await ask("Which database serves dashboards today?");
    expect(r.firstLine).toMatch(/ClickHouse/);
    expect(r.answer).not.toMatch(/Code freeze/);
  });

  it("a greeting is a plain not-found, never an answer from a stem collision ('his' → 'hi')", async () => {
    const r = await ask("hi");
    expect(r.answer).toMatch(/could not find|no relevant memories/i);
    expect(r.cited).toEqual([]);
  });

  it("the reason for a slip is not named as a superseded launch date", async () => {
    const r = await ask("What did we decide about the launch date?");
    expect(r.firstLine).toMatch(/October 20/);
    expect(r.answer).not.toMatch(/replaces what older memories said: "Why/);
  });

  it("prep: the release's content is what to know before the meeting; a finished September task is not", async () => {
    const r = await ask("What will the November 17 release include?", "prep");
    const [before, open] = r.answer.split("Open questions:");
    expect(before).toMatch(/November 17/);
    expect(r.answer).not.toMatch(/pricing page copy/);
    expect(open).not.toMatch(/November 17/);
  });

  it("a question the bank cannot answer says so plainly and cites nothing, without a nudge or a halt", async () => {
    const nothing = await ask("What is the weather in Lisbon?");
    const irrelevant = await ask("What is our Kubernetes migration timeline?");
    for (const r of [nothing, irrelevant]) {
      expect(r.answer).toMatch(/could not find|no relevant memories/i);
      expect(r.cited).toEqual([]);
      expect(r.flags).not.toContain("halted");
      expect(r.flags).not.toContain("nudged");
    }
    // Nothing retrieved: the engine itself ends the run when the searches run out (docs/engine.md#grounding-citations-and-the-output-guard).
    expect(nothing.status).toBe("no_evidence");
    // Something retrieved but nothing relevant: the engine accepts the model's not-found as `done`
    // and flags it `ungrounded` (evidence existed, no citation) — the engine has no not-found
    // status for a run with evidence; see the report of the i17-fixes branch.
    expect(irrelevant.status).toBe("done");
  });

  it("27.8: a question whose distinctive words nothing it read covers is answered with what it found and what it did not", async () => {
    const r = await ask("What is the pricing for the Enterprise plan in Japan?");
    expect(r.answer).toMatch(/Japan/);
    expect(r.firstLine).toMatch(/could not find|no memory/i);
    expect(r.firstLine).not.toMatch(/SSO/);
  });
});
