/** The memory browser's react-query keys and the GET route each tier page is read from. */
import type { MemoryTier } from "@/lib/contracts/memory";

export const memoryKeys = {
  tier: (bankId: string, tier: MemoryTier, q: string) => ["memory", bankId, tier, q] as const,
};

/** No search is no `q` at all: the route refuses an empty parameter (`?q=`) as it refuses any. */
export function memoryUrl(bankId: string, tier: MemoryTier, q: string, id?: string | null): string {
  const params = new URLSearchParams({ tier, ...(q ? { q } : {}), ...(id ? { id } : {}) });
  return `/api/banks/${encodeURIComponent(bankId)}/memory?${params}`;
}
