import { z } from "zod";

/**
 * How a forced turn's tool choice goes on the wire. `named` is the OpenAI form; some servers
 * (older vLLM, Ollama, LM Studio) reject it. Unset, the provider starts named and downgrades by
 * itself on a 400 that names `tool_choice` (named → required → omit); a set value pins the form.
 */
export const ForcedToolChoiceMode = z.enum(["named", "required", "omit"]);
export type ForcedToolChoiceMode = z.infer<typeof ForcedToolChoiceMode>;

export const DEFAULT_MODEL = "gpt-4o-mini";
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;

export const OpenAIModelConfig = z.object({
  kind: z.literal("openai"),
  apiKey: z.string().min(1),
  baseURL: z.url({ protocol: /^https?$/ }).optional(),
  model: z.string().trim().min(1),
  temperature: z.number().min(0).max(2).optional(),
  /** Pinned by REFLECT_FORCED_TOOL_CHOICE; absent means named with automatic downgrade. */
  forcedToolChoice: ForcedToolChoiceMode.optional(),
  timeoutMs: z.number().int().positive(),
  maxRetries: z.number().int().min(0).max(10),
});
export type OpenAIModelConfig = z.infer<typeof OpenAIModelConfig>;

export const ModelConfig = z.discriminatedUnion("kind", [z.object({ kind: z.literal("offline") }), OpenAIModelConfig]);
export type ModelConfig = z.infer<typeof ModelConfig>;

/** A bad model setting in the environment; the message names the variable. */
export class ModelConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelConfigError";
  }
}

// Blank values (`FOO=` in a .env file) mean "not set".
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), schema.optional());

const intFrom = (min: number, max: number) =>
  z.string().trim().regex(/^\d+$/, "must be a whole number").transform(Number).pipe(z.number().int().min(min).max(max));

const ModelEnv = z.object({
  REFLECT_LLM: optional(z.enum(["openai", "offline"])),
  OPENAI_API_KEY: optional(z.string().trim()),
  OPENAI_BASE_URL: optional(z.url({ protocol: /^https?$/, error: "must be an http(s) URL" })),
  REFLECT_MODEL: optional(z.string().trim()),
  REFLECT_TEMPERATURE: optional(
    z
      .string()
      .trim()
      .regex(/^\d+(\.\d+)?$/, "must be a number between 0 and 2")
      .transform(Number)
      .pipe(z.number().min(0, "must be between 0 and 2").max(2, "must be between 0 and 2")),
  ),
  REFLECT_FORCED_TOOL_CHOICE: optional(ForcedToolChoiceMode),
  REFLECT_LLM_TIMEOUT_MS: optional(intFrom(1, 3_600_000)),
  REFLECT_LLM_MAX_RETRIES: optional(intFrom(0, 10)),
});

/**
 * Reads the model settings from an environment (normally `process.env`). Without an API key and
 * without an explicit `REFLECT_LLM=openai` the embedded offline model is used.
 */
export function readModelConfig(env: Record<string, string | undefined>): ModelConfig {
  const parsed = ModelEnv.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new ModelConfigError(`Invalid model settings: ${problems.join("; ")}`);
  }
  const e = parsed.data;
  const kind = e.REFLECT_LLM ?? (e.OPENAI_API_KEY ? "openai" : "offline");
  if (kind === "offline") return { kind: "offline" };
  if (!e.OPENAI_API_KEY) {
    throw new ModelConfigError(
      "Invalid model settings: OPENAI_API_KEY is required when REFLECT_LLM=openai (local servers accept any placeholder)",
    );
  }
  return {
    kind: "openai",
    apiKey: e.OPENAI_API_KEY,
    baseURL: e.OPENAI_BASE_URL,
    model: e.REFLECT_MODEL ?? DEFAULT_MODEL,
    temperature: e.REFLECT_TEMPERATURE,
    forcedToolChoice: e.REFLECT_FORCED_TOOL_CHOICE,
    timeoutMs: e.REFLECT_LLM_TIMEOUT_MS ?? DEFAULT_TIMEOUT_MS,
    maxRetries: e.REFLECT_LLM_MAX_RETRIES ?? DEFAULT_MAX_RETRIES,
  };
}
