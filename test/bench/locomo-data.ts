/** Loading the shared LoCoMo development file into a bench database, one bank per conversation. */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Db } from "@/db/client";
import {
  type LocomoBankOptions,
  type LocomoConversation,
  locomoBundle,
  readLocomoFile,
} from "@/lib/experiments/locomo";
import { importBundle } from "@/lib/server/services/bundle-io";

/** The development half, read from beside the project (never committed: CC BY-NC). */
export const DEFAULT_LOCOMO_PATH = resolve(process.cwd(), "..", "shared", "benchmarks", "locomo", "locomo-dev.json");

export function readLocomo(path = DEFAULT_LOCOMO_PATH): LocomoConversation[] | null {
  if (!existsSync(path)) return null;
  return readLocomoFile(JSON.parse(readFileSync(path, "utf8")));
}

export async function importLocomo(
  db: Db,
  conversations: LocomoConversation[],
  options: LocomoBankOptions = {},
): Promise<string[]> {
  const banks: string[] = [];
  for (const conv of conversations) {
    const bundle = locomoBundle(conv, options);
    await importBundle(db, bundle, { replace: true });
    banks.push(bundle.bank.id);
  }
  return banks;
}
