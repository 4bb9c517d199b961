/**
 * Every expectation kind passing and failing on hand-made runs stored in a real libSQL file: each
 * run is written as the engine's runs are (created, finished, what it retrieved recorded), linked to
 * an experiment, and read back through the experiment service — the rows, the one-line reasons and
 * the scorecard the page, the CLI and the API show.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { createExperiment, finishExperiment, linkExperimentRun } from "@/db/queries/experiments";
import { createRun, finishRun } from "@/db/queries/runs";
import { runs } from "@/db/schema";
import type { Experiment, RetrievedMemory } from "@/lib/contracts/experiments";
import type { SuiteQuestion } from "@/lib/contracts/suites";
import type { RunStatus } from "@/lib/reflect/domain";
import { getExperiment } from "@/lib/server/services/experiments";
import { openTempDb } from "../db/temp-db";

interface Case {
  name: string;
  question: SuiteQuestion;
  run: { status?: RunStatus; answer: string; cites?: string[]; retrieved?: RetrievedMemory[]; llmCalls?: number };
  passes: boolean;
  /** The one-line reason of the first unmet expectation. */
  reason?: string | RegExp;
}

const raw = (id: string, rank: number): RetrievedMemory => ({ id, tier: "raw_facts", rank });
const q = (expect: SuiteQuestion["expect"], tags = ["kind"]): SuiteQuestion => ({ question: "Q?", tags, expect });

const CASES: Case[] = [
  {
    name: "status met",
    question: q({ status: ["done"] }),
    run: { answer: "Yes [D1:1]", cites: ["D1:1"] },
    passes: true,
  },
  {
    name: "status unmet",
    question: q({ status: ["done"] }),
    run: { status: "no_evidence", answer: "Nothing found." },
    passes: false,
    reason: "status is no_evidence, expected done",
  },
  {
    name: "mustCite met",
    question: q({ mustCite: ["D1:1"] }),
    run: { answer: "x [D1:1]", cites: ["D1:1"] },
    passes: true,
  },
  {
    name: "mustCite unmet, never retrieved",
    question: q({ mustCite: ["D1:1"] }),
    run: { answer: "x", cites: ["D1:9"], retrieved: [raw("D1:9", 1)] },
    passes: false,
    reason: 'did not cite "D1:1"; it was never retrieved',
  },
  {
    name: "mustCiteAny met by one of them",
    question: q({ mustCiteAny: ["D4:15", "D4:16"] }),
    run: { answer: "x [D4:16]", cites: ["D4:16"] },
    passes: true,
  },
  {
    name: "mustCiteAny unmet, read at rank 3",
    question: q({ mustCiteAny: ["D4:15", "D4:16"] }),
    run: { answer: "x", cites: ["D1:2"], retrieved: [raw("D1:2", 1), raw("D4:15", 3)] },
    passes: false,
    reason: "none of D4:15, D4:16 cited; D4:15 was retrieved at rank 3",
  },
  {
    name: "mustNotCite met",
    question: q({ mustNotCite: ["D9:9"] }),
    run: { answer: "x", cites: ["D1:1"] },
    passes: true,
  },
  {
    name: "mustNotCite unmet",
    question: q({ mustNotCite: ["D9:9"] }),
    run: { answer: "x", cites: ["D9:9"] },
    passes: false,
    reason: 'cited "D9:9"',
  },
  { name: "contains met", question: q({ contains: ["biscuit"] }), run: { answer: "Biscuit." }, passes: true },
  {
    name: "contains unmet",
    question: q({ contains: ["biscuit"] }),
    run: { answer: "Rex." },
    passes: false,
    reason: 'the answer does not contain "biscuit"',
  },
  { name: "notContains met", question: q({ notContains: ["rex"] }), run: { answer: "Biscuit." }, passes: true },
  {
    name: "notContains unmet",
    question: q({ notContains: ["rex"] }),
    run: { answer: "Rex." },
    passes: false,
    reason: 'the answer contains "rex"',
  },
  { name: "maxLlmCalls met", question: q({ maxLlmCalls: 3 }), run: { answer: "x", llmCalls: 3 }, passes: true },
  {
    name: "maxLlmCalls unmet",
    question: q({ maxLlmCalls: 3 }),
    run: { answer: "x", llmCalls: 5 },
    passes: false,
    reason: "5 LLM calls, at most 3 expected",
  },
  {
    name: "minF1 met",
    question: q({ answer: "a puppy named Biscuit", minF1: 0.5 }),
    run: { answer: "Biscuit, a puppy [D2:3]\nmore" },
    passes: true,
  },
  {
    name: "minF1 unmet",
    question: q({ answer: "Biscuit", minF1: 0.5 }),
    run: { answer: "A cat called Tom" },
    passes: false,
    reason: 'F1 0.00 of the first line "A cat called Tom" against "Biscuit", at least 0.5 expected',
  },
  {
    name: "multi-part answer met part by part",
    question: q({ answer: ["Sweden", "Norway"], minF1: 0.9 }),
    run: { answer: "Norway, Sweden" },
    passes: true,
  },
  {
    name: "multi-part answer with one part missing",
    question: q({ answer: ["Sweden", "Norway"], minF1: 0.9 }),
    run: { answer: "Sweden" },
    passes: false,
    reason: /^F1 0\.50 of the first line "Sweden" against "Sweden, Norway"/,
  },
  {
    name: "containsAnswer met by a date written differently",
    question: q({ answer: "7 May 2023", containsAnswer: true }),
    run: { answer: "She went on May 7, 2023." },
    passes: true,
  },
  {
    name: "containsAnswer unmet by another date",
    question: q({ answer: "7 May 2023", containsAnswer: true }),
    run: { answer: "She went on 7 June 2023." },
    passes: false,
    reason: 'the answer does not contain "7 May 2023"',
  },
  {
    name: "containsAnswer false met",
    question: q({ answer: "Biscuit", containsAnswer: false }),
    run: { answer: "Not mentioned in the conversation." },
    passes: true,
  },
  {
    name: "containsAnswer false unmet",
    question: q({ answer: "Biscuit", containsAnswer: false }),
    run: { answer: "Biscuit." },
    passes: false,
    reason: 'the answer contains "Biscuit"',
  },
  {
    name: "abstains met",
    question: q({ abstains: true }),
    run: { answer: "Not mentioned in the conversation." },
    passes: true,
  },
  {
    name: "abstains: a declined answer that cites something",
    question: q({ abstains: true }),
    run: { answer: "Not mentioned in the conversation [D2:3].", cites: ["D2:3"] },
    passes: false,
    reason: "it declines but cites D2:3",
  },
  {
    name: "abstains: an answer where it should decline",
    question: q({ abstains: true }),
    run: { answer: "Biscuit [D2:3]", cites: ["D2:3"] },
    passes: false,
    reason: "it answers instead of saying the memory does not hold it",
  },
  {
    name: "abstains false met",
    question: q({ abstains: false }),
    run: { answer: "Biscuit [D2:3]", cites: ["D2:3"] },
    passes: true,
  },
  {
    name: "abstains false unmet",
    question: q({ abstains: false }),
    run: { answer: "I don't know." },
    passes: false,
    reason: "it declines (the memory does not hold it) where an answer was expected",
  },
  {
    name: "judge without a real model",
    question: q({ answer: "Biscuit", judge: true }),
    run: { answer: "Biscuit" },
    passes: false,
    reason: /^not judged: judging needs a real model/,
  },
  {
    name: "a degraded digest that quotes the answer",
    question: q({ answer: "Biscuit", containsAnswer: true }),
    run: { status: "degraded", answer: "Digest: Biscuit [D2:3]", cites: ["D2:3"] },
    passes: false,
    reason: /^the run was degraded: its answer is a digest/,
  },
  {
    name: "a degraded run its status allows",
    question: q({ status: ["degraded"], mustCiteAny: ["D2:3"] }),
    run: { status: "degraded", answer: "Digest [D2:3]", cites: ["D2:3"] },
    passes: true,
  },
];

