/** Reflect and recall for the API: thin layers over the run service and the memory store. */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { getSkill } from "@/db/queries/skills";
import { AppError } from "@/lib/contracts/errors";
import { type RecallBody, RecallResult } from "@/lib/contracts/memory";
import {
  type ReflectAccepted,
  type ReflectBody,
  type ReflectFinished,
  runLinks,
  toRunResult,
} from "@/lib/contracts/runs";
import type { Slot } from "../../runtime/admission";
import { recallTier } from "../../services/recall";
import { startRun } from "../../services/runs";

type Reflected =
  | { status: 202; body: z.output<typeof ReflectAccepted> }
  | { status: 200; body: z.output<typeof ReflectFinished> };

/** `slot`: the request's admission slot, held until the run ends (also after a `wait: false` 202). */
export async function reflect(
  db: Db,
  bankId: string,
  body: z.output<typeof ReflectBody>,
  slot?: Slot,
): Promise<Reflected> {
  // An unknown skill is a bad field of this request (400), not a missing resource.
  if (body.skill && !(await getSkill(db, { bankId, name: body.skill }))) {
    throw new AppError("invalid_input", `unknown skill "${body.skill}" in bank ${bankId}`, {
      fieldErrors: { skill: ["unknown skill"] },
    });
  }
  const { wait, ...request } = body;
  // The request's slot is the run's: startRun holds it until the run ends.
  const { runId, finished } = await startRun(db, { ...request, bankId }, { slot });
  const links = runLinks(runId);
  if (!wait) return { status: 202, body: { runId, status: "running", links } };
  return { status: 200, body: { ...toRunResult(runId, await finished), links } };
}

/** One tier's search, as the engine's tools run it (scope policy included). */
export async function recall(db: Db, bankId: string, q: z.output<typeof RecallBody>) {
  return RecallResult.parse(await recallTier(db, bankId, q));
}
