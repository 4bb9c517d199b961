"use server";

import { StartRunInput } from "@/lib/contracts/runs";
import { defineAction } from "@/lib/server/http/action";
import { getAppDb } from "@/lib/server/runtime/db";
import { startRun } from "@/lib/server/services/runs";

/** Starts a run and returns its id at once; the engine keeps going in the background. */
export async function startRunAction(input: StartRunInput) {
  return defineAction(StartRunInput, async (data) => {
    const { runId } = await startRun(await getAppDb(), data);
    return { runId };
  })(input);
}
