/** Skill CRUD for the API, with optimistic concurrency on `expectedVersion`. */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { deleteSkill, getSkill, getSkillVersions, listSkills, saveSkill } from "@/db/skills";
import { AppError } from "@/lib/contracts/errors";
import type { CreateSkillBody, SkillWithHistory, UpdateSkillBody } from "@/lib/contracts/skills";

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
  return saveSkill(db, { bankId, ...body, expectedVersion: 0 });
}

export async function updateSkill(db: Db, bankId: string, id: string, body: z.output<typeof UpdateSkillBody>) {
  const current = await getSkill(db, { bankId, id });
  if (!current) throw new AppError("not_found", `unknown skill "${id}" in bank ${bankId}`);
  const { expectedVersion, ...changes } = body;
  const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  return saveSkill(db, { ...current, ...defined, bankId, id, expectedVersion });
}

export async function removeSkill(db: Db, bankId: string, id: string) {
  if (!(await deleteSkill(db, bankId, id))) throw new AppError("not_found", `unknown skill "${id}" in bank ${bankId}`);
}
