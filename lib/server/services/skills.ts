/**
 * Skill services for the inspector's pages: the list, the editor page (versions diffed),
 * optimistic-concurrency saves and "try this draft". The API (lib/server/http/api/skills.ts) and
 * the editor reach the same functions here: one service per operation.
 */
import type { z } from "zod";
import type { Db } from "@/db/client";
import {
  deleteSkill,
  getSkill,
  getSkillVersions,
  listSkills,
  type SaveSkill,
  type SkillRecord,
  saveSkill,
} from "@/db/queries/skills";
import { AppError } from "@/lib/contracts/errors";
import type {
  NewSkillInput,
  Skill,
  SkillDeleted,
  SkillDraft,
  SkillPage,
  SkillRef,
  SkillWithHistory,
  TrySkillInput,
} from "@/lib/contracts/skills";
import type { ModelPort, SkillSnapshot } from "@/lib/reflect";
import { skillChanges, versionHistory } from "@/lib/text/version-changes";
import { assertScopePermitted, requireBank } from "./banks";
import { editConflict, saveOrConflict } from "./edit-conflict";
import { type StartedRun, startRun } from "./runs";

function toSkill(s: SkillRecord): Skill {
  return {
    bankId: s.bankId,
    id: s.id,
    name: s.name,
    mission: s.mission,
    disposition: s.disposition,
    retrieval: { tags: s.retrieval.tags, types: s.retrieval.types, scope: s.retrieval.scope },
    budget: s.budget,
    anchorEvery: s.anchorEvery,
    outputFormat: s.outputFormat,
    answerFormat: s.answerFormat,
    version: s.version,
    updatedAt: s.updatedAt,
  };
}

export async function listBankSkills(db: Db, bankId: string): Promise<Skill[]> {
  await requireBank(db, bankId);
  return (await listSkills(db, bankId)).map(toSkill);
}

/** A deleted skill, as its page shows it: its last version's name and number, or null (never existed). */
export async function getDeletedSkill(
  db: Db,
  bankId: string,
  id: string,
): Promise<{ id: string; name: string; lastVersion: number } | null> {
  if (await getSkill(db, { bankId, id })) return null;
  const [last] = await getSkillVersions(db, bankId, id);
  return last ? { id, name: last.name, lastVersion: last.version } : null;
}

export async function getSkillPage(db: Db, bankId: string, id: string): Promise<SkillPage | null> {
  const skill = await getSkill(db, { bankId, id });
  if (!skill) return null;
  const versions = await getSkillVersions(db, bankId, id);
  return { skill: toSkill(skill), versions: versionHistory(versions, skillChanges) };
}

type SkillFields = Omit<SaveSkill, "bankId" | "id" | "expectedVersion" | "at">;

function slugOf(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
  return slug || "skill";
}

/** A readable id from the name that no skill, live or deleted (its versions are kept), holds. */
async function uniqueSkillId(db: Db, bankId: string, name: string): Promise<string> {
  const base = slugOf(name);
  for (let n = 1; ; n++) {
    const id = n === 1 ? base : `${base}-${n}`;
    if (!(await getSkill(db, { bankId, id })) && (await getSkillVersions(db, bankId, id)).length === 0) return id;
  }
}

/** Creates a skill at version 1, for the skills page and the API alike (an id from the name when none is given). */
export async function createSkillRecord(
  db: Db,
  input: { bankId: string; id?: string } & SkillFields,
): Promise<SkillRecord> {
  const bank = await requireBank(db, input.bankId);
  assertScopePermitted(bank, input.retrieval.scope, "retrieval.scope");
  if (input.id && (await getSkillVersions(db, input.bankId, input.id)).length > 0 && !(await getSkill(db, input))) {
    throw new AppError(
      "conflict",
      `skill ${input.id} was deleted; its history keeps the id, so create the skill under another id`,
      { current: null },
    );
  }
  const id = input.id ?? (await uniqueSkillId(db, input.bankId, input.name));
  return saveSkill(db, { ...input, id, expectedVersion: 0 });
}

