import { describe, expect, it } from "vitest";
import { analyzeQuestion, keywordQuery } from "@/lib/llm/offline/question";
import { sentences } from "@/lib/llm/offline/text";
import { createOfflineModel, NO_ANSWER_TEXT } from "@/lib/llm/offline-model";
import {
  auto,
  conversation as conversation_,
  forcedDone,
  memories,
  mentalModels,
  observations,
  onlyCall,
  type Turn,
  tool,
} from "./offline/chat";

const QUESTION = "What did we decide about the Postgres migration?";

/** The conversations below, as the engine builds them; each search was sent with the question's keyword query. */
const conversation = (turns: Turn[], extraSystem: string[] = []) =>
  conversation_(QUESTION, turns, { query: "decide postgres migration", extraSystem });

const EMPTY_MM = mentalModels([]);
const UNRELATED_OBS = observations([{ id: "obs_1", text: "The team lunch moved to Thursdays at noon." }]);

const model = createOfflineModel();

describe("offline model keyword queries", () => {
  it("drops stop words and keeps the question's content words in order, once each", () => {
    const query = (q: string) => keywordQuery(analyzeQuestion(q));
    expect(query("What did we decide about the Postgres migration? The migration!")).toBe("decide postgres migration");
    expect(query("Are there any blockers for the Q3 launch we should know about?")).toBe("blockers q3 launch");
    expect(query("What is the latest status of the data pipeline migration?")).toBe("data pipeline migration");
  });
});

describe("offline model under a forced tool choice", () => {
  it("calls exactly the forced search tool with a reason and the keyword query", async () => {
    const response = await model.complete({
      messages: conversation([]),
      tools: [tool("search_observations")],
      toolChoice: { type: "function", function: { name: "search_observations" } },
    });
    const call = onlyCall(response);
    expect(call.name).toBe("search_observations");
    expect(call.args.query).toBe("decide postgres migration");
    expect(call.args.reason).toEqual(expect.any(String));
    expect(response.toolCalls[0]?.id).toBe("call_0_0");
  });

  it("obeys a forced search even when the evidence would already answer", async () => {
    const messages = conversation([
      {
        tool: "search_mental_models",
        result: mentalModels([{ id: "mm_1", content: "We decided on the Postgres migration." }]),
      },
    ]);
    const response = await model.complete({
      messages,
      tools: [tool("recall")],
      toolChoice: { type: "function", function: { name: "recall" } },
    });
    expect(onlyCall(response).name).toBe("recall");
    expect(response.toolCalls[0]?.id).toBe("call_1_0");
  });

  it("answers on a forced done, citing what it quotes", async () => {
    const messages = conversation([
      { tool: "recall", result: memories([{ id: "f_1", text: "We decided to run the Postgres migration in May." }]) },
    ]);
    const response = await model.complete({
      messages,
      tools: [tool("done")],
      toolChoice: { type: "function", function: { name: "done" } },
    });
    const call = onlyCall(response);
    expect(call.name).toBe("done");
    expect(call.args).toMatchObject({ memory_ids: ["f_1"], observation_ids: [], mental_model_ids: [] });
    expect(call.args.answer).toContain("We decided to run the Postgres migration in May.");
  });
});

