import { TIER_REGISTRY } from "@/lib/reflect/domain";

/**
 * A skill's retrieval type as people read it: the tier's one name ("raw facts"), never the value
 * stored in skills and the API ("episodic").
 */
export function retrievalTypeLabel(type: string): string {
  return TIER_REGISTRY.find((t) => t.retrievalType === type)?.label ?? type;
}
