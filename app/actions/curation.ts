"use server";

import {
  AcceptRefreshInput,
  DiscardRefreshInput,
  MentalModelDraft,
  MentalModelRef,
  RefreshMentalModelInput,
  RestoreVersionInput,
} from "@/lib/contracts/mental-models";
import { NewSkillInput, SkillDraft, SkillRef, TrySkillInput } from "@/lib/contracts/skills";
import { defineAction } from "@/lib/server/http/action";
import { getAppDb } from "@/lib/server/runtime/db";
import {
  deleteMentalModelById,
  restoreMentalModelVersion,
  saveMentalModelDraft,
} from "@/lib/server/services/mental-models";
import { acceptRefresh, discardRefresh, refreshMentalModel } from "@/lib/server/services/refresh";
import { createBankSkill, deleteBankSkill, saveSkillDraft, trySkillDraft } from "@/lib/server/services/skills";

/** Creates or edits a mental model; a stale edit comes back as a conflict carrying the newer model. */
export async function saveMentalModelAction(input: MentalModelDraft) {
  return defineAction(MentalModelDraft, async (d) => saveMentalModelDraft(await getAppDb(), d))(input);
}

export async function deleteMentalModelAction(input: MentalModelRef) {
  return defineAction(MentalModelRef, async (d) => deleteMentalModelById(await getAppDb(), d))(input);
}

/** Waits for the refresh run (low budget, so seconds) and returns its proposal; nothing is saved. */
export async function refreshMentalModelAction(input: RefreshMentalModelInput) {
  return defineAction(RefreshMentalModelInput, async (d) => refreshMentalModel(await getAppDb(), d))(input);
}

/** Stores a usable refresh proposal as a new version (conflict-checked against the version it was proposed from). */
export async function acceptRefreshAction(input: AcceptRefreshInput) {
  return defineAction(AcceptRefreshInput, async (d) => acceptRefresh(await getAppDb(), d))(input);
}

/** Discards a refresh proposal: nothing is saved; the refresh run's list says "discarded". */
export async function discardRefreshAction(input: DiscardRefreshInput) {
  return defineAction(DiscardRefreshInput, async (d) => discardRefresh(await getAppDb(), d))(input);
}

/** Restores an old version as a new one (conflict-checked). */
export async function restoreMentalModelAction(input: RestoreVersionInput) {
  return defineAction(RestoreVersionInput, async (d) => restoreMentalModelVersion(await getAppDb(), d))(input);
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

/** Creates a skill (the API's create: a name taken in the bank is refused). */
export async function createSkillAction(input: NewSkillInput) {
  return defineAction(NewSkillInput, async (d) => createBankSkill(await getAppDb(), d))(input);
}

/** Deletes a skill; runs that used it keep their snapshot. */
export async function deleteSkillAction(input: SkillRef) {
  return defineAction(SkillRef, async (d) => deleteBankSkill(await getAppDb(), d))(input);
}
