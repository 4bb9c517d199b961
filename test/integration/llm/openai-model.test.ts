import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { OpenAIModelConfig } from "@/lib/llm/config";
import { createOpenAIModel, forgetForcedToolChoiceForms, MAX_MODEL_RESPONSE_BYTES } from "@/lib/llm/openai-model";
import { ModelCallError } from "@/lib/reflect/errors";
import type { ModelRequest, ToolDefinition } from "@/lib/reflect/ports";
import { type FakeOpenAI, startFakeOpenAI } from "@/test/fixtures/fake-openai-server";

const API_KEY = "sk-test-SECRET-key-0123456789";

function tool(name: string): ToolDefinition {
  return {
    type: "function",
    function: { name, description: `${name} tool`, parameters: { type: "object", properties: {} } },
  };
}
const ALL_TOOLS = ["search_mental_models", "search_observations", "recall", "done"].map(tool);

function forcedRequest(name: string, tools = [tool(name)]): ModelRequest {
  return {
    messages: [
      { role: "system", content: "answer from memories" },
      { role: "user", content: "What did we decide about pricing?" },
    ],
    tools,
    toolChoice: { type: "function", function: { name } },
  };
}

const autoRequest: ModelRequest = { ...forcedRequest("recall"), tools: ALL_TOOLS, toolChoice: "auto" };

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

function model(overrides: Partial<OpenAIModelConfig> = {}) {
  return createOpenAIModel({
    kind: "openai",
    apiKey: API_KEY,
    baseURL: fake.url,
    model: "test-model",
    forcedToolChoice: "named",
    timeoutMs: 5_000,
    maxRetries: 2,
    ...overrides,
  });
}

function chatBodies() {
  return fake.requests.filter((r) => r.path === "/v1/chat/completions").map((r) => r.body as Record<string, unknown>);
}

function firstChatBody(): Record<string, unknown> {
  const [body] = chatBodies();
  if (!body) throw new Error("no chat completion request was recorded");
  return body;
}

function offeredTools(body: Record<string, unknown>): string[] {
  return (body.tools as ToolDefinition[]).map((t) => t.function.name);
}

async function callError(promise: Promise<unknown>): Promise<ModelCallError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelCallError);
  return error as ModelCallError;
}

