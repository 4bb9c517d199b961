/** Banks for the API: list, and bundle import/export (db/bundle-io does validation and atomicity). */

import type { Db } from "@/db/client";
import { listBanks } from "@/db/queries/banks";
import { AppError } from "@/lib/contracts/errors";
import { exportBundle, importBundle } from "@/lib/server/services/bundle-io";

export async function bankList(db: Db) {
  return { banks: await listBanks(db) };
}

/** Takes the raw JSON so that every issue, cross-references included, is named by its bundle path. */
export function importBank(db: Db, rawBundle: unknown, replace: boolean) {
  return importBundle(db, rawBundle, { replace });
}

export async function exportBank(db: Db, bankId: string) {
  const bundle = await exportBundle(db, bankId);
  if (!bundle) throw new AppError("not_found", `unknown bank "${bankId}"`);
  return bundle;
}
