/**
 * The engine driving the real `openai` SDK against the loopback fake server: what goes over the
 * wire on forced and auto turns, how steering reaches the model, and how model failures end a run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, type FakeScript, startFakeOpenAI } from "@/test/fixtures/fake-openai-server";
import type { InMemoryMemory } from "@/test/fixtures/in-memory-memory";
import { ATLAS_MODEL, atlasMemory } from "@/test/unit/reflect/harness";
import { followForced, reflectOverWire as overWire, toolCall, type WireBody } from "./wire-harness";

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());

const reflectOverWire = (
  script: FakeScript,
  opts: { forced?: "named" | "required" | "omit" | "auto"; mm?: boolean; memory?: InMemoryMemory } = {},
) => overWire(fake, script, opts);

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

  describe("issue 12 on the wire", () => {
    const forcedToolOf = (b: WireBody) => (b.tools?.length === 1 ? b.tools[0]?.function.name : undefined);
    const lastToolMessage = (b: WireBody) => b.messages.findLast((m) => m.role !== "system");

    it.each(["required", "omit"] as const)(
      "1: with the %s form a done on a forced retrieval turn is refused and the tier forced again",
      async (mode) => {
        const stale = atlasMemory({
          mentalModels: [{ ...ATLAS_MODEL, isStale: true, stalenessReason: "newer facts" }],
        });
        const { result, bodies, events } = await reflectOverWire(
          (raw) => {
            const body = raw as unknown as WireBody;
            const forced = forcedToolOf(body);
            const last = lastToolMessage(body);
            const refused = last?.role === "tool" && last.content?.includes("refused");
            if (forced && forced !== "done" && (forced === "search_mental_models" || refused)) {
              return toolCall(forced, { reason: "forced", query: "Atlas launch" });
            }
            return toolCall("done", { answer: "Atlas launches on March 14.", mental_model_ids: ["mm1"] });
          },
          { forced: mode, memory: stale },
        );
        expect(bodies.map(forcedToolOf).slice(0, 3)).toEqual([
          "search_mental_models",
          "search_observations",
          "search_observations",
        ]);
        const refusals = events.filter((e) => e.type === "tool.result" && e.payload.error?.includes("refused"));
        expect(refusals.length).toBeGreaterThan(0);
        expect(result.status).toBe("done");
        expect(result.llmCalls).toBeGreaterThan(2);
      },
    );

    it("9: prose under auto gets a system hint on the next request and the run finishes", async () => {
      const { result, bodies } = await reflectOverWire(
        followForced((body) =>
          body.messages.some((m) => m.role === "system" && m.content?.includes("Finish with done"))
            ? toolCall("done", { answer: "March 14.", memory_ids: ["f1"] })
            : { content: "It is March 14." },
        ),
        { mm: false },
      );
      const hinted = bodies.findIndex((b) =>
        b.messages.some((m) => m.role === "system" && m.content?.includes("Finish with done")),
      );
      expect(hinted).toBe(3);
      expect(result).toMatchObject({ status: "done", llmCalls: 4 });
    });

    it("10: tool calls without a function or a name, and a response without usage, are tool errors", async () => {
      const { result, bodies } = await reflectOverWire(
        followForced((_b, n) =>
          n === 0
            ? {
                raw_tool_calls: [
                  { id: "bad_1", type: "function", function: { arguments: "{}" } },
                  { id: "bad_2", type: "function" },
                ],
                usage: null,
              }
            : toolCall("done", { answer: "March 14.", memory_ids: ["f1"] }),
        ),
        { mm: false },
      );
      expect(result.status).toBe("done");
      const errors = bodies
        .flatMap((b) => b.messages)
        .filter((m) => m.role === "tool" && m.content?.includes("no function name"));
      expect(new Set(errors.map((m) => m.tool_call_id))).toEqual(new Set(["bad_1", "bad_2"]));
    });

    it.each([
      ["required", (choice: unknown) => typeof choice === "object" && choice !== null],
      ["omit", (choice: unknown) => choice !== undefined && choice !== "auto"],
    ] as const)(
      "12: a server that rejects a named tool choice just works (named → %s) and the run says so",
      async (form, rejects) => {
        const { result, bodies, events } = await reflectOverWire(
          (raw, index) => {
            const body = raw as unknown as WireBody;
            if (rejects(body.tool_choice)) {
              return {
                status: 400,
                body: { error: { message: `tool_choice ${JSON.stringify(body.tool_choice)} is not supported` } },
              };
            }
            return followForced(() => toolCall("done", { answer: "March 14.", memory_ids: ["f1"] }))(raw, index);
          },
          { forced: "auto", mm: false },
        );
        const warning = `forced_tool_choice_downgraded: named → ${form}`;
        expect(result.status).toBe("done");
        expect(result.warnings).toEqual([warning]);
        expect(events.filter((e) => e.type === "llm.warning").map((e) => e.payload)).toEqual([{ message: warning }]);
        // Named first; the form that worked is remembered, so the next forced turn goes out as it.
        const forcedBodies = bodies.filter((b) => forcedToolOf(b) && b.tool_choice !== "auto");
        expect(typeof bodies[0]?.tool_choice).toBe("object");
        const accepted = form === "required" ? "required" : undefined;
        expect(bodies[form === "required" ? 1 : 2]?.tool_choice).toBe(accepted);
        expect(forcedBodies.filter((b) => typeof b.tool_choice === "object")).toHaveLength(1);
      },
    );
  });
});