describe("OpenAI-compatible model over the real SDK", () => {
  it("sends a forced turn with exactly the forced tool and a named tool choice", async () => {
    fake.setScript([{ tool_calls: [{ name: "recall", arguments: { reason: "r", query: "pricing" } }] }]);
    await model().complete(forcedRequest("recall"));
    const body = firstChatBody();
    expect(offeredTools(body)).toEqual(["recall"]);
    expect(body.tool_choice).toEqual({ type: "function", function: { name: "recall" } });
    expect(body.model).toBe("test-model");
    expect(body.stream).toBeUndefined();
  });

  it("keeps only the forced tool even when more tools are passed", async () => {
    fake.setScript([{ tool_calls: [{ name: "done", arguments: {} }] }]);
    await model().complete(forcedRequest("done", ALL_TOOLS));
    expect(offeredTools(firstChatBody())).toEqual(["done"]);
  });

  it("downgrades a forced choice to 'required' when configured", async () => {
    fake.setScript([{ tool_calls: [{ name: "recall", arguments: {} }] }]);
    await model({ forcedToolChoice: "required" }).complete(forcedRequest("recall"));
    const body = firstChatBody();
    expect(body.tool_choice).toBe("required");
    expect(offeredTools(body)).toEqual(["recall"]);
  });

  it("omits the tool choice when configured, still offering only the forced tool", async () => {
    fake.setScript([{ tool_calls: [{ name: "recall", arguments: {} }] }]);
    await model({ forcedToolChoice: "omit" }).complete(forcedRequest("recall"));
    const body = firstChatBody();
    expect(body).not.toHaveProperty("tool_choice");
    expect(offeredTools(body)).toEqual(["recall"]);
  });

  it("sends tool_choice auto with every offered tool on an auto turn, plus the key and temperature", async () => {
    fake.setScript([{ content: "thinking" }]);
    await model({ temperature: 0.2 }).complete(autoRequest);
    const body = firstChatBody();
    expect(body.tool_choice).toBe("auto");
    expect(offeredTools(body)).toEqual(ALL_TOOLS.map((t) => t.function.name));
    expect(body.temperature).toBe(0.2);
    expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it("maps content, raw tool-call arguments, finish reason and usage", async () => {
    fake.setScript([
      {
        content: "Searching.",
        tool_calls: [
          { id: "call_a", name: "recall", arguments: '{"query":"pricing"' },
          { id: "call_b", name: "search_observations", arguments: { reason: "r", query: "q" } },
        ],
        usage: { prompt_tokens: 123, completion_tokens: 45 },
      },
    ]);
    const response = await model().complete(autoRequest);
    expect(response).toEqual({
      content: "Searching.",
      toolCalls: [
        { id: "call_a", type: "function", function: { name: "recall", arguments: '{"query":"pricing"' } },
        {
          id: "call_b",
          type: "function",
          function: { name: "search_observations", arguments: '{"reason":"r","query":"q"}' },
        },
      ],
      finishReason: "tool_calls",
      usage: { inputTokens: 123, outputTokens: 45 },
    });
  });

  it("reports zero usage when the server sends none", async () => {
    fake.setScript([{ content: "hi", usage: null }]);
    const response = await model().complete(autoRequest);
    expect(response.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
    expect(response.finishReason).toBe("stop");
  });

  it("refuses a response body past MAX_MODEL_RESPONSE_BYTES by name, without holding it (a faulty server's 40 MB)", async () => {
    const huge = "x".repeat(MAX_MODEL_RESPONSE_BYTES + 8 * 1024 * 1024);
    fake.setScript([{ content: huge }, { content: "small again" }]);
    const error = await model({ maxRetries: 0 })
      .complete(autoRequest)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as Error).message).toMatch(
      /^model test-model at 127\.0\.0\.1:\d+: the response is larger than 32 MiB: refused/,
    );
    // The next call reads as before; a body just under the cap is read whole.
    expect((await model({ maxRetries: 0 }).complete(autoRequest)).content).toBe("small again");
    const under = "y".repeat(MAX_MODEL_RESPONSE_BYTES - 4096);
    fake.setScript([{ content: under }]);
    expect((await model({ maxRetries: 0 }).complete(autoRequest)).content).toBe(under);
  }, 60_000);

  it("retries a 429 and then succeeds", async () => {
    fake.setScript([{ status: 429 }, { content: "ok" }]);
    const response = await model().complete(autoRequest);
    expect(response.content).toBe("ok");
    expect(chatBodies()).toHaveLength(2);
  });

  it("retries a 500 and then succeeds", async () => {
    fake.setScript([{ status: 500 }, { content: "ok" }]);
    const response = await model().complete(autoRequest);
    expect(response.content).toBe("ok");
    expect(chatBodies()).toHaveLength(2);
  });

  it("gives up after the configured retries with the last status", async () => {
    fake.setScript([{ status: 503 }, { status: 503 }, { status: 503 }, { content: "never" }]);
    const error = await callError(model({ maxRetries: 2 }).complete(autoRequest));
    expect(chatBodies()).toHaveLength(3);
    expect(error.status).toBe(503);
  });

  it("does not retry a 401 and names model and status without leaking the key", async () => {
    fake.setScript([
      {
        status: 401,
        body: { error: { message: `Incorrect API key provided: ${API_KEY}`, type: "invalid_request_error" } },
      },
      { content: "never" },
    ]);
    const error = await callError(model().complete(autoRequest));
    expect(chatBodies()).toHaveLength(1);
    expect(error.message).toContain("test-model");
    expect(error.message).toContain("401");
    expect(error.message).toContain("Incorrect API key provided");
    expect(error.message).not.toContain(API_KEY);
    expect(error.message).not.toContain("SECRET");
    expect(error.message).not.toContain("\n");
    expect(error.model).toBe("test-model");
    expect(error.status).toBe(401);
  });

  it.each([400, 403])("does not retry a %i", async (status) => {
    fake.setScript([{ status }, { content: "never" }]);
    const error = await callError(model().complete(autoRequest));
    expect(chatBodies()).toHaveLength(1);
    expect(error.status).toBe(status);
  });

  it("a placeholder key like `ollama` is no secret: a message naming the model ollama/… is kept whole", async () => {
    fake.setScript([
      { status: 404, body: { error: { message: 'model "ollama/llama3:8b" not found, try pulling it first' } } },
    ]);
    const error = await callError(model({ apiKey: "ollama" }).complete(autoRequest));
    expect(error.message).toContain('HTTP 404: model "ollama/llama3:8b" not found, try pulling it first');
    expect(error.message).not.toContain("[redacted]");
  });

  it("a short key is redacted where it stands as a credential, not inside another word", async () => {
    fake.setScript([
      {
        status: 401,
        body: { error: { message: "Bearer abc12345 is not valid for model abc12345-chat (key=abc12345)" } },
      },
    ]);
    const error = await callError(model({ apiKey: "abc12345" }).complete(autoRequest));
    expect(error.message).toContain(
      "HTTP 401: Bearer [redacted] is not valid for model abc12345-chat (key=[redacted])",
    );
  });

  it('a server that refuses tool_choice "auto" (vLLM without its flags) fails the turn saying why and what to enable', async () => {
    const vllm = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set';
    fake.setScript([{ status: 400, body: { object: "error", message: vllm } }]);
    const error = await callError(model().complete(autoRequest));
    expect(chatBodies()).toHaveLength(1);
    expect(error.message).toContain(`HTTP 400: ${vllm} (the server refuses tool_choice "auto"`);
    expect(error.message).toContain("enable automatic tool choice on the server");
  });

  it("a 200 HTML page fails the call saying so and naming the base URL to check", async () => {
    fake.setScript([
      { rawBody: { contentType: "text/html; charset=utf-8", text: "\n<html><body>It works</body></html>" } },
    ]);
    const error = await callError(model().complete(autoRequest));
    expect(error.message).toBe(
      `model test-model at ${new URL(fake.url).host} answered with an HTML page, not the chat-completions format: check OPENAI_BASE_URL (an OpenAI-compatible server's usually ends in /v1)`,
    );
  });

  it("with a pinned named form, a server that rejects it fails with a hint naming the setting", async () => {
    fake.setScript([{ status: 400, body: { error: { message: "tool_choice must be 'auto' or 'none'" } } }]);
    const error = await callError(model({ forcedToolChoice: "named" }).complete(forcedRequest("recall")));
    expect(chatBodies()).toHaveLength(1);
    expect(error.message).toContain("HTTP 400: tool_choice must be 'auto' or 'none'");
    expect(error.message).toContain("REFLECT_FORCED_TOOL_CHOICE=required or omit");
  });

  describe("12: servers that reject a named tool choice", () => {
    const rejectNamed = (body: Record<string, unknown>) =>
      typeof body.tool_choice === "object"
        ? { status: 400, body: { error: { message: "tool_choice: only 'auto', 'none' or 'required' are supported" } } }
        : { tool_calls: [{ name: "recall", arguments: { reason: "r", query: "pricing" } }] };
    beforeEach(() => forgetForcedToolChoiceForms());

    it("retries once with required, reports the downgrade, and remembers it per base URL and model", async () => {
      fake.setScript((body) => rejectNamed(body));
      const first = await model({ forcedToolChoice: undefined }).complete(forcedRequest("recall"));
      expect(chatBodies().map((b) => b.tool_choice)).toEqual([
        { type: "function", function: { name: "recall" } },
        "required",
      ]);
      expect(first.toolCalls[0]?.function.name).toBe("recall");
      expect(first.warnings).toEqual(["forced_tool_choice_downgraded: named → required"]);

      fake.requests.length = 0;
      const again = await model({ forcedToolChoice: undefined }).complete(forcedRequest("recall"));
      expect(chatBodies().map((b) => b.tool_choice)).toEqual(["required"]);
      expect(again.warnings).toEqual(["forced_tool_choice_downgraded: named → required"]);

      // Another model on the same server starts from the named form again.
      fake.requests.length = 0;
      await model({ forcedToolChoice: undefined, model: "other-model" }).complete(forcedRequest("recall"));
      expect(chatBodies()).toHaveLength(2);
    });

    it("falls back to no tool choice when required is rejected too", async () => {
      fake.setScript((body) =>
        body.tool_choice === undefined || body.tool_choice === "auto"
          ? { tool_calls: [{ name: "recall", arguments: { reason: "r", query: "pricing" } }] }
          : {
              status: 400,
              body: { error: { message: `unsupported tool_choice ${JSON.stringify(body.tool_choice)}` } },
            },
      );
      const response = await model({ forcedToolChoice: undefined }).complete(forcedRequest("recall"));
      const bodies = chatBodies();
      expect(bodies).toHaveLength(3);
      expect(bodies[2]).not.toHaveProperty("tool_choice");
      expect(offeredTools(bodies[2]!)).toEqual(["recall"]);
      expect(response.warnings).toEqual(["forced_tool_choice_downgraded: named → omit"]);
    });

    it("a 400 that does not name tool_choice is not retried, and auto turns are never downgraded", async () => {
      fake.setScript([{ status: 400, body: { error: { message: "messages: too long" } } }, { content: "never" }]);
      const error = await callError(model({ forcedToolChoice: undefined }).complete(forcedRequest("recall")));
      expect(error.status).toBe(400);
      expect(chatBodies()).toHaveLength(1);
    });

    // vLLM answers a 400 with a top-level body, not OpenAI's {"error":{…}}: the SDK alone would
    // report "400 status code (no body)" and the downgrade would never happen.
    const vllm400 = (message: string) => ({
      status: 400,
      body: { object: "error", message, type: "BadRequestError", param: null, code: 400 },
    });

    it("downgrades on a vLLM-shaped 400 whose top-level message names tool_choice", async () => {
      fake.setScript((body) =>
        typeof body.tool_choice === "object"
          ? vllm400("Invalid value for `tool_choice`: named tool choice requires guided decoding")
          : { tool_calls: [{ name: "recall", arguments: { reason: "r", query: "pricing" } }] },
      );
      const response = await model({ forcedToolChoice: undefined }).complete(forcedRequest("recall"));
      expect(chatBodies().map((b) => b.tool_choice)).toEqual([
        { type: "function", function: { name: "recall" } },
        "required",
      ]);
      expect(response.warnings).toEqual(["forced_tool_choice_downgraded: named → required"]);
    });

    it("reports the server's own message from a vLLM-shaped 400, never 'no body'", async () => {
      fake.setScript(() => vllm400("messages: too long"));
      const error = await callError(model({ forcedToolChoice: undefined }).complete(forcedRequest("recall")));
      expect(error.message).toContain("HTTP 400: messages: too long");
      expect(error.message).not.toContain("no body");
      expect(chatBodies()).toHaveLength(1);
    });

    it("REFLECT_FORCED_TOOL_CHOICE pins the form: no downgrade, no warning", async () => {
      fake.setScript((body) => rejectNamed(body));
      const response = await model({ forcedToolChoice: "required" }).complete(forcedRequest("recall"));
      expect(chatBodies().map((b) => b.tool_choice)).toEqual(["required"]);
      expect(response.warnings).toBeUndefined();
    });
  });

  it("fails a call that outlives its timeout", async () => {
    fake.setScript([{ content: "late", delayMs: 3_000 }]);
    const started = Date.now();
    const error = await callError(model({ timeoutMs: 150, maxRetries: 0 }).complete(autoRequest));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error.message).toMatch(/test-model.*timed out after 150 ms/);
  });

  it("retries a timed-out call", async () => {
    fake.setScript([{ content: "late", delayMs: 3_000 }, { content: "on time" }]);
    const response = await model({ timeoutMs: 300, maxRetries: 1 }).complete(autoRequest);
    expect(response.content).toBe("on time");
    expect(chatBodies()).toHaveLength(2);
  });

  it("cancels an in-flight call through the request's AbortSignal", async () => {
    fake.setScript([{ content: "late", delayMs: 3_000 }, { content: "never" }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const error = await callError(model().complete({ ...autoRequest, signal: controller.signal }));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error.message).toMatch(/aborted/);
    expect(chatBodies()).toHaveLength(1);
  });

  it("reports an unreachable server as a connection failure naming the model", async () => {
    const gone = await startFakeOpenAI();
    const url = gone.url;
    await gone.close();
    const error = await callError(model({ baseURL: url, maxRetries: 0 }).complete(autoRequest));
    expect(error.message).toMatch(/test-model at 127\.0\.0\.1:\d+: connection failed/);
    // The socket's reason, not fetch's bare "fetch failed".
    expect(error.message).toMatch(/connection failed \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)/);
  });

  it("describes itself with the model name and base-URL host", () => {
    const port = new URL(fake.url).port;
    expect(model().info).toEqual({ kind: "openai", name: "test-model", baseUrlHost: `127.0.0.1:${port}` });
    expect(model({ baseURL: undefined }).info.baseUrlHost).toBe("api.openai.com");
  });
});

