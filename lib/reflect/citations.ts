/** Citation validation at `done` (docs/engine.md#grounding-citations-and-the-output-guard): keep only ids this run retrieved from the matching tier. */
import type { Citations, DroppedCitation } from "./domain";
import { citationCount, emptyCitations, TIER_REGISTRY, TIERS } from "./domain";
import type { Evidence } from "./evidence";

export interface CitationCheck {
  kept: Citations;
  dropped: DroppedCitation[];
  /** Evidence existed but no citation survived: the answer is not tied to any memory. */
  ungrounded: boolean;
}

export function validateCitations(claimed: Citations, evidence: Evidence): CitationCheck {
  const kept = emptyCitations();
  const dropped: DroppedCitation[] = [];
  for (const { id: tier, citationKey: list } of TIER_REGISTRY) {
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
  return { kept, dropped, ungrounded: !evidence.isEmpty && citationCount(kept) === 0 };
}
