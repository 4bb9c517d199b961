/** Citation validation at `done` (docs/engine.md#grounding-citations-and-the-output-guard): keep only ids this run retrieved from the matching tier. */

import { isDecline } from "./declines";
import type { Citations, DroppedCitation } from "./domain";
import { citationCount, emptyCitations, TIER_REGISTRY, TIERS } from "./domain";
import type { Evidence } from "./evidence";

export interface CitationCheck {
  kept: Citations;
  dropped: DroppedCitation[];
  /** Evidence existed but no citation survived, and the answer is not a decline: it is tied to no memory. */
  ungrounded: boolean;
  /**
   * Evidence existed, nothing is cited and the answer is a decline ("nothing about that",
   * declines.ts `isDecline`): an abstention, which needs no citation. Present only when true (logs
   * written before it have no such field).
   */
  declined?: true;
}

/**
 * Keeps the claimed ids this run retrieved from the claimed tier. `answer`, when given, tells a
 * decline from an ungrounded answer; `question` (the run's) is what a decline may repeat.
 */
export function validateCitations(
  claimed: Citations,
  evidence: Evidence,
  answer?: string,
  question?: string,
): CitationCheck {
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
  const uncited = !evidence.isEmpty && citationCount(kept) === 0;
  if (uncited && answer !== undefined && isDecline(answer, question))
    return { kept, dropped, ungrounded: false, declined: true };
  return { kept, dropped, ungrounded: uncited };
}
