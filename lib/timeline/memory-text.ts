import type { Tier } from "@/lib/reflect/domain";

/** The list key each tier's tool result uses for its hits (SPEC §3.1). */
const LIST_KEY: Record<Tier, string> = {
  mental_models: "mental_models",
  observations: "observations",
  raw_facts: "memories",
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function textOf(hit: Record<string, unknown>, tier: Tier): string | undefined {
  if (tier === "mental_models") {
    const content = typeof hit.content === "string" ? hit.content : undefined;
    const name = typeof hit.name === "string" ? hit.name : undefined;
    if (content === undefined) return name;
    return name ? `**${name}**\n\n${content}` : content;
  }
  return typeof hit.text === "string" ? hit.text : undefined;
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
      const list = parsed[LIST_KEY[tier]];
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
  const key = tier === "mental_models" ? "content" : "text";
  const match = new RegExp(`"${key}":("(?:[^"\\\\]|\\\\.)*")`).exec(slice);
  if (!match?.[1]) return undefined;
  try {
    return JSON.parse(match[1]) as string;
  } catch {
    return undefined;
  }
}
