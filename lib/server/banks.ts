import { getBank, listBanks } from "@/db/banks";
import type { Db } from "@/db/client";
import { listSkills } from "@/db/skills";
import type { BankOption } from "@/lib/contracts/banks";
import { AppError } from "@/lib/contracts/errors";

/** Banks with their skills, for the start-run form and the run filters. */
export async function bankOptions(db: Db): Promise<BankOption[]> {
  const banks = await listBanks(db);
  return Promise.all(
    banks.map(async (b) => ({
      id: b.id,
      name: b.name,
      permittedTeams: b.permittedTeams,
      skills: (await listSkills(db, b.id)).map((s) => ({
        id: s.id,
        name: s.name,
        version: s.version,
        budget: s.budget,
        scope: s.retrieval.scope,
      })),
    })),
  );
}

/** Services that take a bank id from a page or a form: an unknown bank is `not_found`. */
export async function requireBank(db: Db, bankId: string) {
  const bank = await getBank(db, bankId);
  if (!bank) throw new AppError("not_found", `unknown bank "${bankId}"`);
  return bank;
}
