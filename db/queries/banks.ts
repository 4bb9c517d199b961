/** Banks: one bank = one memory namespace. Banks are created by bundle import (bundle-io.ts). */
import { and, asc, eq, getTableColumns, isNull, notLike } from "drizzle-orm";
import type { Db } from "../client";
import { banks } from "../schema";

/**
 * A bank as every reader sees it: the import's staging owner is the importer's business alone, and
 * where its memories are stored (bank-storage.ts) is the store's.
 */
const { importOwner: _importOwner, storageId: _storageId, ...bankColumns } = getTableColumns(banks);
export type BankRecord = Omit<typeof banks.$inferSelect, "importOwner" | "storageId">;

/**
 * A bank a JSONL import is still filling (`importOwner` set) does not exist yet for anyone, and a
 * `~…` row is no bank at all: an import's staging or a replaced bank's storage (bank-storage.ts).
 */
const visible = and(isNull(banks.importOwner), notLike(banks.id, "~%"));

export async function getBank(db: Db, id: string): Promise<BankRecord | null> {
  const [row] = await db
    .select(bankColumns)
    .from(banks)
    .where(and(eq(banks.id, id), visible));
  return row ?? null;
}

export async function listBanks(db: Db): Promise<BankRecord[]> {
  return db.select(bankColumns).from(banks).where(visible).orderBy(asc(banks.id));
}
