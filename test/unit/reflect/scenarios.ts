/**
 * Named end-to-end scenarios over the Atlas bank, shared by the golden-log and LLM-call tests.
 * Each builds fresh ports so a scenario can run any number of times with identical output.
 */
import type { ReflectRequest } from "@/lib/reflect/request";
import { InMemoryMemory } from "@/test/fixtures/in-memory-memory";
import { call, done, forcedTool, reply, ScriptedModel, say } from "@/test/fixtures/scripted-model";
import { ATLAS_MODEL, atlasMemory } from "./harness";

export interface Scenario {
  memory: InMemoryMemory;
  model: ScriptedModel;
  overrides: Partial<ReflectRequest>;
}

/** Obeys forced retrieval with `query`; answers with `answer` on done turns and under auto. */
function follower(query: string, answer: () => ReturnType<typeof reply>) {
  return new ScriptedModel((req) => {
    const forced = forcedTool(req);
    if (forced && forced !== "done") return reply(call(forced, { reason: "forced tier", query }));
    return answer();
  });
}

export const SCENARIOS = {
  /** A fresh mental model releases forced retrieval after one search: two model calls. */
  fresh: (): Scenario => ({
    memory: atlasMemory(),
    model: follower("Atlas launch", () =>
      say("The fresh mental model answers it.", done("Atlas launches on March 14.", { mental_model_ids: ["mm1"] })),
    ),
    overrides: { budget: "low" },
  }),
  /** A stale model keeps the forced path through observations and recall. */
  stale: (): Scenario => ({
    memory: atlasMemory({
      mentalModels: [{ ...ATLAS_MODEL, isStale: true, stalenessReason: "2 newer memories in scope" }],
    }),
    model: follower("Atlas launch", () =>
      reply(
        done("Atlas launches on March 14, after the security review.", { memory_ids: ["f1"], observation_ids: ["o1"] }),
      ),
    ),
    overrides: { budget: "low" },
  }),
  /** No mental models: observations and recall are forced, then the model answers under auto. */
  noModels: (): Scenario => ({
    memory: atlasMemory({ mentalModels: [] }),
    model: follower("Atlas launch", () => reply(done("Atlas launches on March 14.", { memory_ids: ["f1"] }))),
    overrides: { budget: "low" },
  }),
  /** Recall keeps failing the same way: nudge, halt, then one forced synthesis from the observations. */
  halted: (): Scenario => ({
    memory: atlasMemory({ mentalModels: [] }).fail("recall", "database is locked", 10),
    model: new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced === "done") return reply(done("Atlas launches on March 14.", { observation_ids: ["o1"] }));
      if (forced === "search_observations")
        return reply(call(forced, { reason: "forced tier", query: "Atlas launch" }));
      return reply(call("recall", { reason: "need the raw fact", query: "Atlas launch" }));
    }),
    overrides: { budget: "mid" },
  }),
  /** Memories exist but nothing matches: no synthesis call, the fixed no-evidence answer. */
  noEvidence: (): Scenario => ({
    memory: atlasMemory(),
    model: follower("quarterly revenue", () =>
      reply(call("recall", { reason: "try again", query: "quarterly revenue" })),
    ),
    overrides: { budget: "low", question: "What was the quarterly revenue?" },
  }),
  /** An empty bank: answered before any model call. */
  emptyBank: (): Scenario => ({ memory: new InMemoryMemory({}), model: new ScriptedModel([]), overrides: {} }),
  /** The model only ever writes its analysis channel: one guard retry, then a facts digest. */
  degraded: (): Scenario => ({
    memory: atlasMemory({ mentalModels: [] }),
    model: follower("Atlas launch", () =>
      reply(done("analysisThe user asks for the launch date; f1 has it.", { memory_ids: ["f1"] })),
    ),
    overrides: { budget: "low" },
  }),
  /** Facts mode: one retrieval, a digest, no model at all. */
  facts: (): Scenario => ({ memory: atlasMemory(), model: new ScriptedModel([]), overrides: { mode: "facts" } }),
} satisfies Record<string, () => Scenario>;

export type ScenarioName = keyof typeof SCENARIOS;
