import { createModel, type ModelConfig, providerStatus, readModelConfig } from "@/lib/llm";
import type { ModelPort } from "@/lib/reflect";

let cached: ModelConfig | undefined;

/** The model configuration from the environment, read once per process. */
export function getModelConfig(): ModelConfig {
  cached ??= readModelConfig(process.env);
  return cached;
}

export function getModel(): ModelPort {
  return createModel(getModelConfig());
}

/** Model kind, name and base-URL host for the header and run records; never the key. */
export function getProviderStatus() {
  return providerStatus(getModelConfig());
}
