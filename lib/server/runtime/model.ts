import type { Db } from "@/db/client";
import { termDocumentFrequencies } from "@/db/queries/term-stats";
import type { ModelCheckReport } from "@/lib/contracts/model-check";
import {
  checkModel,
  createModel,
  type ModelConfig,
  providerStatus,
  readModelConfig,
  type TermStatsPort,
} from "@/lib/llm";
import type { ModelPort } from "@/lib/reflect";

let cached: ModelConfig | undefined;

/** The model configuration from the environment, read once per process. */
export function getModelConfig(): ModelConfig {
  cached ??= readModelConfig(process.env);
  return cached;
}

/** The offline model's term statistics: document frequencies from the bank's own FTS5 indexes. */
export function termStatsPort(db: Db, bankId: string): TermStatsPort {
  return { lookup: (stems) => termDocumentFrequencies(db, bankId, stems) };
}

/** The configured model; given the bank, the offline model weighs words by the bank's statistics. */
export function getModel(bank?: { db: Db; bankId: string }): ModelPort {
  return createModel(getModelConfig(), bank ? { termStats: termStatsPort(bank.db, bank.bankId) } : {});
}

/** Model kind, name and base-URL host for the header and run records; never the key. */
export function getProviderStatus() {
  return providerStatus(getModelConfig());
}

/** Probes the configured model server (`model check`); the offline model reports itself. */
export function checkConfiguredModel(): Promise<ModelCheckReport> {
  return checkModel(getModelConfig());
}

/** The pinned forced tool-choice form, for the model page; null when the provider picks it. */
export function getPinnedForcedToolChoice(): string | null {
  const config = getModelConfig();
  return config.kind === "openai" ? (config.forcedToolChoice ?? null) : null;
}
