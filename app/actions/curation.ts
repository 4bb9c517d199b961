"use server";

import { MentalModelDraft, MentalModelRef, RefreshMentalModelInput } from "@/lib/contracts/mental-models";
import { SkillDraft, TrySkillInput } from "@/lib/contracts/skills";
import { defineAction } from "@/lib/server/action";
import { getAppDb } from "@/lib/server/db";
import { deleteMentalModelById, saveMentalModelDraft } from "@/lib/server/mental-models";
import { refreshMentalModel } from "@/lib/server/refresh";
import { saveSkillDraft, trySkillDraft } from "@/lib/server/skills";

/** Creates or edits a mental model; a stale edit comes back as a conflict carrying the newer model. */
export async function saveMentalModelAction(input: MentalModelDraft) {
  return defineAction(MentalModelDraft, async (d) => saveMentalModelDraft(await getAppDb(), d))(input);
}

export async function deleteMentalModelAction(input: MentalModelRef) {
  return defineAction(MentalModelRef, async (d) => deleteMentalModelById(await getAppDb(), d))(input);
}

/** Waits for the refresh run (low budget, so seconds) and returns it with the outcome. */
export async function refreshMentalModelAction(input: RefreshMentalModelInput) {
  return defineAction(RefreshMentalModelInput, async (d) => refreshMentalModel(await getAppDb(), d))(input);
}

/** Saves a skill edit; a stale edit comes back as a conflict carrying the newer skill. */
export async function saveSkillAction(input: SkillDraft) {
  return defineAction(SkillDraft, async (d) => saveSkillDraft(await getAppDb(), d))(input);
}

/** Starts a run with the unsaved draft and returns its id at once. */
export async function trySkillAction(input: TrySkillInput) {
  return defineAction(TrySkillInput, async (d) => {
    const { runId } = await trySkillDraft(await getAppDb(), d);
    return { runId };
  })(input);
}
