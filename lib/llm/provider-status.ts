import type { ModelConfig } from "./config";

const OPENAI_HOST = "api.openai.com";

/** The host the client talks to, shown in the UI so a user can tell OpenAI from a local server. */
export function baseUrlHost(baseURL: string | undefined): string {
  return baseURL ? new URL(baseURL).host : OPENAI_HOST;
}

export interface ProviderStatus {
  kind: ModelConfig["kind"];
  model: string;
  baseUrlHost?: string;
}

/** What the UI header shows about the configured model. Never carries the API key. */
export function providerStatus(config: ModelConfig): ProviderStatus {
  if (config.kind === "offline") return { kind: "offline", model: "offline" };
  return { kind: "openai", model: config.model, baseUrlHost: baseUrlHost(config.baseURL) };
}
