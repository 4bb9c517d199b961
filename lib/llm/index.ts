import type { ModelCheckReport } from "@/lib/contracts/model-check";
import type { ModelPort } from "@/lib/reflect/ports";
import type { ModelConfig, OpenAIModelConfig } from "./config";
import type { ModelCheckOptions } from "./model-check";
import { createOfflineModel, type OfflineModelOptions } from "./offline-model";
import { baseUrlHost } from "./provider-status";

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
export { formatModelCheck } from "./model-check-format";
export {
  createOfflineModel,
  NO_ANSWER_TEXT as OFFLINE_NO_ANSWER_TEXT,
  OFFLINE_TUNING,
  type OfflineModelOptions,
  type TermStats,
  type TermStatsPort,
} from "./offline-model";

/**
 * The model port over an OpenAI-compatible server. The `openai` SDK (some 150 modules) is loaded
 * on the first call, not here: a process on the offline model, or one that never calls the model
 * (`cli --help`, an import), never loads it (docs/performance.md#cli-start-up-round-2).
 */
export function createOpenAIModel(config: OpenAIModelConfig): ModelPort {
  let port: Promise<ModelPort> | undefined;
  return {
    info: { kind: "openai", name: config.model, baseUrlHost: baseUrlHost(config.baseURL) },
    async complete(request) {
      port ??= import("./openai-model").then((m) => m.createOpenAIModel(config));
      return (await port).complete(request);
    },
  };
}

/** Probes the configured model server (lib/llm/model-check.ts, loaded with the SDK on use). */
export async function checkModel(config: ModelConfig, options?: ModelCheckOptions): Promise<ModelCheckReport> {
  return (await import("./model-check")).checkModel(config, options);
}
export { baseUrlHost, type ProviderStatus, providerStatus } from "./provider-status";
