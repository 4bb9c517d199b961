import type { Db } from "@/db/client";
import { type BankRecord, getBank, listBanks } from "@/db/queries/banks";
import { isScopePermitted } from "@/db/queries/scope";
import { listSkills } from "@/db/queries/skills";
import type { BankOption } from "@/lib/contracts/banks";
import { AppError } from "@/lib/contracts/errors";
import type { ScopeValue } from "@/lib/reflect/domain";
import { admit } from "../runtime/admission";
import { exportBundle, importBundle } from "./bundle-io";

/** A bank as stored (its permitted teams included). */
export type Bank = BankRecord;

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

/** The bank, or null (a door that answers an unknown bank its own way, e.g. as a usage error). */
export function findBank(db: Db, bankId: string): Promise<Bank | undefined | null> {
  return getBank(db, bankId);
}

/** Services that take a bank id from a page or a form: an unknown bank is `not_found`. */
export async function requireBank(db: Db, bankId: string): Promise<Bank> {
  const bank = await getBank(db, bankId);
  if (!bank) throw new AppError("not_found", `unknown bank "${bankId}"`);
  return bank;
}

/**
 * A team scope the bank does not permit is refused on every write that stores one (a skill's
 * retrieval scope, a suite question's scope), as a run with it is: `scope_not_permitted`, by field.
 */
export function assertScopePermitted(
  bank: { id: string; permittedTeams: string[] | null },
  scope: string | undefined,
  field: string,
): void {
  if (scope === undefined || isScopePermitted(scope as ScopeValue, bank.permittedTeams ?? [])) return;
  const teams = bank.permittedTeams?.length ? `it permits ${bank.permittedTeams.join(", ")}` : "it permits no team";
  throw new AppError("scope_not_permitted", `Bank ${bank.id} does not permit scope ${scope} (${teams}).`, {
    fieldErrors: { [field]: [`scope ${scope} is not permitted in bank ${bank.id}`] },
  });
}

/** The API's bank list. */
export async function bankList(db: Db) {
  return { banks: await listBanks(db) };
}

/**
 * The API's JSON bundle import. Takes the raw JSON so that every issue, cross-references included,
 * is named by its bundle path. Validated and written holding an `ingest` slot (docs/api.md): a whole
 * parsed bank in memory each, so a flood of them takes turns; a caller gone while it waits leaves the line.
 */
export async function importBank(db: Db, rawBundle: unknown, replace: boolean, signal?: AbortSignal) {
  const slot = await admit("ingest", signal);
  try {
    return await importBundle(db, rawBundle, { replace });
  } finally {
    slot.release();
  }
}

/** The bank as a bundle (lib/server/services/bundle-io.ts); an unknown bank is `not_found`. */
export async function exportBank(db: Db, bankId: string) {
  const bundle = await exportBundle(db, bankId);
  if (!bundle) throw new AppError("not_found", `unknown bank "${bankId}"`);
  return bundle;
}
