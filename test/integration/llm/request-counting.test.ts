/**
 * Issue 27.6 on the wire: every request the provider sends is counted. SDK retries and tool-choice
 * downgrades are requests of their own, each recorded as `llm.request_failed` with its error, and
 * the run reports both its answered calls (`llmCalls`) and its requests (`modelRequests`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIModel } from "@/lib/llm";
import { forgetForcedToolChoiceForms } from "@/lib/llm/openai-model";
import { runReflect } from "@/lib/reflect";
import { RunEvent } from "@/lib/reflect/events";
import { foldRun } from "@/lib/timeline/fold";
import { type FakeOpenAI, type FakeStep, serverProfile, startFakeOpenAI } from "@/test/fixtures/fake-openai-server";
import { atlasMemory, request } from "@/test/unit/reflect/harness";
import { followForced, type WireBody } from "./wire-harness";

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());

async function runOverWire(
  script: (body: WireBody, index: number) => FakeStep,
  config: { maxRetries: number; timeoutMs?: number; forced?: "named" },
) {
  fake.setScript((body, index) => script(body as unknown as WireBody, index));
  fake.requests.length = 0;
  forgetForcedToolChoiceForms();
  const events: RunEvent[] = [];
  let t = 0;
  const model = createOpenAIModel({
    kind: "openai",
    apiKey: "sk-test-secret-key",
    baseURL: fake.url,
    model: "fake-model",
    forcedToolChoice: config.forced,
    timeoutMs: config.timeoutMs ?? 5_000,
    maxRetries: config.maxRetries,
  });
  const result = await runReflect(
    {
      memory: atlasMemory({ mentalModels: [] }),
      model,
      sink: { append: async (e) => void events.push(RunEvent.parse(e)) },
      clock: { now: () => t++ },
      ids: { next: (p) => `${p}_${t++}` },
    },
    request({ budget: "mid" }),
  );
  const sent = fake.requests.filter((r) => r.path.endsWith("/chat/completions")).length;
  return { result, events, sent };
}

const failedRequests = (events: RunEvent[]) =>
  events.flatMap((e) => (e.type === "llm.request_failed" ? [{ ...e.payload, iteration: e.iteration }] : []));

describe("27.6: every model request is counted", () => {
  it("27.6: SDK retries are requests: recorded with their error, counted beside the answered calls", async () => {
    const answer = followForced(() => ({
      tool_calls: [{ name: "done", arguments: { answer: "Atlas launches on March 14.", memory_ids: ["f1"] } }],
    }));
    // The first request of every call fails with a 503 the SDK retries.
    let n = 0;
    const { result, events, sent } = await runOverWire(
      (body, index) => (n++ % 2 === 0 ? { status: 503 } : answer(body as never, index)),
      { maxRetries: 2, forced: "named" },
    );
    expect(result.status).toBe("done");
    expect(result.llmCalls).toBe(3);
    expect(result.modelRequests).toBe(6);
    expect(sent).toBe(6);
    const failed = failedRequests(events);
    expect(failed).toHaveLength(3);
    expect(failed.every((f) => f.kind === "retry" && f.status === 503 && f.error.startsWith("HTTP 503"))).toBe(true);
    expect(failed.map((f) => f.iteration)).toEqual([0, 1, 2]);
    // The run page's header shows both figures.
    const header = foldRun(events).header;
    expect(header.llmCalls).toBe(3);
    expect(header.modelRequests).toBe(6);
  });

  it("27.6: a tool-choice downgrade is a request of its own", async () => {
    const profile = serverProfile("rejects_named");
    const { result, events, sent } = await runOverWire(
      (body, index) => {
        const forced = (body.tool_choice as { function?: { name: string } } | string | undefined) ?? undefined;
        if (forced === "required" || forced === undefined) {
          const only = body.tools?.length === 1 ? body.tools[0]!.function.name : null;
          if (only === "done") {
            return {
              tool_calls: [{ name: "done", arguments: { answer: "Atlas launches on March 14.", memory_ids: ["f1"] } }],
            };
          }
        }
        return profile(body as never, index);
      },
      { maxRetries: 0 },
    );
    const failed = failedRequests(events);
    expect(failed[0]).toMatchObject({ kind: "downgrade", status: 400 });
    expect(failed[0]!.error).toContain("tool_choice");
    expect(result.modelRequests).toBe(result.llmCalls + failed.length);
    expect(result.modelRequests).toBe(sent);
  });

  it("27.6: a time-out reported after retries says how many requests it took", async () => {
    const { result, events, sent } = await runOverWire(() => ({ content: "late", delayMs: 2_000 }), {
      maxRetries: 2,
      timeoutMs: 200,
      forced: "named",
    });
    expect(result.status).toBe("failed");
    expect(result.error?.message).toMatch(/timed out after 200 ms per request; 3 requests took \d+\.\d s in all/);
    expect(result.llmCalls).toBe(0);
    expect(result.modelRequests).toBe(3);
    expect(sent).toBe(3);
    expect(failedRequests(events).map((f) => f.kind)).toEqual(["retry", "retry", "final"]);
  });
});
