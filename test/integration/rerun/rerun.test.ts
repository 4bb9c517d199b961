/**
 * The curation loop's services on the demo bank with a real libSQL file: fork replays the
 * parent's responses (the model is not asked again), re-run reads edits as a draft and saves
 * nothing, "Save these changes" saves exactly what it is sent, and the comparison of parent and
 * child shows where they parted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { getMentalModel } from "@/db/queries/mental-models";
import { getRun, getRunEvents } from "@/db/queries/runs";
import { getSkill, getSkillVersions } from "@/db/queries/skills";
import { AppError, isAppError } from "@/lib/contracts/errors";
import { createOfflineModel, createOpenAIModel } from "@/lib/llm";
import type { RunEvent } from "@/lib/reflect/events";
import { ensureDemoBank } from "@/lib/server/runtime/db";
import {
  forkRun,
  getComparison,
  getRerunContext,
  rerunWithChanges,
  saveRerunChanges,
} from "@/lib/server/services/rerun";
import { startRun } from "@/lib/server/services/runs";
import { type FakeOpenAI, startFakeOpenAI } from "@/test/fixtures/fake-openai-server";
import { openTempDb } from "../db/temp-db";

const QUESTION = "What did we decide about the launch date?";
/** The launch plan's first line as a curator fixes it (the stale model still says October 6). */
const FIXED_HEADLINE =
  "**Atlas launch date: Tuesday, October 20, 2026** (decided at the September 22 go/no-go; it had moved from September 15 to October 6 on September 1).";

let db: Db;
let cleanup: () => void;
let fake: FakeOpenAI;

beforeAll(async () => {
  ({ db, cleanup } = await openTempDb("rerun"));
  expect(await ensureDemoBank(db)).toBe(true);
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
  cleanup();
});

interface WireBody {
  tool_choice?: { type: string; function?: { name: string } } | string;
  messages: { role: string; content: string | null }[];
}

/** Obeys a named tool choice with a search; otherwise answers without citations. */
function followScript(body: unknown) {
  const choice = (body as WireBody).tool_choice;
  const forced = typeof choice === "object" ? choice.function?.name : undefined;
  if (forced && forced !== "done") {
    return { tool_calls: [{ name: forced, arguments: { reason: "forced tier", query: "launch date" } }] };
  }
  return {
    tool_calls: [
      {
        name: "done",
        arguments: { answer: "The launch moved.", memory_ids: [], observation_ids: [], mental_model_ids: [] },
      },
    ],
  };
}

const openaiModel = () =>
  createOpenAIModel({
    kind: "openai",
    apiKey: "sk-test",
    baseURL: fake.url,
    model: "fake-model",
    forcedToolChoice: "named",
    timeoutMs: 5000,
    maxRetries: 0,
  });

const chatRequests = () => fake.requests.filter((r) => r.path.endsWith("/chat/completions"));
const ofType = <T extends RunEvent["type"]>(events: RunEvent[], type: T) =>
  events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);

async function finishedRun(started: { runId: string; finished: Promise<unknown> }) {
  await started.finished;
  return { run: (await getRun(db, started.runId))!, events: await getRunEvents(db, started.runId) };
}

describe("forkRun", () => {
  it("replays the parent's responses before k without calling the model, and calls it live from k", async () => {
    fake.setScript((body) => followScript(body));
    fake.requests.length = 0;
    const parent = await finishedRun(
      await startRun(
        db,
        { mode: "synthesize", bankId: "demo", skill: "recap", budget: "low", question: QUESTION },
        { model: openaiModel() },
      ),
    );
    expect(chatRequests()).toHaveLength(4); // stale launch plan: mental models, observations, recall, done

    fake.requests.length = 0;
    const fork = await finishedRun(
      await forkRun(db, { parentRunId: parent.run.id, forkAt: 2 }, { model: openaiModel() }),
    );

    const wire = chatRequests().map((r) => r.body as WireBody);
    expect(wire).toHaveLength(2);
    // The first request the model sees is iteration 2's forced recall, after the replayed turns.
    expect(wire[0]!.tool_choice).toMatchObject({ function: { name: "recall" } });
    expect(fork.run).toMatchObject({ parentRunId: parent.run.id, forkedAtIteration: 2, llmCalls: 2 });
    const responses = ofType(fork.events, "llm.response");
    expect(responses.map((r) => [r.iteration, r.payload.replayed])).toEqual([
      [0, true],
      [1, true],
      [2, false],
      [3, false],
    ]);
    expect(
      responses.filter((r) => r.payload.replayed).every((r) => r.payload.tokensIn + r.payload.tokensOut === 0),
    ).toBe(true);
    const parentCalls = ofType(parent.events, "llm.response")
      .slice(0, 2)
      .map((r) => r.payload.toolCalls);
    expect(responses.slice(0, 2).map((r) => r.payload.toolCalls)).toEqual(parentCalls);
    expect(fork.run.flags).toContain("replayed");

    const cmp = await getComparison(db, parent.run.id, fork.run.id);
    expect(cmp.replayDivergence).toEqual([]); // memory did not change between the two runs
  });

  it("refuses a fork point beyond the parent's iterations", async () => {
    const parent = await finishedRun(
      await startRun(
        db,
        { mode: "synthesize", bankId: "demo", skill: "recap", budget: "low", question: QUESTION },
        { model: createOfflineModel() },
      ),
    );
    await expect(forkRun(db, { parentRunId: parent.run.id, forkAt: 40 })).rejects.toMatchObject({
      code: "invalid_input",
    });
  });
});