describe("fake OpenAI server", () => {
  it("streams a completion as SSE chunks the SDK can assemble", async () => {
    fake.setScript([
      { content: "Hi", tool_calls: [{ id: "call_s", name: "recall", arguments: { query: "x" } }], usage: null },
    ]);
    const client = new OpenAI({ apiKey: API_KEY, baseURL: fake.url, maxRetries: 0 });
    const stream = client.chat.completions.stream({ model: "m", messages: [{ role: "user", content: "hi" }] });
    const completion = await stream.finalChatCompletion();
    expect(completion.choices[0]?.message.content).toBe("Hi");
    expect(completion.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      id: "call_s",
      function: { name: "recall", arguments: '{"query":"x"}' },
    });
    expect(completion.choices[0]?.finish_reason).toBe("tool_calls");
  });

  it("returns deterministic embeddings of the requested dimension, also as base64 for the SDK", async () => {
    const client = new OpenAI({ apiKey: API_KEY, baseURL: fake.url, maxRetries: 0 });
    const first = await client.embeddings.create({
      model: "e",
      input: ["pricing plan", "pricing plan"],
      dimensions: 12,
    });
    const again = await client.embeddings.create({ model: "e", input: "pricing plan", dimensions: 12 });
    const vector = first.data[0]?.embedding ?? [];
    expect(vector).toHaveLength(12);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    expect(first.data[1]?.embedding).toEqual(vector);
    expect(again.data[0]?.embedding).toEqual(vector);
  });
});
