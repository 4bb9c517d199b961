/**
 * Experiments in process over a real libSQL file and the offline model: drafts are applied only
 * inside the experiment and never saved, a skill version runs as asked, cancel stops new
 * questions, and bundles carry suites (old bundles without the key still import).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exportBundle, importBundle } from "@/db/bundle-io";
import type { Db } from "@/db/client";
import { createExperiment, getExperimentRecord, markAbandonedExperiments } from "@/db/experiments";
import { listRunsThatRead } from "@/db/mental-model-reads";
import { getMentalModel, getMentalModelVersions } from "@/db/mental-models";
import { getRun, getRunEvents } from "@/db/runs";
import { processInstances } from "@/db/schema";
import { getSkill, getSkillVersions, saveSkill } from "@/db/skills";
import { getSuite, saveSuite } from "@/db/suites";
import { isAppError } from "@/lib/contracts/errors";
import { ConfigSnapshot, StartExperimentInput } from "@/lib/contracts/experiments";
import { comparisonCounts } from "@/lib/experiments/compare";
import { cancelExperiment, getExperimentComparison, startExperiment } from "@/lib/server/experiments";
import { mentalModelDraftRefs, toRunListItem } from "@/lib/server/runs";
import { sampleBundle } from "../db/sample-bundle";
import { openDemoTempDb, openTempDb } from "../db/temp-db";

let db: Db;
let cleanup: () => void;

beforeEach(async () => {
  // Each test its own database with the demo bank (a copy of one seeded once: migrating and
  // importing per test was most of this file's time).
  ({ db, cleanup } = await openDemoTempDb("experiments"));
});
afterEach(() => cleanup());

const start = (input: Partial<StartExperimentInput> & { suite: string }) =>
  startExperiment(db, StartExperimentInput.parse({ bankId: "demo", ...input }));

/** A demo-bank suite of one question for the recap skill. */
function oneQuestionSuite(name: string, question: string) {
  return saveSuite(db, {
    bankId: "demo",
    name,
    description: "",
    questions: [{ question, skill: "recap" }],
    expectedVersion: 0,
  });
}

