import { TIER_INFO, type Tier } from "@/lib/reflect/domain";

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A hit's text; a named hit (a mental model) shows its name as a heading. */
function textOf(hit: Record<string, unknown>, tier: Tier): string | undefined {
  const body = hit[TIER_INFO[tier].textKey];
  const text = typeof body === "string" ? body : undefined;
  const name = typeof hit.name === "string" ? hit.name : undefined;
  if (text === undefined) return name;
  return name ? `**${name}**\n\n${text}` : text;
}

/**
 * The text of memory `id` as the model saw it, read from a tool result's `content`.
 * Content may have been cut at the size cap and no longer parse; then the hit's own object is
 * located textually so a truncated result still shows the memories that fit.
 */
export function memoryTextFromContent(content: string, tier: Tier, id: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(content);
    if (isRecord(parsed)) {
      const list = parsed[TIER_INFO[tier].resultKey];
      if (Array.isArray(list)) {
        const hit = list.find((h): h is Record<string, unknown> => isRecord(h) && h.id === id);
        return hit ? textOf(hit, tier) : undefined;
      }
    }
    return undefined;
  } catch {
    return textFromTruncated(content, tier, id);
  }
}

function textFromTruncated(content: string, tier: Tier, id: string): string | undefined {
  const start = content.indexOf(`"id":${JSON.stringify(id)}`);
  if (start < 0) return undefined;
  const nextHit = content.indexOf('{"id":', start + 1);
  const slice = content.slice(start, nextHit < 0 ? undefined : nextHit);
  const key = TIER_INFO[tier].textKey;
  const match = new RegExp(`"${key}":("(?:[^"\\\\]|\\\\.)*")`).exec(slice);
  if (!match?.[1]) return undefined;
  try {
    return JSON.parse(match[1]) as string;
  } catch {
    return undefined;
  }
}

/** The field that dates a hit of each tier (docs/engine.md#tools result shapes). */
const DATE_KEYS: Record<Tier, readonly string[]> = {
  mental_models: ["refreshed_at"],
  observations: ["updated_at"],
  raw_facts: ["occurred_at", "recorded_at"],
};

export interface MemoryHit {
  /** As the model saw it; undefined when the capped result no longer holds it. */
  text: string | undefined;
  date: string | undefined;
  /** 1-based place in the tool result's list. */
  rank: number | undefined;
  /** Who said it and where, for a conversation's turn ("Ben · session_2 #3"). */
  said?: string;
}

/** "Ben · session_2 #3": a raw fact's speaker, session and position, as far as it has them. */
export function saidLine(hit: Record<string, unknown>): string | undefined {
  const speaker = typeof hit.speaker === "string" ? hit.speaker : null;
  const session = typeof hit.session_id === "string" ? hit.session_id : null;
  const position = typeof hit.position === "number" ? hit.position : null;
  const place = session ? `${session}${position !== null ? ` #${position}` : ""}` : null;
  const parts = [speaker, place].filter((p): p is string => p !== null);
  return parts.length > 0 ? parts.join(" · ") : undefined;
}

/** One returned memory, for the chip's card: its text, date and rank in the result. */
export function memoryHitFromContent(content: string, tier: Tier, id: string): MemoryHit {
  try {
    const parsed: unknown = JSON.parse(content);
    const list = isRecord(parsed) ? parsed[TIER_INFO[tier].resultKey] : undefined;
    if (Array.isArray(list)) {
      const index = list.findIndex((h) => isRecord(h) && h.id === id);
      const hit: unknown = list[index];
      if (!isRecord(hit)) return { text: undefined, date: undefined, rank: undefined };
      const date = DATE_KEYS[tier].map((k) => hit[k]).find((v): v is string => typeof v === "string");
      return { text: textOf(hit, tier), date, rank: index + 1, said: saidLine(hit) };
    }
  } catch {
    // Cut at the cap: the text may still be found; the place in the list by the ids before it.
    const at = content.indexOf(`"id":${JSON.stringify(id)}`);
    const rank = at < 0 ? undefined : content.slice(0, at).split('{"id":').length;
    return { text: textFromTruncated(content, tier, id), date: undefined, rank };
  }
  return { text: undefined, date: undefined, rank: undefined };
}

/** Where a memory lives in /memory: that tier's tab, showing only it. */
export function memoryHref(bankId: string, tier: Tier, id: string): string {
  return `/memory?${new URLSearchParams({ bank: bankId, tier, id })}`;
}
