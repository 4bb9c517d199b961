import type { Db } from "@/db/client";
import { createRun, createRunSink, finishRun, getJudgeRuns, getRun, type RunRecord } from "@/db/queries/runs";
import type { Judgement } from "@/lib/experiments/evaluate";
import { judgeMessages, readVerdict, recordedVerdict, verdictText } from "@/lib/experiments/judge";
import type { ModelPort, RunEvent, SkillSnapshot } from "@/lib/reflect";
import { emptyCitations } from "@/lib/reflect/domain";
import { admit } from "../runtime/admission";
import { runOwner } from "../runtime/run-owner";
import { newRunId } from "./runs";

/** The judge "skill" a judge run records (it searches nothing: one call, no tools). */
const JUDGE_SKILL: SkillSnapshot = {
  id: "judge",
  name: "judge",
  version: 1,
  mission: "Grade an answer against the gold answer (the judge expectation).",
  disposition: [],
  retrieval: { tags: [], types: ["episodic"], scope: "personal" },
  budget: "low",
  anchorEvery: 50,
  outputFormat: "",
  answerFormat: "prose",
};

/** Whether a model can judge: the offline model cannot grade an answer. */
export const canJudge = (model: ModelPort) => model.info.kind !== "offline";

/** Grades `judged`'s answer against `gold` with one call of `model`; the judge run's verdict (null: none). */
export async function judgeRun(
  db: Db,
  model: ModelPort,
  judged: { id: string; bankId: string; question: string; answer: string | null },
  gold: string | readonly string[],
): Promise<Judgement> {
  const runId = newRunId();
  const messages = judgeMessages(judged.question, gold, judged.answer ?? "");
  // What the judge run is, as its row and its run.started event both record it.
  const setup = {
    bankId: judged.bankId,
    question: `Judge: ${judged.question}`,
    skill: JUDGE_SKILL,
    budget: "low",
    mode: "synthesize",
    scope: "personal",
    model: model.info,
  } as const;
  // A judge run is a run: it holds a reflect slot while it runs, as every run does whatever started
  // it (lib/server/runtime/admission.ts), waiting in line like its experiment's questions.
  const slot = await admit("reflect", undefined, { patient: true });
  try {
    return await judgeWithSlot(db, model, judged, runId, setup, messages);
  } finally {
    slot.release();
  }
}

async function judgeWithSlot(
  db: Db,
  model: ModelPort,
  judged: { id: string; bankId: string; question: string; answer: string | null },
  runId: string,
  setup: {
    bankId: string;
    question: string;
    skill: SkillSnapshot;
    budget: "low";
    mode: "synthesize";
    scope: "personal";
    model: ModelPort["info"];
  },
  messages: ReturnType<typeof judgeMessages>,
): Promise<Judgement> {
  await createRun(db, {
    id: runId,
    ...setup,
    judgeOf: judged.id,
    ownerId: await runOwner(db),
  });
  const sink = createRunSink(db, runId);
  const started = Date.now();
  let seq = 0;
  const emit = (type: RunEvent["type"], payload: unknown, iteration?: number) =>
    sink.append({
      runId,
      seq: seq++,
      at: Date.now() - started,
      type,
      ...(iteration === undefined ? {} : { iteration }),
      payload,
    } as RunEvent);
  await emit("run.started", {
    ...setup,
    maxIterations: 1,
    anchorEvery: JUDGE_SKILL.anchorEvery,
    enabledTiers: [],
    toolResultCapChars: 1,
    wallClockMs: 120_000,
    parentRunId: null,
    forkedAtIteration: null,
    warnings: [`judge of run ${judged.id}`],
  });
  await emit("llm.request", { messages, tools: [], toolChoice: { type: "auto" }, injections: [] }, 1);
  await sink.flush();
  let reply: string | null = null;
  let usage = { inputTokens: 0, outputTokens: 0 };
  let error: string | null = null;
  const callStarted = Date.now();
  try {
    const res = await model.complete({ messages, tools: [], toolChoice: "auto" });
    reply = res.content;
    usage = res.usage;
    await emit(
      "llm.response",
      {
        text: res.content,
        toolCalls: [],
        finishReason: res.finishReason,
        tokensIn: res.usage.inputTokens,
        tokensOut: res.usage.outputTokens,
        latencyMs: Date.now() - callStarted,
        replayed: false,
      },
      1,
    );
  } catch (err) {
    error = `the judge model call failed: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`;
  }
  const verdict = error === null ? readVerdict(reply) : null;
  if (error === null && verdict === null)
    error = `the judge's reply has no CORRECT/WRONG label: ${JSON.stringify((reply ?? "").slice(0, 120))}`;
  const result = {
    status: verdict ? ("done" as const) : ("failed" as const),
    answer: verdict ? verdictText(verdict) : "",
    citations: emptyCitations(),
    dropped: [],
    flags: [],
    usage,
    llmCalls: 1,
    iterations: 1,
    warnings: [],
    error: error === null ? null : { message: error, phase: "judge" },
    probe: null,
  };
  await emit("run.finished", result);
  await sink.flush();
  await finishRun(db, runId, { ...result, durationMs: Date.now() - started });
  return verdict ? { ...verdict, runId } : { correct: null, reason: error ?? "no verdict", runId };
}

/** A judge run's verdict as evaluation reads it. */
export function judgementOf(run: RunRecord): Judgement {
  const verdict = recordedVerdict(run.status, run.answer);
  if (verdict) return { ...verdict, runId: run.id };
  return {
    correct: null,
    reason:
      run.status === "running" ? "the judge is still running" : (run.error?.message ?? "the judge gave no verdict"),
    runId: run.id,
  };
}

/** The run page's links: the run a judge run graded, and the judge run that graded this run. */
export async function judgeLinksOf(
  db: Db,
  runId: string,
): Promise<{ judgeOf: string | null; judgedBy: { runId: string; verdict: string } | null }> {
  const run = await getRun(db, runId);
  if (!run) return { judgeOf: null, judgedBy: null };
  const judge = (await getJudgeRuns(db, [runId])).get(runId);
  const j = judge ? judgementOf(judge) : null;
  return {
    judgeOf: run.judgeOf,
    judgedBy: j
      ? {
          runId: j.runId,
          verdict: j.correct === null ? `not judged: ${j.reason}` : `${j.correct ? "correct" : "wrong"}: ${j.reason}`,
        }
      : null,
  };
}
