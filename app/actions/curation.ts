"use server";

import {
  MentalModelDraft,
  MentalModelRef,
  RefreshMentalModelInput,
  SkillDraft,
  TrySkillInput,
} from "@/lib/query/curation";
import { defineAction } from "@/lib/server/action";
import {
  defineSaveAction,
  deleteMentalModelById,
  refreshMentalModel,
  saveMentalModelDraft,
  saveSkillDraft,
  trySkillDraft,
} from "@/lib/server/curation";
import { getAppDb } from "@/lib/server/db";

/** Creates or edits a mental model; a stale edit comes back as a conflict with the newer model. */
export async function saveMentalModelAction(input: unknown) {
  return defineSaveAction(MentalModelDraft, async (d) => saveMentalModelDraft(await getAppDb(), d))(input);
}

export async function deleteMentalModelAction(input: unknown) {
  return defineAction(MentalModelRef, async (d) => deleteMentalModelById(await getAppDb(), d))(input);
}

/** Waits for the refresh run (low budget, so seconds) and returns it with the outcome. */
export async function refreshMentalModelAction(input: unknown) {
  return defineAction(RefreshMentalModelInput, async (d) => refreshMentalModel(await getAppDb(), d))(input);
}

export async function saveSkillAction(input: unknown) {
  return defineSaveAction(SkillDraft, async (d) => saveSkillDraft(await getAppDb(), d))(input);
}

/** Starts a run with the unsaved draft and returns its id at once. */
export async function trySkillAction(input: unknown) {
  return defineAction(TrySkillInput, async (d) => {
    const { runId } = await trySkillDraft(await getAppDb(), d);
    return { runId };
  })(input);
}
