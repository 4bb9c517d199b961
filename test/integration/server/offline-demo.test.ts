/**
 * The offline model through the real engine, store and service on the demo bank, built as the
 * server builds it (with the bank's term statistics): the questions the README and demo use must
 * come back answered, grounded in what the run retrieved, and the README's curation loop must
 * short-circuit after a fix in the curator's own words.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import demo from "@/db/demo/demo-bank.json";
import { getRun, getRunEvents, listRuns } from "@/db/queries/runs";
import { isAppError } from "@/lib/contracts/errors";
import { createOfflineModel } from "@/lib/llm";
import { ensureDemoBank } from "@/lib/server/runtime/db";
import { termStatsPort } from "@/lib/server/runtime/model";
import { getRerunContext, rerunWithChanges } from "@/lib/server/services/rerun";
import { startRun } from "@/lib/server/services/runs";
import { openTempDb } from "../db/temp-db";

/** Memories of the team the demo bank does not permit: no run may ever see one. */
const FINANCE_IDS = new Set(
  [...demo.facts, ...demo.observations].filter((m) => m.scope === "team:finance").map((m) => m.id),
);

let db: Db;
let cleanup: () => void;

beforeAll(async () => {
  ({ db, cleanup } = await openTempDb("offline-demo"));
  expect(await ensureDemoBank(db)).toBe(true);
});
afterAll(() => cleanup());

const offlineModel = () => createOfflineModel({ termStats: termStatsPort(db, "demo") });

async function reflect(question: string, skill?: string, extra: Record<string, unknown> = {}) {
  const { runId, finished } = await startRun(
    db,
    { mode: "synthesize", bankId: "demo", skill, question, ...extra },
    { model: offlineModel() },
  );
  const result = await finished;
  return { runId, result, events: await getRunEvents(db, runId) };
}

/** Ids each tier returned in the run, from its tool.result events. */
function retrieved(events: Awaited<ReturnType<typeof getRunEvents>>) {
  const ids = { mental_models: new Set<string>(), observations: new Set<string>(), raw_facts: new Set<string>() };
  for (const e of events) {
    if (e.type !== "tool.result") continue;
    for (const tier of ["mental_models", "observations", "raw_facts"] as const) {
      for (const id of e.payload.ids[tier]) ids[tier].add(id);
    }
  }
  return ids;
}

const QUESTIONS: [string, string | undefined][] = [
  ["What did we decide about the launch date?", "decisions"],
  ["What is blocking the SSO rollout?", "blockers"],
  ["What action items are open for Tomás?", "actionables"],
  ["What did Acme Logistics say in the pilot?", undefined],
  ["Summarize the pricing decisions", "decisions"],
  ["What happened in the October incident?", undefined],
];

describe("offline model on the demo bank", () => {
  for (const [question, skill] of QUESTIONS) {
    it(`answers "${question}" with citations the run retrieved`, async () => {
      const { runId, result, events } = await reflect(question, skill);
      expect(result.status).toBe("done");
      const cited = [
        ...result.citations.memory_ids,
        ...result.citations.observation_ids,
        ...result.citations.mental_model_ids,
      ];
      expect(cited.length).toBeGreaterThan(0);
      const seen = retrieved(events);
      for (const id of result.citations.memory_ids) expect(seen.raw_facts.has(id)).toBe(true);
      for (const id of result.citations.observation_ids) expect(seen.observations.has(id)).toBe(true);
      for (const id of result.citations.mental_model_ids) expect(seen.mental_models.has(id)).toBe(true);
      expect(result.flags).not.toContain("ungrounded");
      const row = await getRun(db, runId);
      expect(row?.status).toBe("done");
      expect(row?.modelKind).toBe("offline");
    });
  }

  it("answers the launch-date question with the final October 20 decision on its first line", async () => {
    const { result } = await reflect("What did we decide about the launch date?", "decisions");
    expect(result.answer.split("\n")[0]).toMatch(/October 20/);
  });

  it("the curation loop: a fix of the stale launch plan in the curator's own words still short-circuits", async () => {
    const question = "What did we decide about the launch date?";
    const parent = await reflect(question, "recap", { budget: "low" });
    expect(parent.result.llmCalls).toBe(4);
    const plan = (await getRerunContext(db, parent.runId))?.mentalModels.find((m) => m.id === "mm-launch-plan");
    if (!plan) throw new Error("the run did not read the launch plan");
    // Neither "decide" nor "date" appears: the date itself answers.
    const content = plan.content.replace(
      /^.*$/m,
      "**Atlas GA: Tuesday, October 20, 2026** (moved again at the go/no-go).",
    );
    const { finished } = await rerunWithChanges(
      db,
      {
        parentRunId: parent.runId,
        question,
        budget: "low",
        mode: "synthesize",
        scope: "personal",
        mentalModelEdits: [{ id: plan.id, expectedVersion: plan.version, content, staleOverride: "fresh" }],
      },
      { model: offlineModel() },
    );
    const child = await finished;
    expect(child.flags).toContain("short_circuited");
    expect(child.llmCalls).toBe(2);
    expect(child.answer.split("\n")[0]).toBe(
      "Atlas GA: Tuesday, October 20, 2026 (moved again at the go/no-go). [mm-launch-plan]",
    );
    expect(child.citations.mental_model_ids).toEqual(["mm-launch-plan"]);
  });

  it("a fresh mental model short-circuits the forced path: pricing answers in two model calls", async () => {
    const { result, events } = await reflect("What is our pricing per seat?", "recap", { budget: "low" });
    expect(result.flags).toContain("short_circuited");
    expect(result.llmCalls).toBe(2);
    const verdict = events.find((e) => e.type === "freshness.check");
    expect(verdict?.type === "freshness.check" && verdict.payload.verdict).toBe("release");
  });

  it("yields no_evidence for a question about something absent from the bank", async () => {
    const { result } = await reflect("Who won the 1998 curling championship in Reykjavik?");
    expect(result.status).toBe("no_evidence");
    expect(result.citations.memory_ids).toEqual([]);
  });

  it("never leaks a fact of a team the bank does not permit", async () => {
    const { result, events } = await reflect(
      "What is the finance budget and the plan to raise Team pricing?",
      "recap",
      {
        scope: "team:platform",
      },
    );
    expect(FINANCE_IDS.size).toBeGreaterThan(0);
    const seen = retrieved(events);
    expect([...seen.raw_facts, ...seen.observations].filter((id) => FINANCE_IDS.has(id))).toEqual([]);
    expect(seen.raw_facts.size).toBeGreaterThan(0);
    expect(result.status).not.toBe("failed");
  });

  it("a run asking for a team the bank does not permit is refused before it starts (docs/engine.md#never-a-misleading-result)", async () => {
    const before = (await listRuns(db)).runs.length;
    const err = await reflect("What is the finance budget?", "recap", { scope: "team:finance" }).catch(
      (e: unknown) => e,
    );
    expect(isAppError(err, "scope_not_permitted")).toBe(true);
    expect((err as Error).message).toContain("does not permit scope team:finance");
    // No run was made that could later read as "no relevant memories".
    expect((await listRuns(db)).runs.length).toBe(before);
  });

  it("facts mode makes no model call and cites the facts it lists", async () => {
    const { result, events } = await reflect("SSO blocker", "blockers", { mode: "facts" });
    expect(result.llmCalls).toBe(0);
    expect(events.some((e) => e.type === "llm.request")).toBe(false);
    expect(result.citations.memory_ids.length).toBeGreaterThan(0);
  });
});
