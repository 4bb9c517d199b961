/**
 * Retain service: validates facts, stores them atomically, and reports the mental models the new
 * facts made stale (fresh before, stale after) so a caller knows what to refresh.
 */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { listMentalModels } from "@/db/mental-models";
import { insertFacts } from "@/db/retain";
import { RetainBody, type RetainResult } from "./api/schemas";

export async function retainFacts(db: Db, bankId: string, raw: z.input<typeof RetainBody>) {
  const { facts } = RetainBody.parse(raw);
  const wasStale = new Map((await listMentalModels(db, bankId)).map((m) => [m.id, m.isStale]));
  const { inserted, updated } = await insertFacts(db, bankId, facts);
  const staleMentalModels = (await listMentalModels(db, bankId))
    .filter((m) => m.isStale && wasStale.get(m.id) === false)
    .map((m) => ({ id: m.id, name: m.name, reason: m.stalenessReason }));
  const result: z.output<typeof RetainResult> = { bankId, inserted, updated, staleMentalModels };
  return result;
}
