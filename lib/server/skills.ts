/**
 * Skill services for the inspector's pages: the list, the editor page (versions diffed),
 * optimistic-concurrency saves and "try this draft". The API's record-level CRUD is api/skills.ts.
 */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { getSkill, getSkillVersions, listSkills, type SkillRecord, saveSkill } from "@/db/skills";
import { AppError } from "@/lib/contracts/errors";
import type {
  NewSkillInput,
  Skill,
  SkillDeleted,
  SkillDraft,
  SkillPage,
  SkillRef,
  TrySkillInput,
} from "@/lib/contracts/skills";
import type { ModelPort, SkillSnapshot } from "@/lib/reflect";
import { skillChanges, versionHistory } from "@/lib/timeline/version-changes";
import { createSkill, removeSkill } from "./api/skills";
import { requireBank } from "./banks";
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

export async function getSkillPage(db: Db, bankId: string, id: string): Promise<SkillPage | null> {
  const skill = await getSkill(db, { bankId, id });
  if (!skill) return null;
  const versions = await getSkillVersions(db, bankId, id);
  return { skill: toSkill(skill), versions: versionHistory(versions, skillChanges) };
}

/** Saves a skill edit as a new version; a stale `expectedVersion` is a `conflict` carrying the newer skill. */
export async function saveSkillDraft(db: Db, draft: z.output<typeof SkillDraft>): Promise<Skill> {
  const reload = async () => {
    const now = await getSkill(db, { bankId: draft.bankId, id: draft.id });
    return now ? toSkill(now) : null;
  };
  const current = await getSkill(db, { bankId: draft.bankId, id: draft.id });
  if (!current || current.version !== draft.expectedVersion) {
    throw editConflict("skill", draft.expectedVersion, current ? toSkill(current) : null);
  }
  const saved = await saveOrConflict(
    "skill",
    draft.expectedVersion,
    () => saveSkill(db, { ...draft, name: current.name }),
    reload,
  );
  return toSkill(saved);
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

/** The skills page's create: the API's service, returned as the editor shows a skill. */
export async function createBankSkill(db: Db, input: z.output<typeof NewSkillInput>): Promise<Skill> {
  await requireBank(db, input.bankId);
  return toSkill(await createSkill(db, input.bankId, input.skill));
}

/** The skill editor's delete: the API's service. */
export async function deleteBankSkill(db: Db, ref: z.output<typeof SkillRef>): Promise<SkillDeleted> {
  await removeSkill(db, ref.bankId, ref.id);
  return { deleted: true };
}