describe("offline model under auto", () => {
  it("answers once retrieved text overlaps the question, citing exactly the quoted ids in their tier lists", async () => {
    const messages = conversation([
      {
        tool: "search_mental_models",
        result: mentalModels([
          { id: "mm_db", content: "## Databases\n- The Postgres migration was approved in March." },
        ]),
      },
      {
        tool: "search_observations",
        result: observations([
          { id: "obs_1", text: "The team lunch moved to Thursdays at noon." },
          { id: "obs_2", text: "The team decided the migration to Postgres happens before the Q3 launch." },
        ]),
      },
      {
        tool: "recall",
        result: memories([
          { id: "f_1", text: "Dana decided we migrate billing to Postgres first. Nobody liked the old ORM." },
          { id: "f_2", text: "The office plants need watering." },
        ]),
      },
    ]);
    const call = onlyCall(await model.complete(auto(messages)));
    expect(call.name).toBe("done");
    expect(call.args).toEqual({
      answer: expect.any(String),
      memory_ids: ["f_1"],
      observation_ids: ["obs_2"],
      mental_model_ids: ["mm_db"],
    });
    const answer = call.args.answer as string;
    expect(answer).toContain("Dana decided we migrate billing to Postgres first. Nobody liked the old ORM. [f_1]");
    expect(answer).toContain("[obs_2]");
    expect(answer).toContain("The Postgres migration was approved in March.");
    expect(answer).not.toContain("lunch");
    expect(answer).not.toContain("plants");
    // The first line is the best passage itself, cited: the answer, not a preamble.
    expect(answer.split("\n")[0]).toMatch(/Postgres.*\[(f_1|obs_2|mm_db)\]$/);
  });

  it("when nothing retrieved answers, searches the lowest tier not searched yet", async () => {
    const afterMentalModels = onlyCall(
      await model.complete(auto(conversation([{ tool: "search_mental_models", result: EMPTY_MM }]))),
    );
    expect(afterMentalModels).toMatchObject({ name: "recall", args: { query: "decide postgres migration" } });
    expect(afterMentalModels.args.reason).toMatch(/do not mention "postgres", "migration", "decide"/);
  });

  it("when a fresh model covers only part of the question, makes one targeted search for the missing words, then answers", async () => {
    const partial = conversation([
      {
        tool: "search_mental_models",
        result: mentalModels([{ id: "mm_1", content: "The Postgres cluster has three nodes." }]),
      },
    ]);
    const targeted = onlyCall(await model.complete(auto(partial)));
    expect(targeted).toMatchObject({ name: "recall", args: { query: "decide migration" } });
    expect(targeted.args.reason).toMatch(/"migration"/);

    partial.push(
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_t", type: "function", function: { name: "recall", arguments: JSON.stringify(targeted.args) } },
        ],
      },
      {
        role: "tool",
        tool_call_id: "call_t",
        content: JSON.stringify(memories([{ id: "f_1", text: "Lunch is at noon." }])),
      },
    );
    const after = onlyCall(await model.complete(auto(partial)));
    expect(after.name).toBe("done");
  });

  it("does not answer from a stale mental model alone while a lower tier is unsearched", async () => {
    const stale = mentalModels([{ id: "mm_1", content: "We decided on the Postgres migration." }]);
    stale.mental_models[0]!.is_stale = true;
    const call = onlyCall(await model.complete(auto(conversation([{ tool: "search_mental_models", result: stale }]))));
    expect(call.name).toBe("recall");
  });

  it("prefers fresh lower-tier evidence over a stale mental model when answering", async () => {
    const stale = mentalModels([{ id: "mm_1", content: "We decided the Postgres migration waits until 2026." }]);
    stale.mental_models[0]!.is_stale = true;
    const messages = conversation([
      { tool: "search_mental_models", result: stale },
      { tool: "recall", result: memories([{ id: "f_1", text: "We decided to run the Postgres migration in May." }]) },
    ]);
    const call = onlyCall(await model.complete(auto(messages)));
    expect(call.args).toMatchObject({ memory_ids: ["f_1"], mental_model_ids: [] });
    expect(call.args.answer).not.toContain("2026");
  });

  it("skips tiers that are not offered", async () => {
    const tools = ["search_mental_models", "search_observations", "done"].map(tool);
    const call = onlyCall(await model.complete(auto(conversation([]), tools)));
    expect(call.name).toBe("search_observations");
  });

  it("answers that it found nothing, with no citations, when the question's subject is absent", async () => {
    const messages = conversation([
      { tool: "search_mental_models", result: EMPTY_MM },
      { tool: "search_observations", result: UNRELATED_OBS },
      { tool: "recall", result: memories([{ id: "f_9", text: "Kubernetes upgrades happen every quarter." }]) },
    ]);
    const call = onlyCall(await model.complete(auto(messages)));
    expect(call).toEqual({
      name: "done",
      args: { answer: NO_ANSWER_TEXT, memory_ids: [], observation_ids: [], mental_model_ids: [] },
    });
  });

  it("searches a lower tier after the engine rejects its done", async () => {
    const mm = mentalModels([{ id: "mm_1", content: "The Postgres migration was decided last spring." }]);
    const messages = conversation([
      { tool: "search_mental_models", result: mm },
      { tool: "done", result: { error: "done rejected: cite evidence or search observations or recall" } },
    ]);
    expect(onlyCall(await model.complete(auto(messages))).name).toBe("search_observations");
  });

  it("changes approach on a nudge: answers with the evidence it has", async () => {
    const messages = conversation(
      [
        { tool: "search_mental_models", result: EMPTY_MM },
        { tool: "search_observations", result: UNRELATED_OBS },
      ],
      ["No progress since step 2: the same recall call returned nothing 2 times. Do not repeat it."],
    );
    expect(onlyCall(await model.complete(auto(messages))).name).toBe("done");
  });

  it("with nothing retrieved, never calls done: each turn is a search it has not made yet, until none is left", async () => {
    const turns: Turn[] = [
      { tool: "search_mental_models", result: EMPTY_MM },
      { tool: "search_observations", result: observations([]) },
      { tool: "recall", result: memories([]) },
    ];
    const seen = new Set(turns.map((t) => `${t.tool}:decide postgres migration`));
    for (;;) {
      const call = onlyCall(await model.complete(auto(conversation(turns))));
      if (call.name === "done") break;
      const key = `${call.name}:${String(call.args.query)}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
      turns.push({ tool: call.name, query: String(call.args.query), result: memories([]) });
    }
    // The whole question, then each of its words alone, in each of the three tiers.
    expect(seen.size).toBe(3 * 4);
  });

  it("changes approach on a nudge without evidence: tries a tier it has not tried", async () => {
    const messages = conversation(
      [{ tool: "search_mental_models", result: EMPTY_MM }],
      ["No progress since step 1: 4 tool calls failed in a row."],
    );
    expect(onlyCall(await model.complete(auto(messages))).name).toBe("search_observations");
  });

  it("ignores a goal anchor (it is not a nudge)", async () => {
    const messages = conversation(
      [
        { tool: "search_mental_models", result: EMPTY_MM },
        { tool: "search_observations", result: UNRELATED_OBS },
      ],
      [`Reminder of the original question (answer this one): ${QUESTION}`],
    );
    expect(onlyCall(await model.complete(auto(messages))).name).toBe("recall");
  });

  it("still reads the complete entries of a result cut at the size cap", async () => {
    const full = JSON.stringify(
      memories([
        { id: "f_1", text: "We decided the Postgres migration starts in May." },
        { id: "f_2", text: "A long entry that the cap cuts in the middle of its text" },
      ]),
    );
    const messages = conversation([
      { tool: "recall", result: `${full.slice(0, full.indexOf("f_2") + 20)}…[truncated]` },
    ]);
    const call = onlyCall(await model.complete(auto(messages)));
    expect(call.name).toBe("done");
    expect(call.args.memory_ids).toEqual(["f_1"]);
  });

  it("gives the same response for the same request, with token estimates", async () => {
    const messages = conversation([
      { tool: "recall", result: memories([{ id: "f_1", text: "We decided to run the Postgres migration in May." }]) },
    ]);
    const first = await createOfflineModel().complete(auto(messages));
    const second = await createOfflineModel().complete(auto(messages));
    expect(second).toEqual(first);
    expect(first.usage.inputTokens).toBeGreaterThan(50);
    expect(first.usage.outputTokens).toBeGreaterThan(5);
    expect(first.finishReason).toBe("tool_calls");
  });

  it("describes itself as the offline model", () => {
    expect(model.info).toEqual({ kind: "offline", name: "offline" });
  });
});

describe("offline model sentence splitting", () => {
  it("splits markdown and prose into quotable sentences, emphasis removed", () => {
    expect(sentences("# Plan\n- Ship the **beta** in May. Then gather feedback.\n* Hire two engineers")).toEqual([
      "Ship the beta in May.",
      "Then gather feedback.",
      "Hire two engineers",
    ]);
  });
});

describe("issue 27.8: the offline model says what it could not find", () => {
  const ASKED = "What is the pricing for the Enterprise plan in Japan?";
  const read = conversation_(
    ASKED,
    [
      {
        tool: "recall",
        result: memories([
          { id: "f_1", text: "Enterprise plan pricing starts at a $24,000 annual floor." },
          { id: "f_2", text: "The SSO rollout plan puts Brightwell first for every Enterprise customer." },
        ]),
      },
    ],
    { query: "pricing enterprise plan japan" },
  );

  it("27.8: a name the question states that nothing read mentions is named first, then what was found", async () => {
    const call = onlyCall(await model.complete(forcedDone(read)));
    expect(call.name).toBe("done");
    const answer = String(call.args.answer);
    expect(answer.split("\n")[0]).toMatch(/could not find.*"Japan"/);
    expect(answer).toContain("$24,000");
  });

  it("27.8: a question whose names the memories mention is answered as before", async () => {
    const messages = conversation_(
      "What is the pricing for the Enterprise plan?",
      [
        {
          tool: "recall",
          result: memories([{ id: "f_1", text: "Enterprise plan pricing starts at a $24,000 annual floor." }]),
        },
      ],
      { query: "pricing enterprise plan" },
    );
    const answer = String(onlyCall(await model.complete(forcedDone(messages))).args.answer);
    expect(answer).not.toMatch(/could not find/);
    expect(answer.split("\n")[0]).toContain("$24,000");
  });
});
