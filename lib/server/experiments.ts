/**
 * Experiments (docs/experiments.md): runs every question of a suite as an ordinary run (lib/server/runs.ts)
 * under one configuration, at most `concurrency` at a time, each linked to the experiment.
 * A draft (a skill version or unsaved mission, mental-model edits and staleness overrides) is
 * applied only to what these runs read: nothing is saved. Cancel stops new questions from
 * starting (runs already going finish); it is read from the database, so any process can cancel.
 */
import { randomBytes } from "node:crypto";
import type { z } from "zod";
import { getBank } from "@/db/banks";
import type { Db } from "@/db/client";
import {
  createExperiment,
  type ExperimentRecord,
  experimentLinkOfRun,
  finishExperiment,
  getExperimentRecord,
  getExperimentRuns,
  getExperimentStatus,
  linkExperimentRun,
  listExperimentRecords,
} from "@/db/experiments";
import { getJudgeRuns, getRun, type RunRecord } from "@/db/runs";
import { isScopePermitted } from "@/db/scope";
import { getSkill, getSkillVersions, listSkills, toSkillSnapshot } from "@/db/skills";
import { getSuite } from "@/db/suites";
import { AppError } from "@/lib/contracts/errors";
import type {
  ConfigSnapshot,
  Experiment,
  ExperimentComparison,
  ExperimentConfig,
  ExperimentProgress,
  ExperimentRow,
  ExperimentSummary,
  ExperimentTotals,
  StartExperimentInput,
} from "@/lib/contracts/experiments";
import { defaultSkillOf } from "@/lib/contracts/skills";
import type { SuiteQuestion } from "@/lib/contracts/suites";
import { compareExperiments } from "@/lib/experiments/compare";
import { evaluate } from "@/lib/experiments/evaluate";
import { buildRow, type RowRun, scorecardOf, totalsOf } from "@/lib/experiments/rows";
import type { ModelPort, ScopeValue, SkillSnapshot } from "@/lib/reflect";
import { plural } from "@/lib/timeline/format";
import { canJudge, judgementOf, judgeRun } from "./judge";
import { mentalModelDraftsOf, overlayMentalModels } from "./mental-model-drafts";
import { getModel } from "./model";
import { runOwner } from "./run-owner";
import { startRun } from "./runs";

export function newExperimentId(now = Date.now()): string {
  return `exp_${now.toString(36).padStart(9, "0")}${randomBytes(4).toString("hex")}`;
}

export interface StartedExperiment {
  experimentId: string;
  /** Resolves when every question has finished (or the experiment was cancelled or failed). */
  finished: Promise<Experiment>;
}

export interface ExperimentOptions {
  model?: ModelPort;
  /** Called after each question's run finishes (the CLI prints progress on stderr). */
  onProgress?: (progress: ExperimentProgress) => void;
}

/** The skill draft as snapshots by skill name: the saved version asked for, with the unsaved edits on top. */
async function skillDraftOf(db: Db, bankId: string, config: ExperimentConfig): Promise<Map<string, SkillSnapshot>> {
  const draft = config.skill;
  if (!draft) return new Map();
  const current = await getSkill(db, { bankId, name: draft.name });
  if (!current) {
    throw new AppError("not_found", `unknown skill "${draft.name}" in bank ${bankId}`, {
      fieldErrors: { "config.skill.name": ["unknown skill"] },
    });
  }
  const edited = draft.mission !== undefined || draft.disposition !== undefined;
  // The current version without edits is the current state: nothing to apply, and no draft.
  if (!edited && (draft.version === undefined || draft.version === current.version)) return new Map();
  let base = toSkillSnapshot(current);
  if (draft.version !== undefined && draft.version !== current.version) {
    const version = (await getSkillVersions(db, bankId, current.id)).find((v) => v.version === draft.version);
    if (!version) {
      throw new AppError(
        "not_found",
        `skill ${draft.name} has no version ${draft.version} (it is at ${current.version})`,
        {
          fieldErrors: { "config.skill.version": [`no version ${draft.version}`] },
        },
      );
    }
    base = toSkillSnapshot({ ...version, id: version.skillId, updatedAt: version.createdAt });
  }
  return new Map([
    [
      current.name,
      {
        ...base,
        mission: draft.mission ?? base.mission,
        disposition: draft.disposition ?? base.disposition,
        // Unsaved edits make the runs a draft on the version, never the saved skill (as "Try" does).
        ...(edited ? { draft: true } : {}),
      },
    ],
  ]);
}

/** The experiment's mental-model draft, each edit's errors named by its place in the config. */
const mentalModelDraftOf = (db: Db, bankId: string, config: ExperimentConfig) =>
  mentalModelDraftsOf(db, bankId, config.mentalModels, (i) => `config.mentalModels[${i}].id`);

