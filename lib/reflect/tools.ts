/**
 * The four tools offered to the model: definitions (OpenAI function format), argument schemas and
 * the exact snake_case result payloads of docs/engine.md#tools.
 */
import { z } from "zod";
import { CITATION_KEYS, perCitationKey, TIER_INFO, TIER_REGISTRY, type Tier, type TierInfo } from "./domain";
import type { ToolName } from "./events";
import type { FactHit, MentalModelHit, ObservationSearch, ToolDefinition } from "./ports";

export const MAX_RESULTS_LIMIT = 50;

export function clampMaxResults(tier: Tier, requested: number | undefined): number {
  const n = requested === undefined ? TIER_INFO[tier].defaultMaxResults : Math.trunc(requested);
  return Math.min(MAX_RESULTS_LIMIT, Math.max(1, n));
}

/**
 * The longest search query a model may send: a question's length (docs/engine.md#tools). A search
 * costs what its words cost, and a faulty or hostile model sent 100,000 words in one query.
 */
export const MAX_SEARCH_QUERY_CHARS = 4_000;

export const SearchArgs = z.object({
  // Asked for by the schema but not worth failing a search over.
  reason: z.string().default(""),
  query: z
    .string()
    .trim()
    .min(1, "query must not be empty")
    .max(
      MAX_SEARCH_QUERY_CHARS,
      `query is longer than ${MAX_SEARCH_QUERY_CHARS.toLocaleString("en-US")} characters: search with fewer words`,
    ),
  max_results: z.number().optional(),
});
export type SearchArgs = z.infer<typeof SearchArgs>;

/**
 * The most memories an answer cites from one tier, and the longest id: an answer cites a few. A
 * faulty or hostile model's `done` citing 300,000 made ids (2.7 MB) was stored as 51 MB of events
 * (each id a dropped citation, in three events and the run's row); past these it is refused as
 * invalid arguments, like any malformed `done`, and the model is told why.
 */
export const MAX_CITED_IDS = 100;
export const MAX_CITED_ID_CHARS = 200;

/** Id lists default to empty: a model that omits one still gets its answer through validation. */
export const DoneArgs = z.object({
  answer: z.string(),
  ...perCitationKey((tier) =>
    z
      .array(z.string().max(MAX_CITED_ID_CHARS, `an id is at most ${MAX_CITED_ID_CHARS} characters`))
      .max(MAX_CITED_IDS, `cite at most ${MAX_CITED_IDS} ${tier.label} in one answer`)
      .default([]),
  ),
});
export type DoneArgs = z.infer<typeof DoneArgs>;

function searchDefinition(tier: TierInfo): ToolDefinition {
  return {
    type: "function",
    function: {
      name: tier.tool,
      description: tier.toolDescription,
      parameters: {
        type: "object",
        properties: {
          reason: { type: "string", description: "Why this search helps answer the question." },
          query: { type: "string", description: `Keywords to search ${tier.label} for.` },
          max_results: {
            type: "integer",
            minimum: 1,
            maximum: MAX_RESULTS_LIMIT,
            description: `How many results to return (default ${tier.defaultMaxResults}).`,
          },
        },
        required: ["reason", "query"],
        additionalProperties: false,
      },
    },
  };
}

const DONE_DEFINITION: ToolDefinition = {
  type: "function",
  function: {
    name: "done",
    description: "Finish with the final answer and the ids of the memories it is based on.",
    parameters: {
      type: "object",
      properties: {
        answer: { type: "string", description: "The final answer in plain prose." },
        ...perCitationKey((tier) => ({
          type: "array",
          items: { type: "string" },
          description: `Ids of the ${tier.label} you actually used in the answer.`,
        })),
      },
      required: ["answer", ...CITATION_KEYS],
      additionalProperties: false,
    },
  },
};

export const TOOL_DEFINITIONS = {
  ...Object.fromEntries(TIER_REGISTRY.map((t) => [t.tool, searchDefinition(t)])),
  done: DONE_DEFINITION,
} as Record<ToolName, ToolDefinition>;

export function mentalModelsPayload(query: string, hits: MentalModelHit[]) {
  return {
    query,
    count: hits.length,
    [TIER_INFO.mental_models.resultKey]: hits.map((m) => ({
      id: m.id,
      name: m.name,
      content: m.content,
      tags: m.tags,
      relevance: m.relevance,
      refreshed_at: m.refreshedAt,
      is_stale: m.isStale,
      staleness_reason: m.stalenessReason,
    })),
  };
}

export function observationsPayload(query: string, search: ObservationSearch) {
  return {
    query,
    count: search.observations.length,
    [TIER_INFO.observations.resultKey]: search.observations.map((o) => ({
      id: o.id,
      text: o.text,
      tags: o.tags,
      scope: o.scope,
      source_fact_ids: o.sourceFactIds,
      updated_at: o.updatedAt,
    })),
    is_stale: search.isStale,
    freshness: search.freshness,
  };
}

export function recallPayload(query: string, hits: FactHit[]) {
  return {
    query,
    count: hits.length,
    [TIER_INFO.raw_facts.resultKey]: hits.map((f) => ({
      id: f.id,
      text: f.text,
      kind: f.kind,
      tags: f.tags,
      scope: f.scope,
      occurred_at: f.occurredAt,
      recorded_at: f.recordedAt,
      // A conversation's turn says who said it and where; other facts carry none of these keys.
      ...(f.speaker ? { speaker: f.speaker } : {}),
      ...(f.sessionId ? { session_id: f.sessionId } : {}),
      ...(f.position !== null && f.position !== undefined ? { position: f.position } : {}),
    })),
  };
}

/** Serializes a tool result and enforces the character cap, keeping the real size for the event. */
export function capContent(payload: unknown, cap: number): { content: string; chars: number; truncated: boolean } {
  const full = JSON.stringify(payload);
  if (full.length <= cap) return { content: full, chars: full.length, truncated: false };
  const marker = `…[truncated: ${full.length} chars, cap ${cap}]`;
  return {
    content: cutAtCodePoint(full, Math.max(0, cap - marker.length)) + marker,
    chars: full.length,
    truncated: true,
  };
}

/** The first `limit` UTF-16 units, one fewer when the cut would split a surrogate pair (an emoji). */
export function cutAtCodePoint(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const last = text.charCodeAt(limit - 1);
  const splitsPair = limit > 0 && last >= 0xd800 && last <= 0xdbff;
  return text.slice(0, splitsPair ? limit - 1 : limit);
}

/**
 * The hits whose id the model actually saw: with a capped result, a hit cut off by the cap was
 * never read, so it cannot count as retrieved (nor be cited).
 */
export function hitsSeen<H extends { id: string }>(hits: H[], capped: { content: string; truncated: boolean }): H[] {
  if (!capped.truncated) return hits;
  return hits.filter((h) => capped.content.includes(`"id":${JSON.stringify(h.id)}`));
}
