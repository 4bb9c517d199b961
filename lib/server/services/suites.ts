/**
 * Suite services (docs/experiments.md): save with a version check, import/export JSONL, add one question from
 * a run. Every caller parses its own transport's input against lib/contracts/suites.ts first.
 */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { getBank } from "@/db/queries/banks";
import { getLastRunEvent, getRun } from "@/db/queries/runs";
import { listSkills } from "@/db/queries/skills";
import { deleteSuite, getSuite, getSuiteVersions, listSuites, saveSuite } from "@/db/queries/suites";
import { AppError } from "@/lib/contracts/errors";
import type { AddToSuiteInput, SaveSuiteInput, Suite, SuiteQuestion, SuiteWithHistory } from "@/lib/contracts/suites";
import { badJsonlLine, parseSuiteJsonlLines, toSuiteJsonl } from "@/lib/experiments/jsonl";
import { suggestExpectations } from "@/lib/experiments/suggest";
import { Scope } from "@/lib/reflect/domain";
import { assertScopePermitted } from "./banks";

async function requireBank(db: Db, bankId: string) {
  const bank = await getBank(db, bankId);
  if (!bank) throw new AppError("not_found", `unknown bank "${bankId}"`, { fieldErrors: { bankId: ["unknown bank"] } });
  return bank;
}

async function requireSuite(db: Db, bankId: string, name: string): Promise<Suite> {
  await requireBank(db, bankId);
  const suite = await getSuite(db, bankId, name);
  if (!suite) throw new AppError("not_found", `unknown suite "${name}" in bank ${bankId}`);
  return suite;
}

export async function listBankSuites(db: Db, bankId: string) {
  await requireBank(db, bankId);
  return listSuites(db, bankId);
}

export async function getSuiteWithHistory(db: Db, bankId: string, name: string): Promise<SuiteWithHistory> {
  const suite = await requireSuite(db, bankId, name);
  return { ...suite, versions: await getSuiteVersions(db, bankId, name) };
}

/**
 * The rules every door applies to a suite's questions (the editor, "Add to suite", the API, JSONL):
 * a skill the bank has, a scope the bank permits. `where(i)` names question i in the refusal.
 */
async function checkQuestions(
  db: Db,
  bank: { id: string; permittedTeams: string[] | null },
  questions: readonly Pick<SuiteQuestion, "skill" | "scope">[],
  where: (i: number) => { path: string; fail?: (message: string) => Error },
): Promise<void> {
  const skills = (await listSkills(db, bank.id)).map((s) => s.name);
  for (const [i, q] of questions.entries()) {
    const { path, fail } = where(i);
    if (q.skill !== undefined && !skills.includes(q.skill)) {
      const has = skills.length ? `it has ${skills.join(", ")}` : "it has no skills";
      const message = `skill "${q.skill}" is not a skill of bank ${bank.id} (${has})`;
      throw fail
        ? fail(message)
        : new AppError("invalid_input", message, { fieldErrors: { [`${path}.skill`]: [message] } });
    }
    assertScopePermitted(bank, q.scope, `${path}.scope`);
  }
}

export async function saveBankSuite(db: Db, input: z.output<typeof SaveSuiteInput>): Promise<Suite> {
  const bank = await requireBank(db, input.bankId);
  await checkQuestions(db, bank, input.questions, (i) => ({ path: `questions[${i}]` }));
  return saveSuite(db, input);
}

export async function removeSuite(db: Db, bankId: string, name: string): Promise<void> {
  await requireSuite(db, bankId, name);
  await deleteSuite(db, bankId, name);
}

/** "Add to suite": appends the question, creating the suite when `expectedVersion` is 0. */
export async function addToSuite(db: Db, input: z.output<typeof AddToSuiteInput>): Promise<Suite> {
  const bank = await requireBank(db, input.bankId);
  await checkQuestions(db, bank, [input.question], () => ({ path: "question" }));
  const current = await getSuite(db, input.bankId, input.name);
  return saveSuite(db, {
    bankId: input.bankId,
    name: input.name,
    description: current?.description ?? "",
    questions: [...(current?.questions ?? []), input.question],
    expectedVersion: input.expectedVersion,
  });
}

/**
 * Replaces the suite's questions with the JSONL document's (a new version; the suite is created
 * when it does not exist). A bad line refuses the whole document, naming the line.
 */
export async function importSuiteJsonl(db: Db, bankId: string, name: string, text: string): Promise<Suite> {
  const bank = await requireBank(db, bankId);
  const lines = parseSuiteJsonlLines(text);
  if (lines.length === 0) throw new AppError("invalid_input", "the file holds no questions; nothing was imported");
  // A question naming a skill the bank does not have could never run: refused here, by its line.
  await checkQuestions(
    db,
    bank,
    lines.map((l) => l.question),
    (i) => ({ path: `line ${lines[i]!.line}`, fail: (message) => badJsonlLine(lines[i]!.line, message) }),
  );
  const questions = lines.map((l) => l.question);
  const current = await getSuite(db, bankId, name);
  return saveSuite(db, {
    bankId,
    name,
    description: current?.description ?? "",
    questions,
    expectedVersion: current?.version ?? 0,
  });
}

export async function exportSuiteJsonl(db: Db, bankId: string, name: string): Promise<string> {
  return toSuiteJsonl((await requireSuite(db, bankId, name)).questions);
}

/**
 * What "Add to suite" on a run page is filled with: the run's inputs, expectations suggested from
 * what it did (its status, its citations, its LLM calls), and the bank's suites. Null while running.
 */
export async function addToSuiteContext(db: Db, runId: string) {
  const run = await getRun(db, runId);
  if (!run || run.status === "running") return null;
  const probe = await getLastRunEvent(db, runId, "probe.finished");
  const { suggested, ticked, why } = suggestExpectations(run, probe?.payload ?? null);
  const question: Omit<SuiteQuestion, "expect"> = {
    question: run.question,
    skill: run.skillName ?? undefined,
    budget: run.budget,
    mode: run.mode,
    scope: Scope.parse(run.scope),
  };
  return { bankId: run.bankId, question, suggested, ticked, why, suites: await listSuites(db, run.bankId) };
}