async function requireSuiteAndSkills(db: Db, bankId: string, suiteName: string) {
  const bank = await getBank(db, bankId);
  if (!bank) {
    throw new AppError("not_found", `unknown bank "${bankId}"`, { fieldErrors: { bankId: ["unknown bank"] } });
  }
  const suite = await getSuite(db, bank.id, suiteName);
  if (!suite) {
    throw new AppError("not_found", `unknown suite "${suiteName}" in bank ${bank.id}`, {
      fieldErrors: { suite: ["unknown suite"] },
    });
  }
  if (suite.questions.length === 0) {
    throw new AppError("invalid_input", `suite ${suite.name} has no questions`, { fieldErrors: { suite: ["empty"] } });
  }
  // Every question must be startable: a missing skill or a team the bank does not permit is
  // refused before anything runs, never reported as a failed question.
  const skills = await listSkills(db, bank.id);
  const names = new Set(skills.map((s) => s.name));
  const defaultSkill = defaultSkillOf(skills);
  for (const [i, q] of suite.questions.entries()) {
    if (q.skill ? !names.has(q.skill) : !defaultSkill) {
      throw new AppError(
        "invalid_input",
        `question ${i + 1} runs skill "${q.skill ?? "(default)"}", which bank ${bank.id} does not have`,
        {
          fieldErrors: { [`questions[${i}].skill`]: ["unknown skill"] },
        },
      );
    }
    const scope = q.scope ?? skills.find((s) => s.name === (q.skill ?? defaultSkill?.name))?.retrieval.scope;
    if (scope && !isScopePermitted(scope as ScopeValue, bank.permittedTeams ?? [])) {
      throw new AppError("scope_not_permitted", `question ${i + 1}: bank ${bank.id} does not permit scope ${scope}`, {
        fieldErrors: { [`questions[${i}].scope`]: [`scope ${scope} is not permitted`] },
      });
    }
  }
  return { bank, suite, defaultSkillName: defaultSkill?.name ?? null };
}

