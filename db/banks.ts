/** Banks: one bank = one memory namespace. Banks are created by bundle import (bundle-io.ts). */
import { and, asc, eq, getTableColumns, isNull } from "drizzle-orm";
import type { Db } from "./client";
import { banks } from "./schema";

/** A bank as every reader sees it: the import's staging owner is the importer's business alone. */
const { importOwner: _importOwner, ...bankColumns } = getTableColumns(banks);
export type BankRecord = Omit<typeof banks.$inferSelect, "importOwner">;

/** A bank a JSONL import is still filling (`importOwner` set) does not exist yet for anyone. */
export async function getBank(db: Db, id: string): Promise<BankRecord | null> {
  const [row] = await db
    .select(bankColumns)
    .from(banks)
    .where(and(eq(banks.id, id), isNull(banks.importOwner)));
  return row ?? null;
}

export async function listBanks(db: Db): Promise<BankRecord[]> {
  return db.select(bankColumns).from(banks).where(isNull(banks.importOwner)).orderBy(asc(banks.id));
}
