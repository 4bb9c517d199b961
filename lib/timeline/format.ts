// plural and retrievalTypeLabel live in lib/text (re-exported here for existing callers).
export { plural } from "@/lib/text/plural";
export { retrievalTypeLabel } from "@/lib/text/tier-label";

/** A run's skill as people read it: "recap v3", or "recap draft (based on v3)" for a tried draft. */
export function skillLabel(skill: { name: string; version: number; draft?: boolean } | null): string {
  if (!skill) return "—";
  return skill.draft ? `${skill.name} draft (based on v${skill.version})` : `${skill.name} v${skill.version}`;
}

/** What a run read as unsaved mental-model drafts, e.g. "mental-model draft: Team norms (based on v3)". */
export function mentalModelDraftLabel(drafts: readonly { name: string; baseVersion: number }[]): string {
  return drafts.map((d) => `mental-model draft: ${d.name} (based on v${d.baseVersion})`).join(" · ");
}

/** Compact human formats for durations and counts on the run page. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function formatCount(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : n.toLocaleString("en-US");
}

/** A wire word for people: "up_to_date" → "up to date". */
export function words(key: string): string {
  return key.replaceAll("_", " ");
}

/**
 * A ladder signature ("recall:{"query":"launch"}:db down", or a tool and a digest) said as what was
 * repeated: "the same recall call for “launch”, failing with “db down”". Internal keys stay out.
 */
export function repeatedCall(signature: string): string {
  const colon = signature.indexOf(":");
  const tool = colon < 0 ? signature : signature.slice(0, colon);
  const rest = colon < 0 ? "" : signature.slice(colon + 1);
  let args: unknown;
  let error = "";
  for (let i = rest.length; i >= 0; i = rest.lastIndexOf(":", i - 1)) {
    try {
      args = JSON.parse(rest.slice(0, i));
      error = rest.slice(i + 1).trim();
      break;
    } catch {
      if (i <= 0) break;
    }
  }
  const query =
    typeof args === "object" && args !== null && "query" in args && typeof args.query === "string" ? args.query : null;
  return `the same ${tool} call${query ? ` for “${query}”` : ""}${error ? `, failing with “${error}”` : ""}`;
}