describe("experiment drafts", { timeout: 120_000 }, () => {
  it("applies a skill mission and a mental-model edit only inside the experiment: nothing is saved", async () => {
    await oneQuestionSuite("pricing", "How much does the Team plan cost?");
    const skillBefore = await getSkill(db, { bankId: "demo", name: "recap" });
    const skillVersionsBefore = await getSkillVersions(db, "demo", skillBefore?.id ?? "");
    const modelBefore = await getMentalModel(db, "demo", "mm-pricing");
    const modelVersionsBefore = await getMentalModelVersions(db, "demo", "mm-pricing");

    const draftContent = "DRAFT-ONLY pricing: the Team plan costs $59 per editor seat per month.";
    const { finished } = await start({
      suite: "pricing",
      config: {
        skill: { name: "recap", mission: "DRAFT-ONLY mission: answer about pricing." },
        mentalModels: [{ id: "mm-pricing", content: draftContent, staleOverride: "fresh" }],
      },
    });
    const experiment = await finished;
    expect(experiment.status).toBe("done");
    expect(experiment.config.draft).toBe(true);

    // The run used the draft ...
    const runId = experiment.rows[0]?.runId ?? "";
    const run = await getRun(db, runId);
    expect(run?.skillSnapshot?.mission).toBe("DRAFT-ONLY mission: answer about pricing.");
    // ... labelled a draft on the saved version, never as the saved skill itself.
    expect(run?.skillSnapshot?.draft).toBe(true);
    expect(JSON.stringify(await getRunEvents(db, runId))).toContain("DRAFT-ONLY pricing");

    // ... and the store is exactly as it was.
    expect(await getSkill(db, { bankId: "demo", name: "recap" })).toEqual(skillBefore);
    expect(await getSkillVersions(db, "demo", skillBefore?.id ?? "")).toEqual(skillVersionsBefore);
    expect(await getMentalModel(db, "demo", "mm-pricing")).toEqual(modelBefore);
    expect(await getMentalModelVersions(db, "demo", "mm-pricing")).toEqual(modelVersionsBefore);
  });

  it("records a mental-model draft in each run's snapshot and lists the run as a draft; the saved model is unchanged", async () => {
    await oneQuestionSuite("pricing", "How much does the Team plan cost?");
    const modelBefore = await getMentalModel(db, "demo", "mm-pricing");
    if (!modelBefore) throw new Error("no mm-pricing");
    const modelVersionsBefore = await getMentalModelVersions(db, "demo", "mm-pricing");
    const draftContent = "DRAFT-ONLY pricing: the Team plan costs $59 per editor seat per month.";
    // Only the mental model is drafted: the skill is the saved one.
    const { finished } = await start({
      suite: "pricing",
      config: { mentalModels: [{ id: "mm-pricing", content: draftContent, staleOverride: "fresh" }] },
    });
    const experiment = await finished;
    expect(experiment.config.draft).toBe(true);
    const runId = experiment.rows[0]?.runId ?? "";
    const run = await getRun(db, runId);
    if (!run) throw new Error("no run");
    // Not a skill draft ...
    expect(run.skillSnapshot?.draft).toBeUndefined();
    // ... but the snapshot says which model was read as a draft, with what, on which saved version.
    expect(run.skillSnapshot?.mentalModelDrafts).toEqual([
      {
        id: "mm-pricing",
        name: modelBefore.name,
        baseVersion: modelBefore.version,
        content: draftContent,
        staleOverride: "fresh",
        isStale: false,
        stalenessReason: "manual override",
      },
    ]);
    // The runs list and the API's run say so (without the text).
    expect(toRunListItem(run).mentalModelDrafts).toEqual([
      { id: "mm-pricing", name: modelBefore.name, baseVersion: modelBefore.version },
    ]);
    expect(mentalModelDraftRefs(run)).toEqual(toRunListItem(run).mentalModelDrafts);
    // The run's own events carry it too (the run page's header and memory cards read them).
    const events = await getRunEvents(db, runId);
    const started = events.find((e) => e.type === "run.started");
    expect(started?.type === "run.started" && started.payload.skill.mentalModelDrafts?.[0]?.content).toBe(draftContent);
    // The text the run read is the draft's; the saved model is exactly as it was.
    const read = events.find((e) => e.type === "tool.result" && e.payload.content.includes('"mm-pricing"'));
    expect(read?.type === "tool.result" && read.payload.content).toContain("DRAFT-ONLY pricing");
    expect(await getMentalModel(db, "demo", "mm-pricing")).toEqual(modelBefore);
    expect(await getMentalModelVersions(db, "demo", "mm-pricing")).toEqual(modelVersionsBefore);
    // The model's page lists the run among its readers, saying it read a draft, not a saved version.
    const reader = (await listRunsThatRead(db, "demo", "mm-pricing")).find((r) => r.id === runId);
    expect(reader?.outcomeLabel).toBe(`done · read an unsaved draft (based on v${modelBefore.version})`);
  });

  it("runs without a mental-model draft record none", async () => {
    await oneQuestionSuite("plain", "How much does the Team plan cost?");
    const run = await getRun(db, (await (await start({ suite: "plain" })).finished).rows[0]?.runId ?? "");
    if (!run) throw new Error("no run");
    expect(run.skillSnapshot?.mentalModelDrafts).toBeUndefined();
    expect(toRunListItem(run).mentalModelDrafts).toEqual([]);
  });

  it("runs a saved skill version other than the current one", async () => {
    const recap = await getSkill(db, { bankId: "demo", name: "recap" });
    if (!recap) throw new Error("no recap skill");
    await saveSkill(db, { ...recap, expectedVersion: recap.version, mission: `${recap.mission} Newer.` });
    await oneQuestionSuite("one", "When did Atlas launch?");
    const { finished } = await start({ suite: "one", config: { skill: { name: "recap", version: recap.version } } });
    // An older version is not the current state: the experiment is a draft.
    expect((await finished).config.draft).toBe(true);
    const run = await getRun(db, (await finished).rows[0]?.runId ?? "");
    expect(run?.skillVersion).toBe(recap.version);
    expect(run?.skillSnapshot?.mission).toBe(recap.mission);
    expect(run?.skillSnapshot?.draft).toBeUndefined();
  });

  it("refuses an unknown skill version, mental model or baseline before anything runs", async () => {
    const cases = [
      { suite: "demo-tour", config: { skill: { name: "recap", version: 99 } } },
      { suite: "demo-tour", config: { mentalModels: [{ id: "mm-nope", content: "x" }] } },
      { suite: "demo-tour", baseline: "exp_nope" },
      { suite: "no-such-suite" },
    ];
    for (const c of cases) {
      await expect(start(c)).rejects.toSatisfy((e: unknown) => isAppError(e, "not_found"));
    }
  });

  it("refuses a baseline that ran another suite (no question would align, the gate could not fail)", async () => {
    await oneQuestionSuite("other-suite", "When did Atlas launch?");
    const other = await (await start({ suite: "other-suite" })).finished;
    await expect(start({ suite: "demo-tour", baseline: other.id })).rejects.toSatisfy(
      (e: unknown) => isAppError(e, "invalid_input") && /ran suite other-suite/.test((e as Error).message),
    );
  });
});

