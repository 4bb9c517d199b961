/** Reflect and recall for the API: thin layers over the run service and the memory store. */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { type RecallBody, RecallResult } from "@/lib/contracts/memory";
import {
  type ReflectAccepted,
  type ReflectBody,
  type ReflectFinished,
  runLinks,
  toRunResult,
} from "@/lib/contracts/runs";
import type { Bank } from "../../services/banks";
import { recallTier } from "../../services/recall";
import { startRun } from "../../services/runs";

type Reflected =
  | { status: 202; body: z.output<typeof ReflectAccepted> }
  | { status: 200; body: z.output<typeof ReflectFinished> };

/**
 * `signal`: the request's (a client that goes away while queued for a reflect slot leaves the
 * line; startRun takes the slot and holds it until the run ends, also after a `wait: false` 202).
 * `bank`: the bank the request's path named, as `handle` read it (not read again).
 */
export async function reflect(
  db: Db,
  bankId: string,
  body: z.output<typeof ReflectBody>,
  request: { signal?: AbortSignal; bank?: Bank } = {},
): Promise<Reflected> {
  const { wait, ...input } = body;
  // An unknown skill is a bad field of this request (400), not a missing resource.
  const { runId, finished } = await startRun(
    db,
    { ...input, bankId },
    { signal: request.signal, prepared: { bank: request.bank }, unknownSkill: "invalid_input" },
  );
  const links = runLinks(runId);
  if (!wait) return { status: 202, body: { runId, status: "running", links } };
  return { status: 200, body: { ...toRunResult(runId, await finished), links } };
}

/** One tier's search, as the engine's tools run it (scope policy included). */
export async function recall(db: Db, bankId: string, q: z.output<typeof RecallBody>, signal?: AbortSignal) {
  return RecallResult.parse(await recallTier(db, bankId, q, { signal }));
}
