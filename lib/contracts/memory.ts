/**
 * Memories (facts and observations) across boundaries: the memory browser's pages, recall (API and
 * MCP) and retaining new facts (API and MCP).
 */
import { z } from "zod";
import { Scope, Tier } from "@/lib/reflect/domain";
import { ConversationFields, Id, IsoTime, LIMITS, McpBank, positionNeedsSession, Tags, underLimit } from "./fields";
import { MentalModelItem } from "./mental-models";

export const FactKind = z.enum(["world", "experience"]);

/** A turn shown beside a hit as its context. */
export const ContextTurn = z.object({
  id: z.string(),
  speaker: z.string().nullable(),
  position: z.number().int().nullable(),
  text: z.string(),
});
export type ContextTurn = z.infer<typeof ContextTurn>;

/** The turns before and after a conversation's turn in its session. */
export const TurnContext = z.object({ before: ContextTurn.nullable(), after: ContextTurn.nullable() });

export const FactItem = z.object({
  id: z.string(),
  text: z.string(),
  kind: FactKind,
  tags: z.array(z.string()),
  scope: z.string(),
  occurredAt: z.string().nullable(),
  recordedAt: z.string(),
  updatedAt: z.string(),
  speaker: z.string().nullable(),
  sessionId: z.string().nullable(),
  position: z.number().int().nullable(),
  /** Shown when one fact is opened on its own (/memory?id=…). */
  context: TurnContext.optional(),
});
export type FactItem = z.infer<typeof FactItem>;

export const ObservationItem = z.object({
  id: z.string(),
  text: z.string(),
  tags: z.array(z.string()),
  scope: z.string(),
  sourceFactIds: z.array(z.string()),
  updatedAt: z.string(),
});
export type ObservationItem = z.infer<typeof ObservationItem>;

// ---------- the memory browser ----------

/**
 * The memory page's tabs are the tiers (TIER_REGISTRY): one name per tier. `facts`, the tab's
 * name before, still opens the raw-facts tab (links people saved).
 */
export const MemoryTier = z.preprocess((v) => (v === "facts" ? "raw_facts" : v), Tier);
export type MemoryTier = Tier;

export const MemoryQuery = z.object({
  tier: MemoryTier.default("mental_models"),
  q: z.string().trim().max(LIMITS.searchChars, underLimit("search", LIMITS.searchChars)).default(""),
  limit: z.coerce.number().int().min(1).max(500).default(200),
  /** Only this memory (a link from a run's memory card), or these, comma-separated (an observation's facts). */
  id: z.string().trim().min(1).max(4_000).optional(),
});

export const MemoryPage = z.discriminatedUnion("tier", [
  z.object({ tier: z.literal("mental_models"), items: z.array(MentalModelItem) }),
  z.object({ tier: z.literal("observations"), items: z.array(ObservationItem) }),
  z.object({ tier: z.literal("raw_facts"), items: z.array(FactItem) }),
]);
export type MemoryPage = z.infer<typeof MemoryPage>;

// ---------- recall ----------

export const RecallBody = z.strictObject({
  tier: Tier.default("raw_facts").meta({
    description: 'the tier to search: "raw_facts" (default), "observations" or "mental_models"',
  }),
  query: z
    .string()
    .trim()
    .min(1, "give a query")
    .max(LIMITS.recallQueryChars, underLimit("query", LIMITS.recallQueryChars))
    .meta({ description: "what to search for" }),
  tags: Tags.default([]).meta({ description: "only facts carrying all of these tags" }),
  scope: Scope.default("personal").meta({ description: '"personal" or "team:<id>" when the bank permits that team' }),
  limit: z.number().int().min(1).max(100).default(20).meta({ description: "maximum hits" }),
  context: z.boolean().default(false).meta({
    description:
      "raw facts: add each conversation turn's neighbours in its session (the turns before and after) as context; context is for reading, a run cites only what it retrieved",
  }),
});

