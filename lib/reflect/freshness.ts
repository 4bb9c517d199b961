/**
 * The freshness short-circuit (docs/engine.md#forced-retrieval-and-the-freshness-short-circuit): after a mental-model search, forced retrieval is released
 * only when every returned model is known-fresh and usable. Pure: no LLM call decides this.
 */
import { NO_EVIDENCE_ANSWER } from "./digest";
import type { Budget } from "./domain";

/**
 * Text with its markdown packaging, punctuation, zero-width characters and surrounding space
 * removed, case-folded: what is left is what the text says. Heading lines are titles (often the
 * model's name), not content.
 */
export function normalizedContent(content: string): string {
  return content
    .replace(/[\u200B-\u200D\u2060\uFEFF\u00AD]/g, "")
    .split("\n")
    .filter((line) => !/^\s{0,3}#{1,6}(\s|$)/.test(line))
    .join(" ")
    .replace(/[\p{P}\p{S}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

/** Phrases a summary carries while it is not written yet, normalized; the engine's no-evidence text too. */
const PLACEHOLDER_PHRASES = [
  "generating content",
  "generating",
  "please wait",
  "loading",
  "pending",
  "placeholder",
  "coming soon",
  "todo",
  "tbd",
  "n a",
  "none",
  normalizedContent(NO_EVIDENCE_ANSWER),
].sort((a, b) => b.length - a.length);

/**
 * Placeholder text a model carries while its summary is not written yet ("*Generating content...*",
 * "(generating content)", "TBD", a lone zero-width space), or the engine's own "no relevant
 * memories" text, which a refresh that found nothing would otherwise store as a model's content.
 */
export function isPlaceholderContent(content: string): boolean {
  let rest = normalizedContent(content);
  // Phrases are letters and spaces only (normalized), so they are safe inside a pattern.
  for (const phrase of PLACEHOLDER_PHRASES) rest = rest.replace(new RegExp(`(^| )${phrase}(?= |$)`, "g"), " ");
  return rest.trim() === "";
}

export function isUsableContent(content: string | null | undefined): boolean {
  return typeof content === "string" && !isPlaceholderContent(content);
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