describe("experiment lifecycle", { timeout: 120_000 }, () => {
  it("cancel stops new questions from starting; the runs that started stay linked", async () => {
    const { experimentId, finished } = await start({ suite: "demo-tour", concurrency: 1 });
    const cancelled = await cancelExperiment(db, experimentId);
    expect(cancelled.status).toBe("cancelled");
    const experiment = await finished;
    expect(experiment.status).toBe("cancelled");
    const started = experiment.rows.filter((r) => r.runId !== null);
    expect(started.length).toBeLessThan(10);
    // The questions that never started say so: skipped, neither passed nor failed.
    const skipped = experiment.rows.filter((r) => r.status === "skipped");
    expect(skipped.length).toBe(10 - started.length);
    expect(skipped.every((r) => r.passed === null && r.failures.length === 0)).toBe(true);
    expect(experiment.totals.skipped).toBe(skipped.length);
    expect(experiment.totals.passed + experiment.totals.failed).toBe(started.length);
    await expect(cancelExperiment(db, experimentId)).rejects.toSatisfy((e: unknown) => isAppError(e, "conflict"));

    // As a baseline it is refused, saying why; allowed, only the questions run on both sides compare.
    await expect(start({ suite: "demo-tour", baseline: experimentId })).rejects.toSatisfy(
      (e: unknown) =>
        isAppError(e, "invalid_input") &&
        (e as Error).message.includes(
          `baseline ${experimentId} is not complete (cancelled, ${skipped.length} of 10 questions never ran)`,
        ),
    );
    const head = await (await start({ suite: "demo-tour", baseline: experimentId, allowIncompleteBaseline: true }))
      .finished;
    const cmp = await getExperimentComparison(db, experimentId, head.id);
    expect(comparisonCounts(cmp.questions).notCompared).toBe(skipped.length);
  });

  it("an experiment whose process stopped is ended as failed by the sweep, saying so; a live owner's is left", async () => {
    const now = Date.now();
    await db.insert(processInstances).values([
      {
        id: "inst_dead",
        kind: "server",
        pid: 1,
        hostname: "h",
        startedAt: new Date(now).toISOString(),
        heartbeatAt: now - 600_000,
      },
      {
        id: "inst_live",
        kind: "server",
        pid: 2,
        hostname: "h",
        startedAt: new Date(now).toISOString(),
        heartbeatAt: now,
      },
    ]);
    const base = {
      bankId: "demo",
      suite: "demo-tour",
      suiteVersion: 1,
      questions: [],
      concurrency: 1,
      baselineId: null,
    };
    const config = ConfigSnapshot.parse({
      mentalModels: [],
      model: { kind: "offline", name: "offline" },
      draft: false,
    });
    await createExperiment(db, { ...base, id: "exp_dead", config, ownerId: "inst_dead" });
    await createExperiment(db, { ...base, id: "exp_live", config, ownerId: "inst_live" });
    expect(await markAbandonedExperiments(db, { staleAfterMs: 30_000, now })).toBe(1);
    const dead = await getExperimentRecord(db, "exp_dead");
    expect(dead?.status).toBe("failed");
    expect(dead?.error).toMatch(/^interrupted: the process that ran it stopped/);
    expect((await getExperimentRecord(db, "exp_live"))?.status).toBe("running");
  });

  it("compares two experiments of the same state without regressions", async () => {
    const a = await (await start({ suite: "demo-tour" })).finished;
    const b = await (await start({ suite: "demo-tour", concurrency: 8 })).finished;
    expect(a.totals).toMatchObject({ questions: 10, passed: 10 });
    const cmp = await getExperimentComparison(db, a.id, b.id);
    expect(cmp.totals).toEqual({ regressions: 0, improvements: 0 });
    expect(cmp.questions.every((q) => q.base?.runId && q.head?.runId && q.base.runId !== q.head.runId)).toBe(true);
  });
});

describe("bundles with suites", () => {
  it("export includes suites; export → import → export is identical", async () => {
    await saveSuite(db, {
      bankId: "demo",
      name: "extra",
      description: "two edits",
      questions: [{ question: "A?", expect: { contains: ["a"] } }],
      expectedVersion: 0,
    });
    await saveSuite(db, {
      bankId: "demo",
      name: "extra",
      description: "two edits",
      questions: [{ question: "B?" }],
      expectedVersion: 1,
    });
    const first = await exportBundle(db, "demo");
    expect(first?.suites.map((s) => [s.name, s.version])).toEqual([
      ["demo-tour", 1],
      ["extra", 2],
    ]);
    const other = await openTempDb("experiments-rt");
    try {
      await importBundle(other.db, first);
      expect(await exportBundle(other.db, "demo")).toEqual(first);
      expect((await getSuite(other.db, "demo", "extra"))?.questions).toEqual([{ question: "B?" }]);
    } finally {
      other.cleanup();
    }
  });

  it("an old bundle without `suites` imports; a bad suite refuses the whole bundle by path", async () => {
    const old = sampleBundle();
    expect("suites" in old).toBe(false);
    await importBundle(db, old);
    expect((await exportBundle(db, old.bank.id))?.suites).toEqual([]);

    const bad = {
      ...sampleBundle(),
      bank: { id: "acme2", name: "Acme 2" },
      suites: [{ name: "s", questions: [{ question: "Q?", expect: { status: ["great"] } }] }],
    };
    await expect(importBundle(db, bad)).rejects.toSatisfy(
      (e: unknown) =>
        isAppError(e, "invalid_bundle") &&
        Object.keys(e.details.fieldErrors ?? {}).some((k) => k.startsWith("suites[0].questions[0].expect.status")),
    );
    expect(await exportBundle(db, "acme2")).toBeNull();
  });
});
