/**
 * The four tools offered to the model: definitions (OpenAI function format), argument schemas and
 * the exact snake_case result payloads of SPEC §3.1.
 */
import { z } from "zod";
import type { Tier } from "./domain";
import type { ToolName } from "./events";
import type { FactHit, MentalModelHit, ObservationSearch, ToolDefinition } from "./ports";

export type TierToolName = Exclude<ToolName, "done">;

export const TOOL_FOR_TIER: Record<Tier, TierToolName> = {
  mental_models: "search_mental_models",
  observations: "search_observations",
  raw_facts: "recall",
};

export const TIER_FOR_TOOL: Record<TierToolName, Tier> = {
  search_mental_models: "mental_models",
  search_observations: "observations",
  recall: "raw_facts",
};

export const DEFAULT_MAX_RESULTS: Record<TierToolName, number> = {
  search_mental_models: 5,
  search_observations: 10,
  recall: 20,
};

export const MAX_RESULTS_LIMIT = 50;

export function isTierTool(name: string): name is TierToolName {
  return Object.hasOwn(TIER_FOR_TOOL, name);
}

export function clampMaxResults(tool: TierToolName, requested: number | undefined): number {
  const n = requested === undefined ? DEFAULT_MAX_RESULTS[tool] : Math.trunc(requested);
  return Math.min(MAX_RESULTS_LIMIT, Math.max(1, n));
}

export const SearchArgs = z.object({
  // Asked for by the schema but not worth failing a search over.
  reason: z.string().default(""),
  query: z.string().trim().min(1, "query must not be empty"),
  max_results: z.number().optional(),
});
export type SearchArgs = z.infer<typeof SearchArgs>;

/** Id lists default to empty: a model that omits one still gets its answer through validation. */
export const DoneArgs = z.object({
  answer: z.string(),
  memory_ids: z.array(z.string()).default([]),
  observation_ids: z.array(z.string()).default([]),
  mental_model_ids: z.array(z.string()).default([]),
});
export type DoneArgs = z.infer<typeof DoneArgs>;

function searchParameters(what: string, defaultMax: number): Record<string, unknown> {
  return {
    type: "object",
    properties: {
      reason: { type: "string", description: "Why this search helps answer the question." },
      query: { type: "string", description: `Keywords to search ${what} for.` },
      max_results: {
        type: "integer",
        minimum: 1,
        maximum: MAX_RESULTS_LIMIT,
        description: `How many results to return (default ${defaultMax}).`,
      },
    },
    required: ["reason", "query"],
    additionalProperties: false,
  };
}

const idList = (tier: string) => ({
  type: "array",
  items: { type: "string" },
  description: `Ids of the ${tier} you actually used in the answer.`,
});

export const TOOL_DEFINITIONS: Record<ToolName, ToolDefinition> = {
  search_mental_models: {
    type: "function",
    function: {
      name: "search_mental_models",
      description:
        "Search curated mental models (summaries maintained by the user). Check is_stale: a stale model may be out of date.",
      parameters: searchParameters("mental models", DEFAULT_MAX_RESULTS.search_mental_models),
    },
  },
  search_observations: {
    type: "function",
    function: {
      name: "search_observations",
      description: "Search observations: consolidated beliefs derived from raw facts.",
      parameters: searchParameters("observations", DEFAULT_MAX_RESULTS.search_observations),
    },
  },
  recall: {
    type: "function",
    function: {
      name: "recall",
      description: "Recall raw facts (the ground truth): world facts and experiences.",
      parameters: searchParameters("raw facts", DEFAULT_MAX_RESULTS.recall),
    },
  },
  done: {
    type: "function",
    function: {
      name: "done",
      description: "Finish with the final answer and the ids of the memories it is based on.",
      parameters: {
        type: "object",
        properties: {
          answer: { type: "string", description: "The final answer in plain prose." },
          memory_ids: idList("raw facts"),
          observation_ids: idList("observations"),
          mental_model_ids: idList("mental models"),
        },
        required: ["answer", "memory_ids", "observation_ids", "mental_model_ids"],
        additionalProperties: false,
      },
    },
  },
};

export function mentalModelsPayload(query: string, hits: MentalModelHit[]) {
  return {
    query,
    count: hits.length,
    mental_models: hits.map((m) => ({
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
    observations: search.observations.map((o) => ({
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
    memories: hits.map((f) => ({
      id: f.id,
      text: f.text,
      kind: f.kind,
      tags: f.tags,
      scope: f.scope,
      occurred_at: f.occurredAt,
      recorded_at: f.recordedAt,
    })),
  };
}

/** Serializes a tool result and enforces the character cap, keeping the real size for the event. */
export function capContent(payload: unknown, cap: number): { content: string; chars: number; truncated: boolean } {
  const full = JSON.stringify(payload);
  if (full.length <= cap) return { content: full, chars: full.length, truncated: false };
  const marker = `…[truncated: ${full.length} chars, cap ${cap}]`;
  return { content: full.slice(0, Math.max(0, cap - marker.length)) + marker, chars: full.length, truncated: true };
}
