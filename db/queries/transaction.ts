import type { Transaction } from "@libsql/client";
import type { Db } from "../client";

/**
 * Runs `fn` in one write transaction of the database's client: committed when `fn` returns,
 * rolled back when it throws (the error is rethrown as it was), and closed either way.
 */
export async function inWriteTransaction<T>(db: Db, fn: (tx: Transaction) => Promise<T>): Promise<T> {
  const tx = await db.$client.transaction("write");
  try {
    const result = await fn(tx);
    await tx.commit();
    return result;
  } catch (err) {
    await tx.rollback().catch(() => {});
    throw err;
  } finally {
    tx.close();
  }
}