/**
 * The one edit of a skill, behind the editor's Save and the API's PUT: a new version with the
 * fields in `changes` and every other field as it is. A version other than `expectedVersion` is a
 * `conflict` carrying the skill as it is now (null once deleted); a skill that never existed is
 * `not_found`.
 */
export async function updateSkillFields(
  db: Db,
  input: { bankId: string; id: string; expectedVersion: number; changes: Partial<SkillFields> },
): Promise<SkillRecord> {
  const { bankId, id, expectedVersion } = input;
  const current = await getSkill(db, { bankId, id });
  if (!current) {
    if ((await getSkillVersions(db, bankId, id)).length > 0) throw editConflict("skill", expectedVersion, null);
    throw new AppError("not_found", `unknown skill "${id}" in bank ${bankId}`);
  }
  if (current.version !== expectedVersion) throw editConflict("skill", expectedVersion, toSkill(current));
  if (input.changes.retrieval) {
    assertScopePermitted(await requireBank(db, bankId), input.changes.retrieval.scope, "retrieval.scope");
  }
  const changes = Object.fromEntries(Object.entries(input.changes).filter(([, v]) => v !== undefined));
  return saveOrConflict(
    "skill",
    expectedVersion,
    () => saveSkill(db, { ...current, ...changes, bankId, id, expectedVersion }),
    async () => {
      const now = await getSkill(db, { bankId, id });
      return now ? toSkill(now) : null;
    },
  );
}

/** The editor's Save: every field but the name, through the one edit above. */
export async function saveSkillDraft(db: Db, draft: z.output<typeof SkillDraft>): Promise<Skill> {
  const { bankId, id, expectedVersion, ...changes } = draft;
  return toSkill(await updateSkillFields(db, { bankId, id, expectedVersion, changes }));
}

/** Try: a run with the unsaved draft as its skill snapshot; the saved skill stays as it is. */
export async function trySkillDraft(
  db: Db,
  { draft, question }: z.output<typeof TrySkillInput>,
  options: { model?: ModelPort } = {},
): Promise<StartedRun> {
  const saved = await getSkill(db, { bankId: draft.bankId, id: draft.id });
  if (!saved) throw new AppError("not_found", `skill ${draft.id} does not exist`);
  const snapshot: SkillSnapshot = {
    id: saved.id,
    name: saved.name,
    // The version the draft was based on; the snapshot's own fields show what was actually used.
    version: draft.expectedVersion,
    mission: draft.mission,
    disposition: draft.disposition,
    retrieval: draft.retrieval,
    budget: draft.budget,
    anchorEvery: draft.anchorEvery,
    outputFormat: draft.outputFormat,
    answerFormat: draft.answerFormat,
    draft: true,
  };
  return startRun(
    db,
    { bankId: draft.bankId, question, skill: saved.name, mode: "synthesize" },
    { model: options.model, skillOverride: snapshot },
  );
}

/** The skills page's create, returned as the editor shows a skill. */
export async function createBankSkill(db: Db, input: z.output<typeof NewSkillInput>): Promise<Skill> {
  return toSkill(await createSkillRecord(db, { bankId: input.bankId, ...input.skill }));
}

/** The skill editor's delete: the API's service. */
export async function deleteBankSkill(db: Db, ref: z.output<typeof SkillRef>): Promise<SkillDeleted> {
  if (!(await deleteSkill(db, ref.bankId, ref.id))) {
    throw new AppError("not_found", `unknown skill "${ref.id}" in bank ${ref.bankId}`);
  }
  return { deleted: true };
}

/** The API's list: every skill of the bank as stored. */
export async function skillList(db: Db, bankId: string) {
  return { skills: await listSkills(db, bankId) };
}

/** The API's detail: the skill as stored with its versions, newest first. */
export async function skillDetail(db: Db, bankId: string, id: string): Promise<SkillWithHistory> {
  const skill = await getSkill(db, { bankId, id });
  if (!skill) throw new AppError("not_found", `unknown skill "${id}" in bank ${bankId}`);
  const versions = (await getSkillVersions(db, bankId, id)).map(({ bankId: _bank, skillId: _skill, ...v }) => v);
  return { skill, versions };
}
