/**
 * Shared engine-test harness: a deterministic clock (1 ms per read), sequential ids, an in-memory
 * sink that validates every event with RunEvent.parse, a default skill/request and the Atlas bank.
 */
import type { SkillSnapshot } from "@/lib/reflect/domain";
import { type ReflectOptions, runReflect } from "@/lib/reflect/engine";
import { type RunEvent, RunEvent as RunEventSchema } from "@/lib/reflect/events";
import type { ModelPort, ReflectDeps } from "@/lib/reflect/ports";
import type { ReflectRequest, ReflectResult } from "@/lib/reflect/request";
import { fact, InMemoryMemory, type MemoryFixture, mentalModel, observation } from "@/test/fixtures/in-memory-memory";

export const QUESTION = "When is the Atlas launch?";

export const SKILL: SkillSnapshot = {
  id: "sk_recap",
  name: "recap",
  version: 1,
  mission: "Recap what the bank knows about the topic of the question.",
  disposition: ["concise", "skeptical"],
  retrieval: { tags: [], types: ["observation", "episodic"], scope: "personal" },
  budget: "low",
  anchorEvery: 4,
  outputFormat: "Short prose paragraphs.",
  answerFormat: "prose",
};

export function request(overrides: Partial<ReflectRequest> = {}): ReflectRequest {
  return {
    runId: "run_test",
    bankId: "bank",
    question: QUESTION,
    skill: SKILL,
    budget: "low",
    mode: "synthesize",
    scope: "personal",
    anchorEvery: 4,
    ...overrides,
  };
}

export const ATLAS_FACTS = [
  fact("f1", "The Atlas launch moved to March 14 after the security review.", {
    occurredAt: "2025-02-01T00:00:00.000Z",
  }),
  fact("f2", "Priya owns the Atlas launch checklist.", { kind: "experience" }),
  fact("f3", "Lunch with Sam on Friday at noon."),
];
export const ATLAS_OBSERVATIONS = [observation("o1", "The Atlas launch date is March 14.", { sourceFactIds: ["f1"] })];
export const ATLAS_MODEL = mentalModel("mm1", "Atlas launch", "Atlas launches on March 14; Priya owns the checklist.");

/** The Atlas bank; pass `mentalModels: []` or overrides to vary it. */
export function atlasMemory(overrides: MemoryFixture = {}): InMemoryMemory {
  return new InMemoryMemory({
    facts: ATLAS_FACTS,
    observations: ATLAS_OBSERVATIONS,
    mentalModels: [ATLAS_MODEL],
    ...overrides,
  });
}

export function fixedClock(step = 1) {
  let t = 1_000;
  return {
    now: () => {
      const v = t;
      t += step;
      return v;
    },
  };
}

export function sequentialIds() {
  let n = 0;
  return { next: (prefix: string) => `${prefix}_${++n}` };
}

export interface Harness {
  deps: ReflectDeps;
  events: RunEvent[];
}

export function harness(memory: InMemoryMemory, model: ModelPort, clock = fixedClock()): Harness {
  const events: RunEvent[] = [];
  const deps: ReflectDeps = {
    memory,
    model,
    clock,
    ids: sequentialIds(),
    sink: {
      append: async (event) => {
        events.push(RunEventSchema.parse(event));
      },
    },
  };
  return { deps, events };
}

export async function run(
  memory: InMemoryMemory,
  model: ModelPort,
  overrides: Partial<ReflectRequest> = {},
  options?: ReflectOptions,
): Promise<{ result: ReflectResult; events: RunEvent[] }> {
  const h = harness(memory, model);
  const result = await runReflect(h.deps, request(overrides), options);
  return { result, events: h.events };
}

export function ofType<T extends RunEvent["type"]>(events: RunEvent[], type: T): Extract<RunEvent, { type: T }>[] {
  return events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
}

/** The tool names called, in order, from tool.call events. */
export function toolsCalled(events: RunEvent[]): string[] {
  return ofType(events, "tool.call").map((e) => e.payload.tool);
}
