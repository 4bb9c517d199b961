/** Skill CRUD for the API, with optimistic concurrency on `expectedVersion`. */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { getSkill, getSkillVersions, listSkills } from "@/db/queries/skills";
import { AppError } from "@/lib/contracts/errors";
import type { CreateSkillBody, SkillWithHistory, UpdateSkillBody } from "@/lib/contracts/skills";
import { createSkillRecord, deleteBankSkill, updateSkillFields } from "../../services/skills";

export async function skillList(db: Db, bankId: string) {
  return { skills: await listSkills(db, bankId) };
}

export async function skillDetail(db: Db, bankId: string, id: string) {
  const skill = await getSkill(db, { bankId, id });
  if (!skill) throw new AppError("not_found", `unknown skill "${id}" in bank ${bankId}`);
  const versions = (await getSkillVersions(db, bankId, id)).map(({ bankId: _bank, skillId: _skill, ...v }) => v);
  const detail: SkillWithHistory = { skill, versions };
  return detail;
}

export async function createSkill(db: Db, bankId: string, body: z.output<typeof CreateSkillBody>) {
  return createSkillRecord(db, { bankId, ...body });
}

/** PUT: the editor's service; the fields the body omits keep their value. */
export async function updateSkill(
  db: Db,
  bankId: string,
  id: string,
  { expectedVersion, ...changes }: z.output<typeof UpdateSkillBody>,
) {
  return updateSkillFields(db, { bankId, id, expectedVersion, changes });
}

export async function removeSkill(db: Db, bankId: string, id: string) {
  await deleteBankSkill(db, { bankId, id });
}
