"use server";

import { ForkInput, RerunInput, SaveRerunChangesInput } from "@/lib/contracts/rerun";
import { defineAction } from "@/lib/server/http/action";
import { getAppDb } from "@/lib/server/runtime/db";
import { forkRun, rerunWithChanges, saveRerunChanges } from "@/lib/server/services/rerun";

/** Starts the child run reading the drawer's edits as a draft; nothing is saved. */
export async function rerunAction(input: RerunInput) {
  return defineAction(RerunInput, async (data) => {
    const { runId } = await rerunWithChanges(await getAppDb(), data);
    return { runId };
  })(input);
}

/** Re-runs a run replaying its model responses before iteration `forkAt`. */
export async function forkAction(input: ForkInput) {
  return defineAction(ForkInput, async (data) => {
    const { runId } = await forkRun(await getAppDb(), data);
    return { runId };
  })(input);
}

/** "Save these changes": saves exactly the edits sent as new versions (all versions checked first). */
export async function saveRerunChangesAction(input: SaveRerunChangesInput) {
  return defineAction(SaveRerunChangesInput, async (d) => saveRerunChanges(await getAppDb(), d))(input);
}
