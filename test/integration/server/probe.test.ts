/**
 * The missed-evidence probe end to end (docs/engine.md#the-missed-evidence-probe): a real libSQL bank, the real `openai` SDK against
 * the loopback fake server, runs started by the run service. A model that searched with a bad query
 * and answered "nothing found" is flagged while recall on the question finds the fact; a model that
 * cited it is not; facts mode has no probe. The flag reaches the stored run and the runs-list filter.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { getRunEvents } from "@/db/queries/runs";
import { StartRunInput } from "@/lib/contracts/runs";
import { createOpenAIModel } from "@/lib/llm";
import { forgetForcedToolChoiceForms } from "@/lib/llm/openai-model";
import { importBundle } from "@/lib/server/services/bundle-io";
import { listRunItems, startRun } from "@/lib/server/services/runs";
import {
  type ChatRequestBody,
  type FakeOpenAI,
  type FakeStep,
  startFakeOpenAI,
} from "@/test/fixtures/fake-openai-server";
import { sampleBundle } from "../db/sample-bundle";
import { openTempDb } from "../db/temp-db";

let db: Db;
let cleanup: () => void;
let fake: FakeOpenAI;
beforeAll(async () => {
  ({ db, cleanup } = await openTempDb("probe"));
  await importBundle(db, sampleBundle());
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
  cleanup();
});

const QUESTION = "When did the billing migration to Postgres finish?";

interface WireBody {
  tools?: { function: { name: string } }[];
  tool_choice?: { function?: { name: string } } | string;
}

/** Every search uses `query` (recall at least once, also after a freshness release); then done answers `answer` citing `memoryIds`. */
function script(query: string, answer: string, memoryIds: string[]) {
  let recalled = false;
  return (raw: ChatRequestBody): FakeStep => {
    const body = raw as unknown as WireBody;
    const named = typeof body.tool_choice === "object" ? body.tool_choice.function?.name : undefined;
    const forced = named ?? (body.tools?.length === 1 ? body.tools[0]?.function.name : undefined);
    const search = forced && forced !== "done" ? forced : recalled || forced === "done" ? null : "recall";
    if (search) {
      recalled ||= search === "recall";
      return { tool_calls: [{ name: search, arguments: { reason: "look", query } }] };
    }
    return { tool_calls: [{ name: "done", arguments: { answer, memory_ids: memoryIds } }] };
  };
}

async function reflect(
  query: string,
  answer: string,
  memoryIds: string[],
  mode: "synthesize" | "facts" = "synthesize",
) {
  fake.setScript(script(query, answer, memoryIds));
  forgetForcedToolChoiceForms();
  const model = createOpenAIModel({
    kind: "openai",
    apiKey: "sk-test-secret-key",
    baseURL: fake.url,
    model: "fake-model",
    forcedToolChoice: "named",
    timeoutMs: 5000,
    maxRetries: 0,
  });
  const input = StartRunInput.parse({ bankId: "acme", question: QUESTION, budget: "low", mode, skill: "recap" });
  const { runId, finished } = await startRun(db, input, { model });
  return { runId, result: await finished };
}

describe("missed-evidence probe over the real store and the openai SDK", () => {
  it("flags a run that answered 'nothing found' after a bad query while recall on the question finds the fact", async () => {
    const requestsBefore = fake.requests.length;
    // The bad query finds something unrelated (Dana's standups), so the model answers under done.
    const { runId, result } = await reflect("async standups", "I could not find anything about that.", []);
    expect(result.status).toBe("done");
    expect(result.flags).toContain("missed_evidence");
    expect(result.probe?.queries).toEqual([QUESTION, "async standups"]);
    const f1 = result.probe?.hits.find((h) => h.id === "f1");
    expect(f1).toMatchObject({ tier: "raw_facts", strong: true, query: QUESTION });
    expect(f1?.bestRank).toBeLessThanOrEqual(3);
    // The store's own score and rank travel on the hit; the team fact the personal scope cannot read never does.
    expect(f1?.searchScore).toEqual(expect.any(Number));
    expect(result.probe?.hits.map((h) => h.id)).not.toContain("f3");
    expect(result.probe?.hits.map((h) => h.id)).not.toContain("f4");
    // The probe asked the model nothing: every chat request is one of the run's LLM calls.
    const chats = fake.requests.slice(requestsBefore).filter((r) => r.path.endsWith("/chat/completions"));
    expect(chats).toHaveLength(result.llmCalls);
    // Recorded: the event before the finish, and the flag on the stored run the list filters on.
    const types = (await getRunEvents(db, runId)).map((e) => e.type);
    expect(types.slice(-2)).toEqual(["probe.finished", "run.finished"]);
    const flagged = await listRunItems(db, { badge: "missed_evidence" });
    expect(flagged.runs.map((r) => r.id)).toContain(runId);
  });

  it("flags a no_evidence run whose query found nothing while the question's search finds the fact", async () => {
    const { result } = await reflect("zeppelin hangar", "unused", []);
    expect(result.status).toBe("no_evidence");
    expect(result.flags).toContain("missed_evidence");
    expect(result.probe?.hits).toContainEqual(expect.objectContaining({ id: "f1", tier: "raw_facts", strong: true }));
  });

  it("does not flag a run that cited the fact", async () => {
    const { runId, result } = await reflect("billing migration Postgres", "The migration finished in March.", ["f1"]);
    expect(result.status).toBe("done");
    expect(result.citations.memory_ids).toEqual(["f1"]);
    expect(result.flags).not.toContain("missed_evidence");
    expect(result.probe?.hits.map((h) => h.id)).not.toContain("f1");
    const flagged = await listRunItems(db, { badge: "missed_evidence" });
    expect(flagged.runs.map((r) => r.id)).not.toContain(runId);
  });

  it("facts mode has no probe", async () => {
    const { runId, result } = await reflect("unused", "unused", [], "facts");
    expect(result.probe).toBeNull();
    expect((await getRunEvents(db, runId)).map((e) => e.type)).not.toContain("probe.finished");
  });
});
