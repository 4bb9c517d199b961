/**
 * Skill CRUD for the API: translates path and body into the one service per operation
 * (lib/server/services/skills.ts), the same the editor's actions call.
 */
import type { z } from "zod";
import type { Db } from "@/db/client";
import type { CreateSkillBody, UpdateSkillBody } from "@/lib/contracts/skills";
import { createSkillRecord, deleteBankSkill, updateSkillFields } from "../../services/skills";

export { skillDetail, skillList } from "../../services/skills";

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
