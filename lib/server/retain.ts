/**
 * Retain service: stores validated facts atomically, and reports the mental models the new
 * facts made stale (fresh before, stale after) so a caller knows what to refresh.
 */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { listMentalModels } from "@/db/mental-models";
import { insertFacts } from "@/db/retain";
import type { RetainBody, RetainResult } from "@/lib/contracts/memory";

export async function retainFacts(
  db: Db,
  bankId: string,
  { facts }: z.output<typeof RetainBody>,
): Promise<RetainResult> {
  const wasStale = new Map((await listMentalModels(db, bankId)).map((m) => [m.id, m.isStale]));
  const { inserted, updated } = await insertFacts(db, bankId, facts);
  const staleMentalModels = (await listMentalModels(db, bankId))
    .filter((m) => m.isStale && wasStale.get(m.id) === false)
    .map((m) => ({ id: m.id, name: m.name, reason: m.stalenessReason }));
  return { bankId, inserted, updated, staleMentalModels };
}
