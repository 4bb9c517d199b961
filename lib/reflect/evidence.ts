/** What this run has retrieved so far, per tier: the basis of citation validation and digests. */
import { perTier, TIERS, type Tier } from "./domain";
import type { HitOf, Retrieved } from "./ports";

export class Evidence {
  private readonly byTier = perTier(() => new Map<string, HitOf<Tier>>());
  private readonly bestRank = perTier(() => new Map<string, number>());

  add(retrieved: Retrieved): void {
    const hits = this.byTier[retrieved.tier];
    const ranks = this.bestRank[retrieved.tier];
    retrieved.hits.forEach((h, i) => {
      hits.set(h.id, h);
      const rank = h.rank ?? i + 1;
      ranks.set(h.id, Math.min(rank, ranks.get(h.id) ?? rank));
    });
  }

  /** A hit's best 1-based rank in any of the run's searches of its tier (undefined: never retrieved). */
  rankOf(tier: Tier, id: string): number | undefined {
    return this.bestRank[tier].get(id);
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
