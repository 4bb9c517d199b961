/** Citation validation at `done` (SPEC §3.5): keep only ids this run retrieved from the matching tier. */
import type { Citations, DroppedCitation, Tier } from "./domain";
import { TIERS } from "./domain";
import type { Evidence } from "./evidence";

const LIST_FOR_TIER: Record<Tier, keyof Citations> = {
  mental_models: "mental_model_ids",
  observations: "observation_ids",
  raw_facts: "memory_ids",
};

export interface CitationCheck {
  kept: Citations;
  dropped: DroppedCitation[];
  /** Evidence existed but no citation survived: the answer is not tied to any memory. */
  ungrounded: boolean;
}

export function emptyCitations(): Citations {
  return { memory_ids: [], observation_ids: [], mental_model_ids: [] };
}

export function validateCitations(claimed: Citations, evidence: Evidence): CitationCheck {
  const kept = emptyCitations();
  const dropped: DroppedCitation[] = [];
  for (const tier of TIERS) {
    const list = LIST_FOR_TIER[tier];
    const seen = new Set<string>();
    for (const id of claimed[list]) {
      if (seen.has(id)) continue;
      seen.add(id);
      if (evidence.has(tier, id)) kept[list].push(id);
      else {
        const elsewhere = TIERS.some((other) => other !== tier && evidence.has(other, id));
        dropped.push({ id, claimedTier: tier, reason: elsewhere ? "wrong_tier" : "never_retrieved" });
      }
    }
  }
  const keptCount = kept.memory_ids.length + kept.observation_ids.length + kept.mental_model_ids.length;
  return { kept, dropped, ungrounded: !evidence.isEmpty && keptCount === 0 };
}