/** Starts an experiment (validated input); returns its id at once and a promise of the finished experiment. */
export async function startExperiment(
  db: Db,
  input: z.output<typeof StartExperimentInput>,
  options: ExperimentOptions = {},
): Promise<StartedExperiment> {
  const { bank, suite, defaultSkillName } = await requireSuiteAndSkills(db, input.bankId, input.suite);
  // Every door (API, MCP, CLI, the page) asks for an incomplete baseline the same way, and the
  // permission without a baseline says nothing: refused rather than ignored.
  if (input.allowIncompleteBaseline && !input.baseline) {
    throw new AppError(
      "invalid_input",
      "allowIncompleteBaseline applies to a baseline: name the experiment to compare with",
      {
        fieldErrors: { allowIncompleteBaseline: ["applies only with a baseline"] },
      },
    );
  }
  if (input.baseline) {
    const base = await getExperimentRecord(db, input.baseline);
    if (!base || base.bankId !== bank.id) {
      // The field's message is part of the sentence, so a one-line reader (CLI, MCP) says it once.
      throw new AppError("not_found", `baseline "${input.baseline}" is not an experiment of bank ${bank.id}`, {
        fieldErrors: { baseline: [`not an experiment of bank ${bank.id}`] },
      });
    }
    // A baseline of another suite aligns no question, so the gate could not fail: refused.
    if (base.suite !== suite.name) {
      throw new AppError(
        "invalid_input",
        `baseline ${base.id} ran suite ${base.suite}, not ${suite.name}: compare experiments of one suite`,
        { fieldErrors: { baseline: [`ran suite ${base.suite}, not ${suite.name}`] } },
      );
    }
    const incomplete = incompleteReason(await toExperiment(db, base));
    if (incomplete && !input.allowIncompleteBaseline) {
      // A baseline that skipped questions would hide them from the gate: "0 regressions" of nothing.
      throw new AppError(
        "invalid_input",
        `baseline ${base.id} is not complete (${incomplete}): compare with a complete experiment, or allow an incomplete baseline (CLI --allow-incomplete-baseline, API allowIncompleteBaseline) to compare only the questions run on both sides`,
        { fieldErrors: { baseline: [`not complete: ${incomplete}`] } },
      );
    }
  }
  const skillDrafts = await skillDraftOf(db, bank.id, input.config);
  const mmDrafts = await mentalModelDraftOf(db, bank.id, input.config);
  const model = options.model ?? getModel({ db, bankId: bank.id });
  const config: ConfigSnapshot = {
    ...input.config,
    model: { kind: model.info.kind, name: model.info.name },
    draft: skillDrafts.size > 0 || mmDrafts.length > 0,
  };
  const id = newExperimentId();
  const questions = suite.questions;
  await createExperiment(db, {
    id,
    bankId: bank.id,
    suite: suite.name,
    suiteVersion: suite.version,
    questions,
    config,
    concurrency: input.concurrency,
    baselineId: input.baseline ?? null,
    ownerId: await runOwner(db),
  });

  const overlay = overlayMentalModels(mmDrafts);
  let finishedCount = 0;
  let passed = 0;
  const progress = (status: ExperimentProgress["status"]) =>
    options.onProgress?.({
      status,
      questions: questions.length,
      finished: finishedCount,
      passed,
      failed: finishedCount - passed,
    });

  const runQuestion = async (idx: number, q: SuiteQuestion) => {
    const skillName = q.skill ?? defaultSkillName ?? undefined;
    const skillOverride = skillName ? skillDrafts.get(skillName) : undefined;
    const { runId, finished } = await startRun(
      db,
      {
        bankId: bank.id,
        question: q.question,
        skill: skillName,
        budget: input.config.budget ?? q.budget,
        mode: q.mode ?? "synthesize",
        scope: q.scope,
      },
      {
        model: options.model ?? getModel({ db, bankId: bank.id }),
        skillOverride,
        memoryOverlay: overlay,
        mentalModelDrafts: mmDrafts,
        // Each question waits for a reflect slot like any run, in line past the queue cap (never refused).
        patient: true,
      },
    );
    await linkExperimentRun(db, id, idx, runId);
    const result = await finished;
    // The judge grades an answer only: a run that broke or degraded fails without one.
    const judge = q.expect?.judge ? (options.model ?? getModel({ db, bankId: bank.id })) : null;
    const judgement =
      judge && q.expect?.answer !== undefined && canJudge(judge) && !NO_ANSWER.has(result.status)
        ? await judgeRun(
            db,
            judge,
            { id: runId, bankId: bank.id, question: q.question, answer: result.answer },
            q.expect.answer,
          )
        : null;
    finishedCount++;
    if (evaluate(q, { ...result, judgement }).passed) passed++;
    progress("running");
  };

  const finished = (async (): Promise<Experiment> => {
    let next = 0;
    let error: string | null = null;
    let cancelled = false;
    const worker = async () => {
      while (!cancelled && error === null) {
        const idx = next++;
        const q = questions[idx];
        if (!q) return;
        // Cancel is a row state: whichever process cancels, no further question starts.
        if ((await getExperimentStatus(db, id)) !== "running") {
          cancelled = true;
          return;
        }
        try {
          await runQuestion(idx, q);
        } catch (err) {
          error ??= `question ${idx + 1}: ${err instanceof Error ? err.message : String(err)}`;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(input.concurrency, questions.length) }, worker));
    if (error !== null) await finishExperiment(db, id, "failed", error);
    else if (!cancelled) await finishExperiment(db, id, "done");
    const experiment = await requireExperiment(db, id);
    progress(experiment.status);
    return experiment;
  })();
  finished.catch((err: unknown) => console.error(`experiment ${id} could not be finished:`, err));
  return { experimentId: id, finished };
}

/** Why an experiment is not a complete baseline (still running, failed, cancelled, questions skipped), or null. */
export function incompleteReason(e: Experiment): string | null {
  const skipped = e.rows.filter((r) => r.status === "skipped" || r.status === "pending").length;
  const parts = [
    e.status === "done" ? null : e.status,
    skipped ? `${skipped} of ${e.rows.length} questions never ran` : null,
  ].filter((p) => p !== null);
  return parts.length ? parts.join(", ") : null;
}

/** How a run fared as its experiment's question (the run page): the row, with why it failed. */
export async function experimentRowOfRun(
  db: Db,
  runId: string,
): Promise<{ experimentId: string; suite: string; row: ExperimentRow } | null> {
  const link = await experimentLinkOfRun(db, runId);
  if (!link) return null;
  const [record, run] = await Promise.all([getExperimentRecord(db, link.experimentId), getRun(db, runId)]);
  const question = record?.questions[link.idx];
  if (!record || !run || !question) return null;
  const judge = question.expect?.judge ? (await getJudgeRuns(db, [runId])).get(runId) : undefined;
  return {
    experimentId: record.id,
    suite: record.suite,
    row: buildRow(link.idx, question, toRowRun(run, judge), record.status !== "running"),
  };
}

/** Run endings with no answer to judge. */
const NO_ANSWER = new Set(["failed", "interrupted", "degraded"]);

/** Stops new questions from starting; runs already going finish and stay in the experiment. */
export async function cancelExperiment(db: Db, id: string): Promise<Experiment> {
  const record = await getExperimentRecord(db, id);
  if (!record) throw new AppError("not_found", `unknown experiment "${id}"`);
  if (record.status !== "running") {
    throw new AppError("conflict", `experiment ${id} is ${record.status}, not running`, {
      current: await toExperiment(db, record),
    });
  }
  await finishExperiment(db, id, "cancelled", "cancelled: questions not yet started were skipped");
  return requireExperiment(db, id);
}

