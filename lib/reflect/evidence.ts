/** What this run has retrieved so far, per tier: the basis of citation validation and digests. */
import type { Tier } from "./domain";
import type { FactHit, MentalModelHit, ObservationHit } from "./ports";

export class Evidence {
  readonly mentalModels = new Map<string, MentalModelHit>();
  readonly observations = new Map<string, ObservationHit>();
  readonly facts = new Map<string, FactHit>();

  addMentalModels(hits: MentalModelHit[]): void {
    for (const h of hits) this.mentalModels.set(h.id, h);
  }
  addObservations(hits: ObservationHit[]): void {
    for (const h of hits) this.observations.set(h.id, h);
  }
  addFacts(hits: FactHit[]): void {
    for (const h of hits) this.facts.set(h.id, h);
  }

  has(tier: Tier, id: string): boolean {
    return this.idsOf(tier).has(id);
  }

  idsOf(tier: Tier): ReadonlyMap<string, unknown> {
    if (tier === "mental_models") return this.mentalModels;
    if (tier === "observations") return this.observations;
    return this.facts;
  }

  get isEmpty(): boolean {
    return this.mentalModels.size + this.observations.size + this.facts.size === 0;
  }
}
