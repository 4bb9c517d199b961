/**
 * The parts of Hindsight's public HTTP API that `import --from hindsight` reads (docs/hindsight.md),
 * as zod schemas: every response is validated before anything is written, and a response that
 * does not fit is refused by the name of its field. Shapes follow the OpenAPI document of
 * vectorize-io/hindsight (`hindsight-docs/static/openapi.json`, API version 0.8.1); fields this
 * import does not read are allowed and ignored, so a newer server still imports.
 */
import { z } from "zod";

/** A time as Hindsight writes it: Python `isoformat()`, with an offset or (naive) without one. */
const HsTime = z
  .string()
  .refine((s) => s === "" || !Number.isNaN(Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s}Z`)), {
    message: "not an ISO 8601 date-time",
  });
const OptionalTime = HsTime.nullable().optional();
const HsTags = z.array(z.string()).nullable().optional();

/** `ListMemoryUnitsResponse`: `{items, total, limit, offset}`; each item is an open object in the document. */
export const HsMemoryUnit = z.looseObject({
  id: z.string().min(1),
  text: z.string(),
  /** The list endpoint writes `fact_type`; the get endpoint (and the document's example) `type`. */
  fact_type: z.string().nullable().optional(),
  type: z.string().nullable().optional(),
  context: z.string().nullable().optional(),
  date: OptionalTime,
  mentioned_at: OptionalTime,
  occurred_start: OptionalTime,
  occurred_end: OptionalTime,
  document_id: z.string().nullable().optional(),
  tags: HsTags,
  state: z.string().nullable().optional(),
});
export type HsMemoryUnit = z.infer<typeof HsMemoryUnit>;

export const HsMemoryPage = z.looseObject({
  items: z.array(HsMemoryUnit),
  total: z.number().int().nonnegative(),
  limit: z.number().int(),
  offset: z.number().int(),
});

/** `GET /memories/{id}`: an observation carries `source_memory_ids`. */
export const HsMemoryDetail = z.looseObject({
  id: z.string().min(1),
  source_memory_ids: z.array(z.string()).nullable().optional(),
});

/** `MentalModelResponse` (required: id, bank_id, name). */
export const HsMentalModel = z.looseObject({
  id: z.string().min(1),
  bank_id: z.string(),
  name: z.string(),
  source_query: z.string().nullable().optional(),
  content: z.string().nullable().optional(),
  tags: HsTags,
  last_refreshed_at: OptionalTime,
  created_at: OptionalTime,
});
export type HsMentalModel = z.infer<typeof HsMentalModel>;
export const HsMentalModelPage = z.looseObject({ items: z.array(HsMentalModel) });

/** `DirectiveResponse` (required: id, bank_id, name, content). */
export const HsDirective = z.looseObject({
  id: z.string().min(1),
  bank_id: z.string(),
  name: z.string(),
  content: z.string(),
  priority: z.number().int().default(0),
  is_active: z.boolean().default(true),
  tags: HsTags,
});
export type HsDirective = z.infer<typeof HsDirective>;
export const HsDirectivePage = z.looseObject({ items: z.array(HsDirective) });

/** `DispositionTraits`: three integers 1–5. */
export const HsDisposition = z.looseObject({
  skepticism: z.number().int().min(1).max(5),
  literalism: z.number().int().min(1).max(5),
  empathy: z.number().int().min(1).max(5),
});

/** `BankProfileResponse` (required: bank_id, name, disposition, mission). */
export const HsBankProfile = z.looseObject({
  bank_id: z.string(),
  name: z.string(),
  disposition: HsDisposition,
  mission: z.string(),
});
export type HsBankProfile = z.infer<typeof HsBankProfile>;

/** What the import could not carry, by kind: how many and why. */
export const HindsightSkipped = z.object({ kind: z.string(), count: z.number(), reason: z.string() });
export type HindsightSkipped = z.infer<typeof HindsightSkipped>;

export const HindsightImportResult = z.object({
  bankId: z.string(),
  source: z.object({ baseUrl: z.string(), bankId: z.string() }),
  counts: z.object({
    facts: z.number(),
    observations: z.number(),
    mentalModels: z.number(),
    skills: z.number(),
    suites: z.number(),
  }),
  /** Requests made to the Hindsight server. */
  requests: z.number(),
  skipped: z.array(HindsightSkipped),
});
export type HindsightImportResult = z.infer<typeof HindsightImportResult>;

/** `POST /api/v1/banks/import/hindsight`: the CLI's flags as a body (docs/hindsight.md#from-the-api). */
export const HindsightImportBody = z.strictObject({
  baseUrl: z
    .string()
    .min(1)
    .max(2000)
    .meta({ description: "the Hindsight server, http(s); its origin must be in HINDSIGHT_IMPORT_ORIGINS" }),
  bankId: z.string().min(1).max(200).meta({ description: "the bank's id on the Hindsight server" }),
  localBankId: z.string().min(1).max(200).optional().meta({ description: "the bank id here (default: bankId)" }),
  apiKey: z
    .string()
    .min(1)
    .max(4096)
    .optional()
    .meta({ description: "Hindsight's API key: sent as a bearer token, never stored" }),
  replace: z.boolean().default(false).meta({ description: "replace a bank here of the same id" }),
});
export type HindsightImportBody = z.output<typeof HindsightImportBody>;

/** `ReflectResponse` (required: text), with `based_on` and `trace` as `include.facts` / `include.tool_calls` ask. */
export const HsReflectResponse = z.looseObject({
  text: z.string(),
  based_on: z
    .looseObject({
      memories: z
        .array(
          z.looseObject({
            id: z.string().nullable().optional(),
            text: z.string(),
            type: z.string().nullable().optional(),
          }),
        )
        .default([]),
      mental_models: z.array(z.looseObject({ id: z.string(), text: z.string() })).default([]),
      directives: z.array(z.looseObject({ id: z.string(), name: z.string(), content: z.string() })).default([]),
    })
    .nullable()
    .optional(),
  usage: z
    .looseObject({ input_tokens: z.number().int().nonnegative(), output_tokens: z.number().int().nonnegative() })
    .nullable()
    .optional(),
  trace: z
    .looseObject({
      tool_calls: z
        .array(
          z.looseObject({
            tool: z.string().min(1),
            input: z.record(z.string(), z.unknown()),
            output: z.record(z.string(), z.unknown()).nullable().optional(),
            duration_ms: z.number().int().nonnegative(),
            iteration: z.number().int().nonnegative().default(0),
          }),
        )
        .default([]),
      llm_calls: z.array(z.looseObject({ scope: z.string(), duration_ms: z.number().int().nonnegative() })).default([]),
    })
    .nullable()
    .optional(),
});
export type HsReflectResponse = z.infer<typeof HsReflectResponse>;

export const AskHindsightResult = z.object({
  runId: z.string(),
  bankId: z.string(),
  answer: z.string(),
  toolCalls: z.number(),
  citations: z.number(),
});
export type AskHindsightResult = z.infer<typeof AskHindsightResult>;
