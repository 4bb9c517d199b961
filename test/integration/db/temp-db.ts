import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { type Db, openDb } from "@/db/client";

/** A fresh, migrated libSQL file under test/.tmp/ (unique per call). */
export async function openTempDb(name: string): Promise<{ db: Db; path: string; cleanup: () => void }> {
  const dir = resolve(process.cwd(), "test/.tmp");
  mkdirSync(dir, { recursive: true });
  const path = resolve(dir, `db-${name}-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.db`);
  const db = await openDb(`file:${path}`);
  return {
    db,
    path,
    cleanup: () => {
      db.$client.close();
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
    },
  };
}
