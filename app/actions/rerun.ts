"use server";

import { ForkInput, RerunInput } from "@/lib/contracts/rerun";
import { defineAction } from "@/lib/server/action";
import { getAppDb } from "@/lib/server/db";
import { forkRun, rerunWithChanges } from "@/lib/server/rerun";

/** Saves the drawer's skill and mental-model edits as new versions, then starts the child run. */
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
