/**
 * Accept takes only the run that is this model's open refresh proposal: a run that merely asked the
 * same question (another model's refresh, a facts-mode run, a Try run, an experiment's run), a
 * discarded proposal and an accepted one are refused and change nothing. A refresh run's page is
 * told which model it refreshed and what became of the proposal.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { getExperimentRuns } from "@/db/queries/experiments";
import { getMentalModel } from "@/db/queries/mental-models";
import { getSkill, toSkillSnapshot } from "@/db/queries/skills";
import { saveSuite } from "@/db/queries/suites";
import { isAppError } from "@/lib/contracts/errors";
import { StartExperimentInput } from "@/lib/contracts/experiments";
import { MentalModelDraft } from "@/lib/contracts/mental-models";
import { SkillDraft } from "@/lib/contracts/skills";
import { createOfflineModel } from "@/lib/llm";
import { ensureDemoBank } from "@/lib/server/runtime/db";
import { startExperiment } from "@/lib/server/services/experiments";
import { getMentalModelPage, saveMentalModelDraft } from "@/lib/server/services/mental-models";
import { acceptRefresh, discardRefresh, getRefreshOfRun, refreshMentalModel } from "@/lib/server/services/refresh";
import { startRun } from "@/lib/server/services/runs";
import { trySkillDraft } from "@/lib/server/services/skills";
import { openTempDb } from "../db/temp-db";

let db: Db;
let cleanup: () => void;

beforeAll(async () => {
  ({ db, cleanup } = await openTempDb("refresh-proposals"));
  await ensureDemoBank(db);
});
afterAll(() => cleanup());

const MODEL = "mm-pricing";
const model = createOfflineModel();

async function current() {
  const m = await getMentalModel(db, "demo", MODEL);
  if (!m) throw new Error("no pricing model");
  return m;
}

/** Accepting `runId` for the pricing model is refused with `code` and leaves the model as it was. */
async function expectRefused(runId: string, code: "invalid_input" | "conflict") {
  const before = await current();
  const refused = await acceptRefresh(db, {
    bankId: "demo",
    id: MODEL,
    runId,
    expectedVersion: before.version,
  }).catch((e: unknown) => e);
  expect(isAppError(refused, code), String(refused)).toBe(true);
  const after = await current();
  expect(after.version).toBe(before.version);
  expect(after.content).toBe(before.content);
}

describe("Accept takes only this model's open refresh proposal", () => {
  it("refuses another model's refresh that asked the same source query", async () => {
    const pricing = await current();
    const twin = await saveMentalModelDraft(
      db,
      MentalModelDraft.parse({
        bankId: "demo",
        expectedVersion: 0,
        name: "Pricing twin",
        sourceQuery: pricing.sourceQuery,
        content: "A second summary over the same question.",
        tags: [],
        staleOverride: "auto",
      }),
    );
    const proposal = await refreshMentalModel(db, { bankId: "demo", id: twin.id }, { model });
    expect(proposal.usable).toBe(true);
    await expectRefused(proposal.runId, "invalid_input");
    // …and the twin's own list has it, the pricing model's does not.
    const pricingPage = await getMentalModelPage(db, "demo", MODEL);
    expect(pricingPage?.refreshRuns.map((r) => r.id)).not.toContain(proposal.runId);
  });

  it("refuses a facts-mode run of the source query (an API call, not a refresh)", async () => {
    const { runId, finished } = await startRun(
      db,
      { bankId: "demo", question: (await current()).sourceQuery, mode: "facts", budget: "low" },
      { model, excludeTiers: ["mental_models"] },
    );
    expect((await finished).status).toBe("done");
    await expectRefused(runId, "invalid_input");
  });

  it("refuses a Try run of the source query", async () => {
    const recap = await getSkill(db, { bankId: "demo", name: "recap" });
    if (!recap) throw new Error("no recap skill");
    const snapshot = toSkillSnapshot(recap);
    const { runId, finished } = await trySkillDraft(
      db,
      {
        draft: SkillDraft.parse({ ...snapshot, bankId: "demo", expectedVersion: recap.version }),
        question: (await current()).sourceQuery,
      },
      { model },
    );
    await finished;
    await expectRefused(runId, "invalid_input");
  });

  it("refuses an experiment's run of the source query", async () => {
    await saveSuite(db, {
      bankId: "demo",
      name: "pricing-check",
      description: "",
      questions: [{ question: (await current()).sourceQuery }],
      expectedVersion: 0,
    });
    const started = await startExperiment(db, StartExperimentInput.parse({ bankId: "demo", suite: "pricing-check" }), {
      model,
    });
    await started.finished;
    const [run] = (await getExperimentRuns(db, started.experimentId)).values();
    if (!run) throw new Error("the experiment ran nothing");
    await expectRefused(run.id, "invalid_input");
  });

  it("refuses a discarded proposal", async () => {
    const proposal = await refreshMentalModel(db, { bankId: "demo", id: MODEL }, { model });
    await discardRefresh(db, { bankId: "demo", id: MODEL, runId: proposal.runId });
    await expectRefused(proposal.runId, "invalid_input");
  });

  it("accepts an open proposal once, never the same run twice", async () => {
    const proposal = await refreshMentalModel(db, { bankId: "demo", id: MODEL }, { model });
    const saved = await acceptRefresh(db, {
      bankId: "demo",
      id: MODEL,
      runId: proposal.runId,
      expectedVersion: proposal.baseVersion,
    });
    expect(saved.version).toBe(proposal.baseVersion + 1);
    // Even on the version it made, the same run is not accepted again.
    await expectRefused(proposal.runId, "conflict");
  });
});

describe("a refresh run knows what it is", () => {
  it("names its model and says the proposal is open, then accepted", async () => {
    const proposal = await refreshMentalModel(db, { bankId: "demo", id: MODEL }, { model });
    const open = await getRefreshOfRun(db, proposal.runId);
    expect(open).toMatchObject({
      modelId: MODEL,
      modelName: "Pricing",
      baseVersion: proposal.baseVersion,
      outcome: "open",
      outcomeLabel: "open proposal",
      proposed: proposal.proposed,
    });
    await acceptRefresh(db, {
      bankId: "demo",
      id: MODEL,
      runId: proposal.runId,
      expectedVersion: proposal.baseVersion,
    });
    expect(await getRefreshOfRun(db, proposal.runId)).toMatchObject({
      outcome: "accepted",
      outcomeLabel: `accepted as v${proposal.baseVersion + 1}`,
    });
  });

  it("is null for a run that is no refresh", async () => {
    const { runId, finished } = await startRun(
      db,
      { bankId: "demo", question: "What is blocking the SSO rollout?", mode: "synthesize", budget: "low" },
      { model },
    );
    await finished;
    expect(await getRefreshOfRun(db, runId)).toBeNull();
  });
});
