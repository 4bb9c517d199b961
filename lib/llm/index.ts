import type { ModelPort } from "@/lib/reflect/ports";
import type { ModelConfig } from "./config";
import { createOfflineModel, type OfflineModelOptions } from "./offline-model";
import { createOpenAIModel } from "./openai-model";

/** The model port for a configuration read by `readModelConfig`; `offline` options apply to the offline model only. */
export function createModel(config: ModelConfig, offline: OfflineModelOptions = {}): ModelPort {
  return config.kind === "offline" ? createOfflineModel(offline) : createOpenAIModel(config);
}

export {
  DEFAULT_MAX_RETRIES,
  DEFAULT_MODEL,
  DEFAULT_TIMEOUT_MS,
  ForcedToolChoiceMode,
  ModelConfig,
  ModelConfigError,
  OpenAIModelConfig,
  readModelConfig,
} from "./config";
export { checkModel, formatModelCheck } from "./model-check";
export {
  createOfflineModel,
  NO_ANSWER_TEXT as OFFLINE_NO_ANSWER_TEXT,
  OFFLINE_TUNING,
  type OfflineModelOptions,
  type TermStats,
  type TermStatsPort,
} from "./offline-model";
export { createOpenAIModel } from "./openai-model";
export { baseUrlHost, type ProviderStatus, providerStatus } from "./provider-status";
