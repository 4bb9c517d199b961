/** A run's skill as people read it: "recap v3", or "recap draft (based on v3)" for a tried draft. */
export function skillLabel(skill: { name: string; version: number; draft?: boolean } | null): string {
  if (!skill) return "—";
  return skill.draft ? `${skill.name} draft (based on v${skill.version})` : `${skill.name} v${skill.version}`;
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
