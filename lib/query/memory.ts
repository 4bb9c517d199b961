/** View models of the memory browser, shared by server (lib/server/memory) and client components. */
export type MemoryTier = "mental_models" | "observations" | "facts";

export type StalenessState =
  | "fresh"
  | "stale"
  | "never_refreshed"
  | "overridden_stale"
  | "overridden_fresh"
  | "unusable";

export interface MentalModelItem {
  id: string;
  name: string;
  sourceQuery: string;
  content: string;
  tags: string[];
  refreshedAt: string | null;
  version: number;
  isStale: boolean;
  usable: boolean;
  state: StalenessState;
  reason: string;
}

export interface ObservationItem {
  id: string;
  text: string;
  tags: string[];
  scope: string;
  sourceFactIds: string[];
  updatedAt: string;
}

export interface FactItem {
  id: string;
  text: string;
  kind: string;
  tags: string[];
  scope: string;
  occurredAt: string | null;
  recordedAt: string;
  updatedAt: string;
}

export type MemoryPage =
  | { tier: "mental_models"; items: MentalModelItem[] }
  | { tier: "observations"; items: ObservationItem[] }
  | { tier: "facts"; items: FactItem[] };

export interface BankSummary {
  id: string;
  name: string;
  permittedTeams: string[];
  scopes: string[];
  counts: { facts: number; observations: number; mentalModels: number };
}

export const memoryKeys = {
  tier: (bankId: string, tier: MemoryTier, q: string) => ["memory", bankId, tier, q] as const,
};

export function memoryUrl(bankId: string, tier: MemoryTier, q: string): string {
  const params = new URLSearchParams({ tier, q });
  return `/api/banks/${encodeURIComponent(bankId)}/memory?${params}`;
}