describe("rerunWithChanges", () => {
  it("fixing the stale launch plan makes the re-run short-circuit with fewer model calls", async () => {
    const model = createOfflineModel();
    const parent = await finishedRun(
      await startRun(
        db,
        { mode: "synthesize", bankId: "demo", skill: "recap", budget: "low", question: QUESTION },
        { model },
      ),
    );
    expect(parent.run.llmCalls).toBeGreaterThanOrEqual(4);

    const ctx = (await getRerunContext(db, parent.run.id))!;
    const plan = ctx.mentalModels.find((m) => m.id === "mm-launch-plan")!;
    expect(plan).toMatchObject({ isStale: true, versionSeen: plan.version });

    // Every other model the question reads is already fresh: fixing the plan alone releases the run.
    expect(ctx.mentalModels.filter((m) => m.id !== plan.id).every((m) => !m.isStale)).toBe(true);
    const content = plan.content.replace(/^.*$/m, FIXED_HEADLINE);
    const child = await finishedRun(
      await rerunWithChanges(
        db,
        {
          parentRunId: parent.run.id,
          question: QUESTION,
          budget: "low",
          mode: "synthesize",
          scope: "personal",
          mentalModelEdits: [{ id: plan.id, expectedVersion: plan.version, content, staleOverride: "fresh" }],
        },
        { model },
      ),
    );

    // Nothing was saved: the child read the edit and the override as a draft, and says so.
    const after = (await getMentalModel(db, "demo", plan.id))!;
    expect(after).toMatchObject({ version: plan.version, content: plan.content, staleOverride: null, isStale: true });
    expect(child.run.skillSnapshot?.mentalModelDrafts).toEqual([
      expect.objectContaining({
        id: plan.id,
        baseVersion: plan.version,
        content,
        staleOverride: "fresh",
        isStale: false,
      }),
    ]);
    // The child's drawer opens with the draft it read, still unsaved.
    const childCtx = (await getRerunContext(db, child.run.id))!;
    expect(childCtx.mentalModels.find((m) => m.id === plan.id)?.draft).toEqual({
      content,
      staleOverride: "fresh",
      baseVersion: plan.version,
    });
    expect(child.run).toMatchObject({ parentRunId: parent.run.id, forkedAtIteration: null, llmCalls: 2 });
    expect(child.run.flags).toContain("short_circuited");

    const { comparison } = await getComparison(db, parent.run.id, child.run.id);
    expect(comparison.firstDivergence).toEqual({ iteration: 0, aspect: "freshness" });
    expect(comparison.b.llmCalls).toBeLessThan(comparison.a.llmCalls);
    const changed = comparison.mentalModels.find((m) => m.id === plan.id)!;
    expect(changed).toMatchObject({ contentChanged: true, stalenessChanged: true });
    expect(changed.contentDiff?.some((d) => d.op === "add" && d.text.includes("October 20"))).toBe(true);
    expect(comparison.b.citations.mental_model_ids).toContain(plan.id);

    // "Save these changes" saves what it is sent: here the content, not the (permanent) override.
    const { saved } = await saveRerunChanges(db, {
      parentRunId: child.run.id,
      mentalModelEdits: [{ id: plan.id, expectedVersion: plan.version, content }],
    });
    expect(saved).toEqual([{ kind: "mental model", id: plan.id, name: plan.name, version: plan.version + 1 }]);
    expect(await getMentalModel(db, "demo", plan.id)).toMatchObject({
      version: plan.version + 1,
      content,
      staleOverride: null,
    });
  });

  it("runs a mission edit as a draft of the skill, and saves it only when asked", async () => {
    const model = createOfflineModel();
    const parent = await finishedRun(
      await startRun(db, { mode: "synthesize", bankId: "demo", skill: "decisions", question: QUESTION }, { model }),
    );
    const before = (await getSkill(db, { bankId: "demo", name: "decisions" }))!;
    const mission = `${before.mission} Always name who made the decision.`;
    const edit = { mission, disposition: ["decisive", "brief"], skillExpectedVersion: before.version };
    const child = await finishedRun(
      await rerunWithChanges(
        db,
        {
          parentRunId: parent.run.id,
          question: QUESTION,
          budget: "high",
          mode: "synthesize",
          scope: "personal",
          ...edit,
          mentalModelEdits: [],
        },
        { model },
      ),
    );
    expect(child.run.skillSnapshot).toMatchObject({
      version: before.version,
      mission,
      disposition: ["decisive", "brief"],
      draft: true,
    });
    expect((await getSkillVersions(db, "demo", before.id)).map((v) => v.version)).toEqual([before.version]);
    const { comparison } = await getComparison(db, parent.run.id, child.run.id);
    expect(comparison.inputs.map((i) => i.field)).toEqual(expect.arrayContaining(["mission", "disposition", "budget"]));

    const { saved } = await saveRerunChanges(db, { parentRunId: child.run.id, ...edit, mentalModelEdits: [] });
    expect(saved).toEqual([{ kind: "skill", id: before.id, name: "decisions", version: before.version + 1 }]);
    expect(await getSkill(db, { bankId: "demo", id: before.id })).toMatchObject({
      mission,
      version: before.version + 1,
    });
  });

  it("saves nothing when one of the records moved on since the drawer opened", async () => {
    const parent = await finishedRun(
      await startRun(
        db,
        { mode: "synthesize", bankId: "demo", skill: "recap", question: QUESTION },
        { model: createOfflineModel() },
      ),
    );
    const recap = (await getSkill(db, { bankId: "demo", name: "recap" }))!;
    const plan = (await getMentalModel(db, "demo", "mm-launch-plan"))!;
    const attempt = await saveRerunChanges(db, {
      parentRunId: parent.run.id,
      mission: `${recap.mission} Be brief.`,
      skillExpectedVersion: recap.version,
      mentalModelEdits: [{ id: plan.id, expectedVersion: plan.version - 1, content: "Launch is whenever." }],
    }).catch((e: unknown) => e);
    expect(isAppError(attempt, "conflict")).toBe(true);
    expect((await getSkill(db, { bankId: "demo", id: recap.id }))!.version).toBe(recap.version);
    expect((await getMentalModel(db, "demo", plan.id))!.version).toBe(plan.version);
  });

  it("reports a conflict when the mental model changed since the drawer opened", async () => {
    const parent = await finishedRun(
      await startRun(
        db,
        { mode: "synthesize", bankId: "demo", skill: "recap", question: QUESTION },
        { model: createOfflineModel() },
      ),
    );
    const plan = (await getMentalModel(db, "demo", "mm-launch-plan"))!;
    const attempt = rerunWithChanges(db, {
      parentRunId: parent.run.id,
      question: QUESTION,
      budget: "low",
      mode: "synthesize",
      scope: "personal",
      mentalModelEdits: [{ id: plan.id, expectedVersion: plan.version - 1, content: "Launch is whenever." }],
    });
    await expect(attempt).rejects.toBeInstanceOf(AppError);
    await expect(attempt).rejects.toMatchObject({ code: "conflict" });
    expect((await getMentalModel(db, "demo", plan.id))!.version).toBe(plan.version);
  });
});

describe("compare", () => {
  it("names the run that does not exist", async () => {
    const err = await getComparison(db, "run_nope_a", "run_nope_b").catch((e: unknown) => e);
    expect(isAppError(err, "not_found")).toBe(true);
    expect((err as Error).message).toBe("No run A (run_nope_a) and no run B (run_nope_b).");
  });
});
