"use server";

import { CancelExperimentInput, StartExperimentInput } from "@/lib/contracts/experiments";
import { AddToSuiteInput, SaveSuiteInput } from "@/lib/contracts/suites";
import { defineAction } from "@/lib/server/http/action";
import { getAppDb } from "@/lib/server/runtime/db";
import { cancelExperiment, startExperiment } from "@/lib/server/services/experiments";
import { addToSuite, saveBankSuite } from "@/lib/server/services/suites";

/** Saves the editor's suite as a new version (0 creates it); a stale version is a conflict. */
export async function saveSuiteAction(input: SaveSuiteInput) {
  return defineAction(SaveSuiteInput, async (data) => saveBankSuite(await getAppDb(), data))(input);
}

/** "Add to suite" on a run page. */
export async function addToSuiteAction(input: AddToSuiteInput) {
  return defineAction(AddToSuiteInput, async (data) => addToSuite(await getAppDb(), data))(input);
}

/** Starts an experiment and returns its id at once; the questions run in the background. */
export async function startExperimentAction(input: StartExperimentInput) {
  return defineAction(StartExperimentInput, async (data) => {
    const { experimentId } = await startExperiment(await getAppDb(), data);
    return { experimentId };
  })(input);
}

export async function cancelExperimentAction(input: CancelExperimentInput) {
  return defineAction(CancelExperimentInput, async (data) => {
    await cancelExperiment(await getAppDb(), data.id);
    return { id: data.id };
  })(input);
}