let db: Db;
let cleanup: () => void;
let experiment: Experiment;

beforeAll(async () => {
  ({ db, cleanup } = await openTempDb("expectations"));
  await createExperiment(db, {
    id: "exp_hand",
    bankId: "hand",
    suite: "hand",
    suiteVersion: 1,
    questions: CASES.map((c) => ({ ...c.question, question: c.name })),
    config: { mentalModels: [], model: { kind: "offline", name: "offline" }, draft: false },
    concurrency: 1,
    baselineId: null,
    ownerId: null,
  });
  for (const [i, c] of CASES.entries()) {
    const id = `run_hand_${i}`;
    await createRun(db, {
      id,
      bankId: "hand",
      question: c.name,
      skill: null,
      budget: "low",
      mode: "synthesize",
      scope: "personal",
      model: { kind: "offline", name: "offline" },
    });
    await finishRun(db, id, {
      status: c.run.status ?? "done",
      answer: c.run.answer,
      citations: { mental_model_ids: [], observation_ids: [], memory_ids: c.run.cites ?? [] },
      dropped: [],
      flags: [],
      usage: { inputTokens: 1, outputTokens: 1 },
      llmCalls: c.run.llmCalls ?? 2,
      iterations: 1,
      warnings: [],
      error: null,
      durationMs: 10 * (i + 1),
    });
    // What the run's searches returned (finishRun reads it from its tool results; hand-made here).
    await db
      .update(runs)
      .set({ retrieved: c.run.retrieved ?? [] })
      .where(eq(runs.id, id));
    await linkExperimentRun(db, "exp_hand", i, id);
  }
  await finishExperiment(db, "exp_hand", "done");
  experiment = (await getExperiment(db, "exp_hand")) as Experiment;
});
afterAll(() => cleanup());

describe("each expectation kind on hand-made runs", () => {
  it.each(CASES.map((c, i) => [c.name, i] as const))("%s", (_name, i) => {
    const c = CASES[i] as Case;
    const row = experiment.rows[i];
    expect(row?.passed).toBe(c.passes);
    if (c.passes) {
      expect(row?.failures).toEqual([]);
      return;
    }
    const detail = row?.failures[0]?.detail ?? "";
    if (typeof c.reason === "string") expect(detail).toBe(c.reason);
    else expect(detail).toMatch(c.reason as RegExp);
    // Every reason is one line.
    expect(row?.failures.every((f) => !f.detail.includes("\n"))).toBe(true);
  });

  it("the scorecard counts them: passes, F1 over the questions with a gold answer, latency over every run", () => {
    const card = experiment.scorecard.overall;
    const passed = CASES.filter((c) => c.passes).length;
    expect(card).toMatchObject({ questions: CASES.length, finished: CASES.length, passed });
    expect(card.passRate).toBeCloseTo(passed / CASES.length);
    expect(card.latencyP50Ms).toBe(10 * Math.ceil(CASES.length / 2));
    expect(card.latencyP95Ms).toBe(10 * Math.ceil(CASES.length * 0.95));
    expect(experiment.scorecard.byTag.map((l) => l.tag)).toEqual(["kind"]);
  });
});
