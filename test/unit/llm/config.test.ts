import { describe, expect, it } from "vitest";
import { createModel } from "@/lib/llm";
import { ModelConfigError, readModelConfig } from "@/lib/llm/config";
import { providerStatus } from "@/lib/llm/provider-status";

const KEY = "sk-unit-secret-123456";

function configError(env: Record<string, string | undefined>): string {
  try {
    readModelConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ModelConfigError);
    return (error as Error).message;
  }
  throw new Error("expected readModelConfig to throw");
}

describe("model settings from the environment", () => {
  it("uses the offline model when no API key is set", () => {
    expect(readModelConfig({})).toEqual({ kind: "offline" });
    expect(readModelConfig({ OPENAI_API_KEY: "" })).toEqual({ kind: "offline" });
  });

  it("uses OpenAI with the documented defaults when a key is set", () => {
    expect(readModelConfig({ OPENAI_API_KEY: KEY })).toEqual({
      kind: "openai",
      apiKey: KEY,
      baseURL: undefined,
      model: "gpt-4o-mini",
      temperature: undefined,
      // Unset: named, downgraded automatically by the provider when a server rejects it.
      forcedToolChoice: undefined,
      timeoutMs: 60_000,
      maxRetries: 2,
    });
  });

  it("honours REFLECT_LLM=offline even with a key", () => {
    expect(readModelConfig({ REFLECT_LLM: "offline", OPENAI_API_KEY: KEY })).toEqual({ kind: "offline" });
  });

  it("reads every OpenAI-compatible setting", () => {
    expect(
      readModelConfig({
        REFLECT_LLM: "openai",
        OPENAI_API_KEY: KEY,
        OPENAI_BASE_URL: "http://localhost:11434/v1",
        REFLECT_MODEL: "llama3.1",
        REFLECT_TEMPERATURE: "0.3",
        REFLECT_FORCED_TOOL_CHOICE: "required",
        REFLECT_LLM_TIMEOUT_MS: "1500",
        REFLECT_LLM_MAX_RETRIES: "0",
      }),
    ).toEqual({
      kind: "openai",
      apiKey: KEY,
      baseURL: "http://localhost:11434/v1",
      model: "llama3.1",
      temperature: 0.3,
      forcedToolChoice: "required",
      timeoutMs: 1500,
      maxRetries: 0,
    });
  });

  it.each([
    [{ REFLECT_LLM: "anthropic" }, "REFLECT_LLM"],
    [{ OPENAI_API_KEY: KEY, REFLECT_FORCED_TOOL_CHOICE: "always" }, "REFLECT_FORCED_TOOL_CHOICE"],
    [{ OPENAI_API_KEY: KEY, REFLECT_TEMPERATURE: "hot" }, "REFLECT_TEMPERATURE"],
    [{ OPENAI_API_KEY: KEY, REFLECT_TEMPERATURE: "3" }, "REFLECT_TEMPERATURE"],
    [{ OPENAI_API_KEY: KEY, REFLECT_LLM_TIMEOUT_MS: "soon" }, "REFLECT_LLM_TIMEOUT_MS"],
    [{ OPENAI_API_KEY: KEY, REFLECT_LLM_TIMEOUT_MS: "0" }, "REFLECT_LLM_TIMEOUT_MS"],
    [{ OPENAI_API_KEY: KEY, REFLECT_LLM_MAX_RETRIES: "-1" }, "REFLECT_LLM_MAX_RETRIES"],
    [{ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: "localhost:11434" }, "OPENAI_BASE_URL"],
    [{ REFLECT_LLM: "openai" }, "OPENAI_API_KEY"],
  ])("rejects a bad value with an error naming the variable (%o)", (env, variable) => {
    const message = configError(env);
    expect(message).toContain(variable);
    expect(message).not.toContain(KEY);
  });
});

describe("provider status for the UI header", () => {
  it("names kind, model and host, never the key", () => {
    const openai = readModelConfig({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: "https://openrouter.ai/api/v1" });
    expect(providerStatus(openai)).toEqual({ kind: "openai", model: "gpt-4o-mini", baseUrlHost: "openrouter.ai" });
    expect(JSON.stringify(providerStatus(openai))).not.toContain(KEY);
    expect(providerStatus(readModelConfig({ OPENAI_API_KEY: KEY })).baseUrlHost).toBe("api.openai.com");
    expect(providerStatus({ kind: "offline" })).toEqual({ kind: "offline", model: "offline" });
  });

  it("creates the model the configuration names", () => {
    expect(createModel({ kind: "offline" }).info.kind).toBe("offline");
    expect(createModel(readModelConfig({ OPENAI_API_KEY: KEY, REFLECT_MODEL: "m" })).info).toEqual({
      kind: "openai",
      name: "m",
      baseUrlHost: "api.openai.com",
    });
  });
});
