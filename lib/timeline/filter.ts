/**
 * Search and filter inside a run: which folded timeline rows match the text, the row kind, the
 * tier, "only steering" and "only failures". Iteration headers and sections stay when a row under
 * them matches, so every match is seen in its place. Pure; a row's searchable text is built once.
 */
import { TIERS, type Tier } from "@/lib/reflect/domain";
import type { TimelineItem } from "./flatten";
import type { RowKind, TimelineRow } from "./fold";

export interface TimelineFilter {
  /** Words to find (case-insensitive, every word must occur). */
  text: string;
  /** null: any kind. */
  kind: RowKind | null;
  /** null: any tier; a tier keeps the tier rows that searched it. */
  tier: Tier | null;
  steeringOnly: boolean;
  failuresOnly: boolean;
}

export const NO_FILTER: TimelineFilter = { text: "", kind: null, tier: null, steeringOnly: false, failuresOnly: false };

export function isFiltering(f: TimelineFilter): boolean {
  return f.text.trim() !== "" || f.kind !== null || f.tier !== null || f.steeringOnly || f.failuresOnly;
}

const textCache = new WeakMap<TimelineRow, string>();

/** Everything a user may search a row by: queries, reasons, ids, verdicts, injected text, errors. */
function searchText(row: TimelineRow): string {
  const cached = textCache.get(row);
  if (cached !== undefined) return cached;
  const parts: (string | null | undefined)[] = [row.kind];
  switch (row.kind) {
    case "tier":
      parts.push(row.tool, row.tier, row.query, row.reason, row.result?.outcome, row.result?.error);
      if (row.result) for (const t of TIERS) parts.push(...row.result.ids[t]);
      break;
    case "freshness":
      parts.push(row.verdict, row.why, ...row.models.flatMap((m) => [m.id, m.name, m.reason]));
      break;
    case "steering":
      parts.push(row.action, row.text, row.triggerLabel);
      break;
    case "guard":
      parts.push(row.action);
      if (row.action === "output") parts.push(row.pattern, row.detail, row.outcome);
      else if (row.action === "done_rejected") parts.push(row.message, row.why);
      else if (row.action === "calls_dropped") parts.push(row.reason, ...row.calls.map((c) => c.name));
      else parts.push(row.message);
      break;
    case "citations":
      parts.push(...Object.values(row.kept).flat(), ...row.dropped.map((d) => d.id));
      if (row.ungrounded) parts.push("ungrounded");
      if (row.declined) parts.push("declined");
      break;
    case "reasoning":
      parts.push(row.text);
      break;
  }
  const text = parts.filter(Boolean).join("\n").toLowerCase();
  textCache.set(row, text);
  return text;
}

/** A row that shows something going wrong: a failed or refused call, a guard, a dropped citation. */
export function isFailure(row: TimelineRow): boolean {
  switch (row.kind) {
    case "tier":
      return row.result !== null && (row.result.error !== null || !["success", "empty"].includes(row.result.outcome));
    case "guard":
      // A tool call read from text is a recovery, not a failure.
      return row.action !== "provider_warning" && !(row.action === "output" && row.outcome === "recovered");
    case "citations":
      return row.dropped.length > 0 || row.ungrounded;
    case "steering":
      return row.action === "halt";
    case "freshness":
    case "reasoning":
      return false;
  }
}

export function rowMatches(row: TimelineRow, f: TimelineFilter): boolean {
  if (f.kind !== null && row.kind !== f.kind) return false;
  if (f.tier !== null && (row.kind !== "tier" || row.tier !== f.tier)) return false;
  if (f.steeringOnly && row.kind !== "steering") return false;
  if (f.failuresOnly && !isFailure(row)) return false;
  const words = f.text.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const text = searchText(row);
  return words.every((w) => text.includes(w));
}

/**
 * The items that match, in order: matching rows, and the iteration header or section above them.
 * Give it the timeline flattened with nothing collapsed, so matches in a collapsed iteration show.
 */
export function filterTimeline(items: readonly TimelineItem[], f: TimelineFilter): TimelineItem[] {
  if (!isFiltering(f)) return [...items];
  const out: TimelineItem[] = [];
  let heading: TimelineItem | null = null;
  for (const item of items) {
    if (item.type !== "row") {
      heading = item;
      continue;
    }
    if (!rowMatches(item.row, f)) continue;
    if (heading) {
      out.push(heading.type === "iteration" ? { ...heading, collapsed: false } : heading);
      heading = null;
    }
    out.push(item);
  }
  return out;
}

/** How many rows match, for "12 of 340 rows". */
export function countRows(items: readonly TimelineItem[]): number {
  let n = 0;
  for (const i of items) if (i.type === "row") n += 1;
  return n;
}