const toRowRun = (r: RunRecord, judge: RunRecord | undefined): RowRun => ({
  judgement: judge ? judgementOf(judge) : null,
  id: r.id,
  status: r.status,
  answer: r.answer,
  citations: r.citations,
  llmCalls: r.llmCalls,
  flags: r.flags,
  inputTokens: r.inputTokens,
  outputTokens: r.outputTokens,
  durationMs: r.durationMs,
  retrieved: r.retrieved,
});

async function toExperiment(db: Db, record: ExperimentRecord): Promise<Experiment> {
  const runs = await getExperimentRuns(db, record.id);
  const judges = record.questions.some((q) => q.expect?.judge)
    ? await getJudgeRuns(
        db,
        [...runs.values()].map((r) => r.id),
      )
    : new Map<string, RunRecord>();
  const rows = record.questions.map((q, idx) => {
    const run = runs.get(idx);
    return buildRow(idx, q, run ? toRowRun(run, judges.get(run.id)) : null, record.status !== "running");
  });
  return {
    id: record.id,
    bankId: record.bankId,
    suite: record.suite,
    suiteVersion: record.suiteVersion,
    config: record.config,
    status: record.status,
    concurrency: record.concurrency,
    baselineId: record.baselineId,
    error: record.error,
    createdAt: record.createdAt,
    finishedAt: record.finishedAt,
    totals: totalsOf(rows),
    scorecard: scorecardOf(rows),
    skillVersions: skillVersionsOf([...runs.values()]),
    rows,
  };
}

/** "qa v3", "qa v2 (draft)": each skill version the runs ran, once, sorted. */
function skillVersionsOf(runs: readonly RunRecord[]): string[] {
  const names = runs
    .filter((r) => r.skillName)
    .map((r) => `${r.skillName} v${r.skillVersion ?? "?"}${r.skillSnapshot?.draft ? " (draft)" : ""}`);
  return [...new Set(names)].sort();
}

export async function getExperiment(db: Db, id: string): Promise<Experiment | null> {
  const record = await getExperimentRecord(db, id);
  return record ? toExperiment(db, record) : null;
}

export async function requireExperiment(db: Db, id: string): Promise<Experiment> {
  const e = await getExperiment(db, id);
  if (!e) throw new AppError("not_found", `unknown experiment "${id}"`);
  return e;
}

const summaryOf = ({ rows: _rows, ...summary }: Experiment): ExperimentSummary => summary;

export async function listExperiments(
  db: Db,
  filter: { bankId: string; suite?: string; limit?: number },
): Promise<ExperimentSummary[]> {
  const records = await listExperimentRecords(db, filter);
  return Promise.all(records.map(async (r) => summaryOf(await toExperiment(db, r))));
}

export async function getExperimentComparison(db: Db, baseId: string, headId: string): Promise<ExperimentComparison> {
  const [base, head] = await Promise.all([getExperiment(db, baseId), getExperiment(db, headId)]);
  if (!base || !head) {
    const missing = [base ? null : `base (${baseId})`, head ? null : `head (${headId})`].filter((m) => m !== null);
    throw new AppError("not_found", `No experiment ${missing.join(" and no experiment ")}.`);
  }
  const questions = compareExperiments(base.rows, head.rows);
  return {
    base: summaryOf(base),
    head: summaryOf(head),
    questions,
    totals: {
      regressions: questions.filter((q) => q.regression).length,
      improvements: questions.filter((q) => q.improvement).length,
    },
  };
}

/** The progress frame of a stored experiment (the page's progress bar). */
export function progressOf(e: Experiment): ExperimentProgress {
  return {
    status: e.status,
    questions: e.totals.questions,
    finished: e.totals.finished,
    passed: e.totals.passed,
    failed: e.totals.failed,
  };
}

/** The skills a suite's questions run (a question without one runs the bank's default skill). */
export async function suiteSkillNames(db: Db, bankId: string, suiteName: string): Promise<string[]> {
  const { suite, defaultSkillName } = await requireSuiteAndSkills(db, bankId, suiteName);
  return [...new Set(suite.questions.map((q) => q.skill ?? defaultSkillName ?? ""))].filter(Boolean).sort();
}

/** "3 questions: 1 passed, 0 failed, 2 skipped (not run)": the totals line of the CLI table and MCP. */
export function totalsSentence(t: ExperimentTotals): string {
  const skipped = t.skipped ? `, ${t.skipped} skipped (not run)` : "";
  return `${plural(t.questions, "question")}: ${t.passed} passed, ${t.failed} failed${skipped}`;
}
