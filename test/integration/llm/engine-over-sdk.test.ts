/**
 * The engine driving the real `openai` SDK against the loopback fake server: what goes over the
 * wire on forced and auto turns, how steering reaches the model, and how model failures end a run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIModel } from "@/lib/llm";
import { runReflect } from "@/lib/reflect";
import type { RunEvent } from "@/lib/reflect/events";
import { type FakeOpenAI, type FakeScript, startFakeOpenAI } from "@/test/fixtures/fake-openai-server";
import { atlasMemory, request } from "@/test/unit/reflect/harness";

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());

interface WireBody {
  messages: { role: string; content: string | null }[];
  tools?: { function: { name: string } }[];
  tool_choice?: unknown;
}

async function reflectOverWire(
  script: FakeScript,
  opts: { forced?: "named" | "required" | "omit"; mm?: boolean } = {},
) {
  fake.setScript(script);
  fake.requests.length = 0;
  const events: RunEvent[] = [];
  let t = 0;
  const model = createOpenAIModel({
    kind: "openai",
    apiKey: "sk-test-secret-key",
    baseURL: fake.url,
    model: "fake-model",
    forcedToolChoice: opts.forced ?? "named",
    timeoutMs: 5000,
    maxRetries: 0,
  });
  const result = await runReflect(
    {
      memory: atlasMemory(opts.mm === false ? { mentalModels: [] } : {}),
      model,
      sink: { append: async (e) => void events.push(e) },
      clock: { now: () => t++ },
      ids: { next: (p) => `${p}_${t++}` },
    },
    request({ budget: "mid", anchorEvery: 2 }),
  );
  const bodies = fake.requests.filter((r) => r.path.endsWith("/chat/completions")).map((r) => r.body as WireBody);
  return { result, events, bodies };
}

const toolCall = (name: string, args: Record<string, unknown> | string) => ({
  tool_calls: [{ name, arguments: args }],
});
const forcedName = (b: WireBody) => (b.tool_choice as { function?: { name: string } } | undefined)?.function?.name;

/** Follows forced turns with the forced tool; auto turns come from `auto`. */
function followForced(auto: (body: WireBody, n: number) => ReturnType<typeof toolCall>): FakeScript {
  let n = 0;
  return (raw) => {
    const body = raw as unknown as WireBody;
    const forced = forcedName(body) ?? (body.tools?.length === 1 ? body.tools[0]?.function.name : undefined);
    if (forced === "done") return toolCall("done", { answer: "Atlas launches on March 14.", memory_ids: ["f1"] });
    if (forced) return toolCall(forced, { reason: "forced", query: "Atlas launch" });
    return auto(body, n++);
  };
}

describe("engine over the openai SDK", () => {
  it.each(["named", "required", "omit"] as const)(
    "a forced turn offers exactly one tool with the %s tool-choice form; auto turns offer every tier and done",
    async (mode) => {
      const { bodies } = await reflectOverWire(
        followForced(() => toolCall("done", { answer: "March 14.", memory_ids: ["f1"] })),
        { forced: mode, mm: false },
      );
      const [first, , third] = bodies;
      expect(first?.tools?.map((t) => t.function.name)).toEqual(["search_observations"]);
      if (mode === "named")
        expect(first?.tool_choice).toEqual({ type: "function", function: { name: "search_observations" } });
      if (mode === "required") expect(first?.tool_choice).toBe("required");
      if (mode === "omit") expect(first && "tool_choice" in first).toBe(false);
      expect(third?.tool_choice).toBe("auto");
      expect(third?.tools?.map((t) => t.function.name).sort()).toEqual(["done", "recall", "search_observations"]);
    },
  );

  it("delivers a nudge and the goal anchor as system messages, never as user messages", async () => {
    const { bodies, events } = await reflectOverWire(
      followForced((_b, n) =>
        n < 2
          ? toolCall("recall", { reason: "again", query: "zzz nothing" })
          : toolCall("done", { answer: "March 14.", memory_ids: ["f1"] }),
      ),
      { mm: false },
    );
    const nudgeText = events.find((e) => e.type === "steering.nudge");
    expect(nudgeText).toBeDefined();
    const withNudge = bodies.find((b) =>
      b.messages.some((m) => m.role === "system" && m.content?.includes("No progress")),
    );
    expect(withNudge).toBeDefined();
    const anchored = bodies.find((b) =>
      b.messages.some((m) => m.role === "system" && m.content?.includes("original question")),
    );
    expect(anchored).toBeDefined();
    for (const body of bodies) {
      const users = body.messages.filter((m) => m.role === "user");
      expect(users).toHaveLength(1);
      expect(body.messages.filter((m) => m.role === "user").at(-1)?.content).toBe("When is the Atlas launch?");
    }
  });

  it("malformed tool arguments reach the model as a tool error and the run recovers", async () => {
    const { result, bodies } = await reflectOverWire(
      followForced((_b, n) =>
        n === 0 ? toolCall("recall", "{not json") : toolCall("done", { answer: "March 14.", memory_ids: ["f1"] }),
      ),
      { mm: false },
    );
    expect(result.status).toBe("done");
    const toolErrors = bodies
      .flatMap((b) => b.messages)
      .filter((m) => m.role === "tool" && m.content?.includes("not valid JSON"));
    expect(toolErrors.length).toBeGreaterThan(0);
  });

  it("a model that never calls a tool fails the run with a clear message naming the model", async () => {
    const { result } = await reflectOverWire(() => ({ content: "I think the launch is soon." }), { mm: false });
    expect(result.status).toBe("failed");
    expect(result.error?.message).toContain("fake-model");
    expect(JSON.stringify(result)).not.toContain("sk-test-secret-key");
  });

  it("a 401 fails the run with a one-line error that never contains the key", async () => {
    const { result, events } = await reflectOverWire([{ status: 401 }], { mm: false });
    expect(result.status).toBe("failed");
    expect(result.error?.message).toMatch(/401/);
    expect(JSON.stringify(events)).not.toContain("sk-test-secret-key");
  });
});
