/**
 * The freshness short-circuit (SPEC §3.3): after a mental-model search, forced retrieval is released
 * only when every returned model is known-fresh and usable. Pure: no LLM call decides this.
 */
import type { Budget } from "./domain";

const PLACEHOLDER =
  /^(generating( content)?|pending|tbd|todo|placeholder|coming soon|n\/a|none|loading|\.{3}|…)[.…!\s]*$/i;

/** Placeholder text a model carries while its summary is not written yet ("Generating content...", "TBD"). */
export function isPlaceholderContent(content: string): boolean {
  return PLACEHOLDER.test(content.trim());
}

export function isUsableContent(content: string | null | undefined): boolean {
  return typeof content === "string" && content.trim() !== "" && !isPlaceholderContent(content);
}

export interface FreshnessInput {
  id: string;
  name: string;
  content: string;
  version?: number | null;
  /** A missing flag counts as stale: release needs positive evidence of freshness. */
  isStale?: boolean | null;
  stalenessReason?: string | null;
  usable?: boolean;
}

export interface FreshnessModel {
  id: string;
  name: string;
  version: number | null;
  isStale: boolean;
  reason: string;
  usable: boolean;
}

export interface FreshnessDecision {
  verdict: "release" | "keep_forcing";
  why: string;
  models: FreshnessModel[];
}

export function decideFreshness(budget: Budget, input: FreshnessInput[]): FreshnessDecision {
  const models = input.map((m) => ({
    id: m.id,
    name: m.name,
    version: m.version ?? null,
    isStale: m.isStale !== false,
    reason: m.isStale === undefined || m.isStale === null ? "staleness unknown" : (m.stalenessReason ?? ""),
    usable: m.usable !== false && isUsableContent(m.content),
  }));
  const keep = (why: string): FreshnessDecision => ({ verdict: "keep_forcing", why, models });
  if (budget === "high") return keep("high budget keeps the full forced path");
  if (models.length === 0) return keep("no mental models returned");
  const stale = models.filter((m) => m.isStale);
  if (stale.length > 0) return keep(`stale: ${stale.map((m) => `${m.id} (${m.reason || "stale"})`).join(", ")}`);
  const unusable = models.filter((m) => !m.usable);
  if (unusable.length > 0) return keep(`unusable content: ${unusable.map((m) => m.id).join(", ")}`);
  return {
    verdict: "release",
    why: `all ${models.length} returned mental model${models.length === 1 ? " is" : "s are"} fresh and usable`,
    models,
  };
}
