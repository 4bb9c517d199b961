/**
 * Skills (per-use-case missions) of a bank: current state in `skills`, every version in
 * `skill_versions`. Names are unique within a bank. Saves use optimistic concurrency on `version`.
 */
import { randomUUID } from "node:crypto";
import { and, asc, desc, eq } from "drizzle-orm";
import { AppError } from "@/lib/contracts/errors";
import { canonicalJson } from "@/lib/reflect/call-signature";
import type { AnswerFormat, SkillSnapshot } from "@/lib/reflect/domain";
import type { Db } from "../client";
import { type SkillRetrieval, skills, skillVersions } from "../schema";
import { isConstraintViolation } from "./errors";

export type SkillRecord = typeof skills.$inferSelect;
export type SkillVersion = typeof skillVersions.$inferSelect;

export async function getSkill(
  db: Db,
  key: { bankId: string; id: string } | { bankId: string; name: string },
): Promise<SkillRecord | null> {
  const match = "id" in key ? eq(skills.id, key.id) : eq(skills.name, key.name);
  const [row] = await db
    .select()
    .from(skills)
    .where(and(eq(skills.bankId, key.bankId), match));
  return row ?? null;
}

export async function listSkills(db: Db, bankId: string): Promise<SkillRecord[]> {
  return db.select().from(skills).where(eq(skills.bankId, bankId)).orderBy(asc(skills.name));
}

export async function getSkillVersions(db: Db, bankId: string, id: string): Promise<SkillVersion[]> {
  return db
    .select()
    .from(skillVersions)
    .where(and(eq(skillVersions.bankId, bankId), eq(skillVersions.skillId, id)))
    .orderBy(desc(skillVersions.version));
}

export interface SaveSkill {
  bankId: string;
  id?: string;
  /** 0 to create; otherwise the version the edit was based on (a mismatch throws a `conflict` AppError carrying the current record). */
  expectedVersion: number;
  name: string;
  mission: string;
  disposition: string[];
  retrieval: SkillRetrieval;
  budget: "low" | "mid" | "high";
  anchorEvery: number;
  outputFormat: string;
  /** Defaults to prose (docs/engine.md#never-a-misleading-result: JSON answers are opt-in). */
  answerFormat?: AnswerFormat;
  at?: string;
}

export async function saveSkill(db: Db, input: SaveSkill): Promise<SkillRecord> {
  const id = input.id ?? `skill_${randomUUID()}`;
  const version = input.expectedVersion + 1;
  const at = new Date(input.at ?? Date.now()).toISOString();
  const state = {
    name: input.name,
    mission: input.mission,
    disposition: input.disposition,
    retrieval: input.retrieval,
    budget: input.budget,
    anchorEvery: input.anchorEvery,
    outputFormat: input.outputFormat,
    answerFormat: input.answerFormat ?? "prose",
  };
  const conflict = async () => {
    const current = await getSkill(db, { bankId: input.bankId, id });
    return new AppError(
      "conflict",
      current
        ? `skill ${id} is at version ${current.version}, not ${input.expectedVersion}`
        : `skill ${id} does not exist`,
      { current },
    );
  };
  const sameName = await getSkill(db, { bankId: input.bankId, name: input.name });
  if (sameName && sameName.id !== id) {
    throw new AppError("conflict", `a skill named "${input.name}" already exists in bank ${input.bankId}`, {
      current: sameName,
    });
  }
  const versionRow = db
    .insert(skillVersions)
    .values({ bankId: input.bankId, skillId: id, version, ...state, createdAt: at });
  try {
    if (input.expectedVersion === 0) {
      await db.batch([
        db.insert(skills).values({ bankId: input.bankId, id, version, updatedAt: at, ...state }),
        versionRow,
      ]);
    } else {
      const current = await getSkill(db, { bankId: input.bankId, id });
      if (!current || current.version !== input.expectedVersion) throw await conflict();
      // Saving what is already there is not an edit: no new version, no "no field changed" entry.
      const unchanged = (Object.keys(state) as (keyof typeof state)[]).every(
        (k) => canonicalJson(current[k]) === canonicalJson(state[k]),
      );
      if (unchanged) return current;
      const [updated] = await db.batch([
        db
          .update(skills)
          .set({ version, updatedAt: at, ...state })
          .where(and(eq(skills.bankId, input.bankId), eq(skills.id, id), eq(skills.version, input.expectedVersion))),
        versionRow,
      ]);
      if (updated.rowsAffected === 0) throw await conflict();
    }
  } catch (error) {
    if (isConstraintViolation(error)) throw await conflict();
    throw error;
  }
  // What was written, not read back: a libSQL replica may not show a forwarded write yet.
  return { id, bankId: input.bankId, version, updatedAt: at, ...state };
}

/** The exact skill a run uses, for the run record and the `run.started` event. */
export function toSkillSnapshot(skill: SkillRecord): SkillSnapshot {
  return {
    id: skill.id,
    name: skill.name,
    version: skill.version,
    mission: skill.mission,
    disposition: skill.disposition,
    retrieval: {
      tags: skill.retrieval.tags,
      types: skill.retrieval.types,
      scope: skill.retrieval.scope as SkillSnapshot["retrieval"]["scope"],
    },
    budget: skill.budget,
    anchorEvery: skill.anchorEvery,
    outputFormat: skill.outputFormat,
    answerFormat: skill.answerFormat,
  };
}

/** Deletes the live skill; its versions stay as its history, and runs keep the snapshot of the version they used. */
export async function deleteSkill(db: Db, bankId: string, id: string): Promise<boolean> {
  // The versions stay (as a mental model's do): a deleted skill's page says so, and its id is not reused.
  const deleted = await db.delete(skills).where(and(eq(skills.bankId, bankId), eq(skills.id, id)));
  return deleted.rowsAffected > 0;
}
