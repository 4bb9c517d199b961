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
