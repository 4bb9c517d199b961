/**
 * The engine over the real `openai` SDK against the loopback fake server: one reflect run with a
 * scripted server, its events (each validated by the event schema) and the request bodies sent.
 */
import { createOpenAIModel } from "@/lib/llm";
import { forgetForcedToolChoiceForms } from "@/lib/llm/openai-model";
import { runReflect } from "@/lib/reflect";
import { RunEvent } from "@/lib/reflect/events";
import type { ChatRequestBody, FakeOpenAI, FakeScript, FakeStep } from "@/test/fixtures/fake-openai-server";
import type { InMemoryMemory } from "@/test/fixtures/in-memory-memory";
import { atlasMemory, request } from "@/test/unit/reflect/harness";

export const WIRE_KEY = "sk-test-secret-key";

export interface WireBody {
  messages: { role: string; content: string | null; tool_call_id?: string; tool_calls?: unknown[] }[];
  tools?: { function: { name: string } }[];
  tool_choice?: unknown;
}

export async function reflectOverWire(
  fake: FakeOpenAI,
  script: FakeScript,
  opts: { forced?: "named" | "required" | "omit" | "auto"; mm?: boolean; memory?: InMemoryMemory } = {},
) {
  fake.setScript(script);
  fake.requests.length = 0;
  forgetForcedToolChoiceForms();
  const events: RunEvent[] = [];
  let t = 0;
  const model = createOpenAIModel({
    kind: "openai",
    apiKey: WIRE_KEY,
    baseURL: fake.url,
    model: "fake-model",
    // "auto": unset, so the provider downgrades by itself (docs/engine.md#never-a-misleading-result).
    forcedToolChoice: opts.forced === "auto" ? undefined : (opts.forced ?? "named"),
    timeoutMs: 5000,
    maxRetries: 0,
  });
  const result = await runReflect(
    {
      memory: opts.memory ?? atlasMemory(opts.mm === false ? { mentalModels: [] } : {}),
      model,
      sink: { append: async (e) => void events.push(RunEvent.parse(e)) },
      clock: { now: () => t++ },
      ids: { next: (p) => `${p}_${t++}` },
    },
    request({ budget: "mid", anchorEvery: 2 }),
  );
  const bodies = fake.requests.filter((r) => r.path.endsWith("/chat/completions")).map((r) => r.body as WireBody);
  return { result, events, bodies };
}

export const toolCall = (name: string, args: Record<string, unknown> | string) => ({
  tool_calls: [{ name, arguments: args }],
});

const forcedName = (b: WireBody) => (b.tool_choice as { function?: { name: string } } | undefined)?.function?.name;

/** Follows forced turns with the forced tool; auto turns come from `auto`. */
export function followForced(
  auto: (body: WireBody, n: number) => FakeStep,
): (body: ChatRequestBody, index: number) => FakeStep {
  let n = 0;
  return (raw) => {
    const body = raw as unknown as WireBody;
    const forced = forcedName(body) ?? (body.tools?.length === 1 ? body.tools[0]?.function.name : undefined);
    if (forced === "done") return toolCall("done", { answer: "Atlas launches on March 14.", memory_ids: ["f1"] });
    if (forced) return toolCall(forced, { reason: "forced", query: "Atlas launch" });
    return auto(body, n++);
  };
}