export const RecalledFact = FactItem.omit({ updatedAt: true }).extend({
  context: TurnContext.optional().meta({
    description: "the turns before and after it in its session (only with context: true)",
  }),
});
export type RecalledFact = z.infer<typeof RecalledFact>;

export const RecalledMentalModel = z.object({
  id: z.string(),
  name: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  version: z.number().int(),
  refreshedAt: z.string().nullable(),
  isStale: z.boolean(),
  stalenessReason: z.string(),
  usable: z.boolean(),
});

/** A search of one tier; each tier's hits under its own key, as the engine's tools name them. */
export const RecallResult = z.discriminatedUnion("tier", [
  z.object({
    tier: z.literal("raw_facts"),
    query: z.string(),
    count: z.number().int(),
    memories: z.array(RecalledFact),
  }),
  z.object({
    tier: z.literal("observations"),
    query: z.string(),
    count: z.number().int(),
    observations: z
      .array(ObservationItem)
      .meta({ description: "observations, each with the ids of the raw facts it was consolidated from" }),
    freshness: z.enum(["up_to_date", "slightly_stale", "stale"]),
    pending: z.number().int().meta({ description: "facts in scope recorded after the newest observation" }),
  }),
  z.object({
    tier: z.literal("mental_models"),
    query: z.string(),
    count: z.number().int(),
    mentalModels: z.array(RecalledMentalModel),
  }),
]);
export type RecallResult = z.infer<typeof RecallResult>;

/** The MCP `memory_recall` tool. */
export const McpRecallInput = RecallBody.extend({ bank: McpBank });

// ---------- retain ----------

export const NewFact = z.strictObject({
  id: Id.optional().meta({ description: "omit to generate one; an existing id updates that fact" }),
  text: z
    .string()
    .trim()
    .min(1)
    .max(LIMITS.factChars, underLimit("fact", LIMITS.factChars))
    .meta({ description: "the fact, in one or a few sentences" }),
  kind: FactKind.default("world").meta({
    description:
      '"world" (a fact about the world) or "experience" (something the bank\'s owner did or went through, in the first person)',
  }),
  tags: Tags.default([]).meta({ description: "labels to filter recall by, e.g. launch, sso" }),
  scope: Scope.default("personal").meta({ description: '"personal" or "team:<id>" when the bank permits that team' }),
  occurredAt: IsoTime.nullable().optional().meta({ description: "ISO-8601 time the fact happened" }),
  documentId: z
    .string()
    .min(1)
    .max(LIMITS.documentIdChars, underLimit("document id", LIMITS.documentIdChars))
    .nullable()
    .optional()
    .meta({ description: "the source document the fact came from" }),
  ...ConversationFields,
});

export const RetainBody = z.strictObject({
  facts: z
    .array(NewFact.superRefine(positionNeedsSession))
    .min(1, "send at least one fact")
    .max(1000, "send at most 1,000 facts per request")
    .superRefine((facts, ctx) => {
      const seen = new Set<string>();
      facts.forEach((f, i) => {
        if (f.id === undefined) return;
        if (seen.has(f.id)) ctx.addIssue({ code: "custom", path: [i, "id"], message: `duplicate id "${f.id}"` });
        seen.add(f.id);
      });
    }),
});

export const RetainResult = z.object({
  bankId: z.string(),
  inserted: z.array(z.string()).meta({ description: "ids of new facts" }),
  updated: z.array(z.string()).meta({ description: "ids of facts that existed and were rewritten" }),
  staleMentalModels: z
    .array(z.object({ id: z.string(), name: z.string(), reason: z.string() }))
    .meta({ description: "mental models that were fresh before and are stale now" }),
});
export type RetainResult = z.infer<typeof RetainResult>;

/** The MCP `memory_retain` tool: new facts only (no ids), at most 100 per call. */
export const McpRetainInput = z.strictObject({
  bank: McpBank,
  facts: z
    .array(NewFact.omit({ id: true, documentId: true }).superRefine(positionNeedsSession))
    .min(1)
    .max(100)
    .meta({ description: "the new facts, 1 to 100; mental models whose scope covers them become stale" }),
});
