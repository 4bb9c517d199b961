/** Banks: one bank = one memory namespace. Banks are created by bundle import (bundle-io.ts). */
import { asc, eq } from "drizzle-orm";
import type { Db } from "../client";
import { banks } from "../schema";

export type BankRecord = typeof banks.$inferSelect;

export async function getBank(db: Db, id: string): Promise<BankRecord | null> {
  const [row] = await db.select().from(banks).where(eq(banks.id, id));
  return row ?? null;
}

export async function listBanks(db: Db): Promise<BankRecord[]> {
  return db.select().from(banks).orderBy(asc(banks.id));
}
