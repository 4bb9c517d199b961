/** Reading the engine's conversation: the calls made so far and every memory the searches returned. */
import type { CitationKey } from "@/lib/reflect/domain";
import type { ChatMessage, ToolCall } from "@/lib/reflect/ports";

/** A tier as the offline model sees it: its search tool, the result array it reads, where its ids go. */
export interface OfflineTier {
  tool: string;
  /** The array of the tool's result payload (docs/engine.md#tools). */
  payloadKey: string;
  /** Plural, for notes ("searching raw facts"). */
  label: string;
  citation: CitationKey;
  /** Curated summaries carry `is_stale` and need lower-tier evidence behind them when stale. */
  curated: boolean;
  /** Prior for equally relevant sentences: a fresh summary beats a raw fact that says the same. */
  prior: number;
}

export interface RetrievedItem {
  tier: OfflineTier;
  id: string;
  text: string;
  /** A mental model's name: context for every line of it. */
  name: string | null;
  tags: string[];
  /** When the memory was true as of: occurred/recorded for facts, updated for observations, refreshed for models. */
  date: string | null;
  /** When a raw fact happened, if recorded: it answers "when" for the event the fact describes. */
  occurredAt: string | null;
  /** False for a mental model not known to be fresh. */
  trusted: boolean;
  /** Who said it, when the memory is a conversation's turn. */
  speaker: string | null;
  /** Its session and place there, when it has them. */
  sessionId: string | null;
  position: number | null;
  /** An observation's source facts (ids), as its search returned them. */
  sources: string[];
  /** Order of retrieval across the conversation; the search's own ranking breaks ties. */
  order: number;
}

export function toolCallsSoFar(messages: readonly ChatMessage[]): ToolCall[] {
  return messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []) : []));
}

/** Every item any search returned, in retrieval order, deduplicated by tier and id. */
export function retrievedItems(messages: readonly ChatMessage[], tiers: readonly OfflineTier[]): RetrievedItem[] {
  const toolByCallId = new Map(toolCallsSoFar(messages).map((c) => [c.id, c.function.name]));
  const items: RetrievedItem[] = [];
  const seen = new Set<string>();
  for (const message of messages) {
    if (message.role !== "tool") continue;
    const tier = tiers.find((t) => t.tool === toolByCallId.get(message.tool_call_id));
    for (const hit of parseTierHits(message.content, tier ? [tier] : tiers)) {
      const key = `${hit.tier.payloadKey}:${hit.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      items.push({ ...hit, order: items.length });
    }
  }
  return items;
}

const str = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v : null);

function parseTierHits(content: string, tiers: readonly OfflineTier[]): Omit<RetrievedItem, "order">[] {
  return tiers.flatMap((tier) =>
    tierEntries(content, tier.payloadKey).flatMap((entry) => {
      if (typeof entry !== "object" || entry === null) return [];
      const e = entry as Record<string, unknown>;
      const id = str(e.id);
      const text = tier.curated ? str(e.content) : str(e.text);
      if (!id || !text) return [];
      return [
        {
          tier,
          id,
          text,
          name: tier.curated ? str(e.name) : null,
          tags: Array.isArray(e.tags) ? e.tags.filter((t): t is string => typeof t === "string") : [],
          date: str(e.occurred_at) ?? str(e.recorded_at) ?? str(e.updated_at) ?? str(e.refreshed_at),
          occurredAt: str(e.occurred_at),
          trusted: !tier.curated || e.is_stale === false,
          speaker: str(e.speaker),
          sessionId: str(e.session_id),
          position: typeof e.position === "number" ? e.position : null,
          sources: Array.isArray(e.source_fact_ids)
            ? e.source_fact_ids.filter((t): t is string => typeof t === "string")
            : [],
        },
      ];
    }),
  );
}

/** The tier's array from a tool result; from a result cut at the size cap, its complete entries. */
function tierEntries(content: string, key: string): unknown[] {
  try {
    const payload: unknown = JSON.parse(content);
    const list = typeof payload === "object" && payload !== null ? (payload as Record<string, unknown>)[key] : null;
    return Array.isArray(list) ? list : [];
  } catch {
    return salvageEntries(content, key);
  }
}

/** Scans `"<key>":[{…},{…},…` string-aware and keeps every entry that closed before the cut. */
function salvageEntries(content: string, key: string): unknown[] {
  const opening = `"${key}":[`;
  const start = content.indexOf(opening);
  if (start < 0) return [];
  const entries: unknown[] = [];
  let depth = 0;
  let inString = false;
  let entryStart = -1;
  for (let i = start + opening.length; i < content.length; i++) {
    const ch = content[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{") {
      if (depth++ === 0) entryStart = i;
    } else if (ch === "}" && --depth === 0) {
      try {
        entries.push(JSON.parse(content.slice(entryStart, i + 1)));
      } catch {
        break; // Not a JSON tool result after all.
      }
    } else if (ch === "]" && depth === 0) break;
  }
  return entries;
}
