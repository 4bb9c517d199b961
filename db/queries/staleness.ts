/** Mental-model staleness (docs/engine.md#memory-model): computed, never stored. Pure; the SQL lives in mental-models.ts. */
import { isUsableContent } from "@/lib/reflect/freshness";

/** Newer memories are counted exactly up to this many; beyond it the reason says "more than". */
export const NEWER_COUNT_CAP = 100;

export interface StalenessInput {
  staleOverride: "stale" | "fresh" | null;
  refreshedAt: string | null;
  /** Facts + observations in the model's scope with `updatedAt > refreshedAt` (may exceed the cap). */
  newerInScope: number;
  content: string;
}

export interface Staleness {
  isStale: boolean;
  reason: string;
  usable: boolean;
}

export function decideStaleness(input: StalenessInput): Staleness {
  const usable = isUsableContent(input.content);
  if (input.staleOverride !== null) {
    return { isStale: input.staleOverride === "stale", reason: "manual override", usable };
  }
  if (input.refreshedAt === null) return { isStale: true, reason: "never refreshed", usable };
  const n = input.newerInScope;
  if (n === 0) return { isStale: false, reason: "no newer memories in scope", usable };
  if (n > NEWER_COUNT_CAP)
    return { isStale: true, reason: `more than ${NEWER_COUNT_CAP} newer memories in scope`, usable };
  return { isStale: true, reason: `${n} newer ${n === 1 ? "memory" : "memories"} in scope`, usable };
}
