/**
 * Retain service: stores validated facts atomically, and reports the mental models the new
 * facts made stale (fresh before, stale after) so a caller knows what to refresh.
 */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { getBank } from "@/db/queries/banks";
import { listMentalModels } from "@/db/queries/mental-models";
import { insertFacts } from "@/db/queries/retain";
import { isScopePermitted } from "@/db/queries/scope";
import { AppError } from "@/lib/contracts/errors";
import type { RetainBody, RetainResult } from "@/lib/contracts/memory";

export async function retainFacts(
  db: Db,
  bankId: string,
  { facts }: z.output<typeof RetainBody>,
): Promise<RetainResult> {
  // Only a bank: never an import's staging or a replaced bank's storage (`~…`, db/queries/bank-storage.ts).
  const bank = await getBank(db, bankId);
  if (!bank) throw new AppError("not_found", `unknown bank "${bankId}"`);
  // A fact in a team scope the bank does not permit could never be read back: refuse it.
  const teams = bank.permittedTeams;
  const refused = facts.flatMap((f, i) => (isScopePermitted(f.scope, teams) ? [] : [[i, f.scope] as const]));
  if (refused.length > 0) {
    throw new AppError(
      "scope_not_permitted",
      `Bank ${bankId} does not permit scope ${refused[0]![1]}; nothing was stored.`,
      {
        fieldErrors: Object.fromEntries(
          refused.map(([i, scope]) => [`facts[${i}].scope`, [`scope ${scope} is not permitted`]]),
        ),
      },
    );
  }
  const wasStale = new Map((await listMentalModels(db, bankId)).map((m) => [m.id, m.isStale]));
  const { inserted, updated } = await insertFacts(db, bankId, facts);
  const staleMentalModels = (await listMentalModels(db, bankId))
    .filter((m) => m.isStale && wasStale.get(m.id) === false)
    .map((m) => ({ id: m.id, name: m.name, reason: m.stalenessReason }));
  return { bankId, inserted, updated, staleMentalModels };
}
