"use server";

import { ModelCheckInput } from "@/lib/contracts/model-check";
import { defineAction } from "@/lib/server/http/action";
import { checkConfiguredModel } from "@/lib/server/runtime/model";

/** "Check model": probes the configured model server with a few tiny requests (never the key). */
export async function checkModelAction(input: ModelCheckInput) {
  return defineAction(ModelCheckInput, () => checkConfiguredModel())(input);
}
