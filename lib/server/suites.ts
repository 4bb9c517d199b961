/**
 * Suite services (SPEC §7): save with a version check, import/export JSONL, add one question from
 * a run. Every caller parses its own transport's input against lib/contracts/suites.ts first.
 */
import type { z } from "zod";
import { getBank } from "@/db/banks";
import type { Db } from "@/db/client";
import { deleteSuite, getSuite, getSuiteVersions, listSuites, saveSuite } from "@/db/suites";
import { AppError } from "@/lib/contracts/errors";
import type { AddToSuiteInput, SaveSuiteInput, Suite, SuiteWithHistory } from "@/lib/contracts/suites";
import { parseSuiteJsonl, toSuiteJsonl } from "@/lib/experiments/jsonl";

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

export async function saveBankSuite(db: Db, input: z.output<typeof SaveSuiteInput>): Promise<Suite> {
  await requireBank(db, input.bankId);
  return saveSuite(db, input);
}

export async function removeSuite(db: Db, bankId: string, name: string): Promise<void> {
  await requireSuite(db, bankId, name);
  await deleteSuite(db, bankId, name);
}

/** "Add to suite": appends the question, creating the suite when `expectedVersion` is 0. */
export async function addToSuite(db: Db, input: z.output<typeof AddToSuiteInput>): Promise<Suite> {
  await requireBank(db, input.bankId);
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
  await requireBank(db, bankId);
  const questions = parseSuiteJsonl(text);
  if (questions.length === 0) throw new AppError("invalid_input", "the file holds no questions; nothing was imported");
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
