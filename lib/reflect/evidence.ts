/** What this run has retrieved so far, per tier: the basis of citation validation and digests. */
import { perTier, TIERS, type Tier } from "./domain";
import type { HitOf, Retrieved } from "./ports";

export class Evidence {
  private readonly byTier = perTier(() => new Map<string, HitOf<Tier>>());

  add(retrieved: Retrieved): void {
    const hits = this.byTier[retrieved.tier];
    for (const h of retrieved.hits) hits.set(h.id, h);
  }

  /** Every hit of one tier, in first-retrieved order. */
  hitsOf<T extends Tier>(tier: T): HitOf<T>[] {
    return [...this.byTier[tier].values()] as HitOf<T>[];
  }

  has(tier: Tier, id: string): boolean {
    return this.byTier[tier].has(id);
  }

  get isEmpty(): boolean {
    return TIERS.every((t) => this.byTier[t].size === 0);
  }
}
