/**
 * Optional embedding model for hybrid retrieval, over the OpenAI SDK (any OpenAI-compatible
 * `/v1/embeddings`). Off unless `REFLECT_EMBEDDINGS=openai`; it reuses the chat model's key and URL.
 */
import type OpenAI from "openai";
import { z } from "zod";
import { ModelConfigError } from "./config";

export const DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small";
/** text-embedding-3-small's native size. */
export const DEFAULT_EMBEDDING_DIM = 1536;

export const EmbeddingConfig = z.object({
  model: z.string().min(1),
  dimensions: z.number().int().min(1).max(65_536),
  baseURL: z.string().optional(),
  apiKey: z.string().min(1),
});
export type EmbeddingConfig = z.infer<typeof EmbeddingConfig>;

export interface Embedder {
  dimensions: number;
  /** One vector per text, in order; each exactly `dimensions` long. */
  embed(texts: string[]): Promise<number[][]>;
}

/** The model answered with vectors of another size than the database is configured for. */
export class EmbeddingDimensionMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EmbeddingDimensionMismatchError";
  }
}

// Blank values (`FOO=` in a .env file) mean "not set".
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), schema.optional());

const EmbeddingEnv = z.object({
  REFLECT_EMBEDDINGS: optional(z.enum(["openai", "off"])),
  REFLECT_EMBEDDING_MODEL: optional(z.string().trim()),
  REFLECT_EMBEDDING_DIM: optional(
    z
      .string()
      .trim()
      .regex(/^\d+$/, "must be a whole number")
      .transform(Number)
      .pipe(z.number().int().min(1, "must be at least 1").max(65_536, "must be at most 65536")),
  ),
  OPENAI_API_KEY: optional(z.string().trim()),
  OPENAI_BASE_URL: optional(z.url({ protocol: /^https?$/, error: "must be an http(s) URL" })),
});

/** The embedding settings from an environment, or null when embeddings are off (the default). */
export function readEmbeddingConfig(env: Record<string, string | undefined>): EmbeddingConfig | null {
  const parsed = EmbeddingEnv.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new ModelConfigError(`Invalid embedding settings: ${problems.join("; ")}`);
  }
  const e = parsed.data;
  if ((e.REFLECT_EMBEDDINGS ?? "off") === "off") return null;
  if (!e.OPENAI_API_KEY) {
    throw new ModelConfigError(
      "Invalid embedding settings: OPENAI_API_KEY is required when REFLECT_EMBEDDINGS=openai (local servers accept any placeholder)",
    );
  }
  return {
    model: e.REFLECT_EMBEDDING_MODEL ?? DEFAULT_EMBEDDING_MODEL,
    dimensions: e.REFLECT_EMBEDDING_DIM ?? DEFAULT_EMBEDDING_DIM,
    baseURL: e.OPENAI_BASE_URL,
    apiKey: e.OPENAI_API_KEY,
  };
}

/** Only the text-embedding-3 family accepts a requested size; other models return their own. */
const acceptsDimensions = (model: string) => model.startsWith("text-embedding-3");

export function createEmbedder(config: EmbeddingConfig): Embedder {
  // The SDK is loaded on the first embedding, not with this module (docs/performance.md#cli-start-up-round-2).
  let sdk: Promise<OpenAI> | undefined;
  const client = () =>
    (sdk ??= Promise.all([import("openai"), import("./openai-model")]).then(
      ([{ default: SDK }, { wholeBodyFetch }]) =>
        new SDK({ apiKey: config.apiKey, baseURL: config.baseURL, fetch: wholeBodyFetch }),
    ));
  return {
    dimensions: config.dimensions,
    async embed(texts) {
      if (texts.length === 0) return [];
      const res = await (await client()).embeddings.create({
        model: config.model,
        input: texts,
        ...(acceptsDimensions(config.model) ? { dimensions: config.dimensions } : {}),
      });
      const vectors = [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
      if (vectors.length !== texts.length) {
        throw new Error(`embedding model ${config.model} returned ${vectors.length} vectors for ${texts.length} texts`);
      }
      const wrong = vectors.find((v) => v.length !== config.dimensions);
      if (wrong) {
        throw new EmbeddingDimensionMismatchError(
          `embedding model ${config.model} returned ${wrong.length} dimensions but REFLECT_EMBEDDING_DIM is ${config.dimensions}: set REFLECT_EMBEDDING_DIM=${wrong.length} (on a fresh database) or choose a model of that size`,
        );
      }
      return vectors;
    },
  };
}
