/**
 * The offline reader on conversations (LoCoMo's kind of memory), under a skill that wants the
 * answer alone on the first line: dates resolved from what was said and when, speakers kept apart,
 * counts, several-part answers and a reply read as the answer to the question before it.
 */
import { describe, expect, it } from "vitest";
import { LOCOMO_SKILL } from "@/lib/experiments/locomo";
import { createOfflineModel } from "@/lib/llm/offline-model";
import { isDecline } from "@/lib/reflect/declines";
import type { SkillSnapshot } from "@/lib/reflect/domain";
import { buildSystemPrompt } from "@/lib/reflect/prompt";
import { auto, conversation, forcedDone, memories, mentalModels, observations, onlyCall, type Turn } from "./chat";

const { id, name, version, mission, disposition, retrieval, budget, anchorEvery, outputFormat, answerFormat } =
  LOCOMO_SKILL;
const SKILL: SkillSnapshot = {
  id,
  name,
  version,
  mission,
  disposition,
  retrieval,
  budget,
  anchorEvery,
  outputFormat,
  answerFormat,
};
const SYSTEM = buildSystemPrompt(SKILL, "personal", ["mental_models", "observations", "raw_facts"], true);

interface Done {
  answer: string;
  memory_ids: string[];
}

async function ask(question: string, turns: Turn[]): Promise<Done & { first: string }> {
  const call = onlyCall(
    await createOfflineModel().complete(forcedDone(conversation(question, turns, { system: SYSTEM }))),
  );
  expect(call.name).toBe("done");
  const args = call.args as unknown as Done;
  return { ...args, first: args.answer.split("\n")[0] ?? "" };
}

const turn = (id: string, speaker: string, text: string, day: string, position: number) => ({
  id,
  text,
  speaker,
  session_id: `s-${day}`,
  position,
  occurred_at: `${day}T10:00:00.000Z`,
});

describe("dates, resolved against the day they were said", () => {
  it("answers 'when' with the day a 'yesterday' meant, across a month end", async () => {
    const { first, memory_ids } = await ask("When did Ana go to the pottery fair?", [
      {
        tool: "recall",
        result: memories([turn("D1", "Ana", "I went to the pottery fair yesterday, so fun!", "2023-03-01", 1)]),
      },
    ]);
    expect(first).toBe("28 February 2023");
    expect(memory_ids).toEqual(["D1"]);
  });

  it("answers with a year for 'last year' said in January", async () => {
    const { first } = await ask("When did Ben paint the lake sunrise?", [
      {
        tool: "recall",
        result: memories([turn("D1", "Ben", "I painted that lake sunrise last year!", "2024-01-04", 1)]),
      },
    ]);
    expect(first).toBe("2023");
  });

  it("answers 'the week before' a day for 'last week'", async () => {
    const { first } = await ask("When did Ana give a talk at the school?", [
      {
        tool: "recall",
        result: memories([turn("D1", "Ana", "I gave a talk at the school last week.", "2023-06-09", 1)]),
      },
    ]);
    expect(first).toBe("the week before 9 June 2023");
  });
});

describe("speakers", () => {
  const puppy = turn("D2", "Ben", "I adopted a puppy named Biscuit yesterday!", "2024-02-20", 2);
  const reaction = turn("D3", "Ana", "Aww, congrats! Send me pictures.", "2024-02-20", 3);

  it("answers a question about the person who said it", async () => {
    const { first } = await ask("What is the name of Ben's puppy?", [
      { tool: "recall", result: memories([puppy, reaction]) },
    ]);
    expect(first).toBe("Biscuit");
  });

  it("declines, citing nothing, when only someone else said it", async () => {
    const { first, answer, memory_ids } = await ask("What did Ana name her puppy?", [
      { tool: "recall", result: memories([puppy, reaction]) },
    ]);
    expect(first).toBe("Not mentioned in the conversation.");
    expect(answer).toBe("Not mentioned in the conversation.\nThere is no record of Ana saying this.");
    expect(memory_ids).toEqual([]);
    // A decline, not an uncited claim: the engine records it as declined, never ungrounded.
    expect(isDecline(answer, "What did Ana name her puppy?")).toBe(true);
  });

  // Both talk about the race; only Ben ran it. Ana's turn matches "race" weakly, Ben's says it all.
  const race = [
    turn("D4", "Ben", "After the charity race I realized how much self-care matters.", "2024-03-02", 4),
    turn("D5", "Ana", "A race sounds hard!", "2024-03-02", 5),
  ];

  it("declines when the asked person's words match, but someone else's answer it better", async () => {
    const { first, memory_ids } = await ask("What did Ana realize after the charity race?", [
      { tool: "recall", result: memories(race) },
    ]);
    expect(first).toBe("Not mentioned in the conversation.");
    expect(memory_ids).toEqual([]);
  });

  it("answers when the asked person's own words are the best answer", async () => {
    const { first, memory_ids } = await ask("What did Ben realize after the charity race?", [
      { tool: "recall", result: memories(race) },
    ]);
    expect(first).not.toBe("Not mentioned in the conversation.");
    expect(memory_ids).toEqual(["D4"]);
  });

  it("reads a reply as the answer to the question before it, by the person asked", async () => {
    const { first, memory_ids } = await ask("What instrument does Ana play?", [
      {
        tool: "recall",
        result: memories([
          turn("D1", "Ben", "Do you play any instrument, Ana?", "2024-02-20", 1),
          turn("D2", "Ana", "Yes! The cello, since I was seven.", "2024-02-20", 2),
        ]),
      },
    ]);
    expect(first).toContain("cello");
    expect(memory_ids[0]).toBe("D2");
  });
});

describe("an observation that leads is backed by what was said", () => {
  it("quotes and cites the turn the leading observation was made from, when the run read it", async () => {
    const { first, answer, memory_ids } = await ask("What does Ana's necklace symbolize?", [
      {
        tool: "search_observations",
        result: observations([
          {
            id: "O1",
            text: "Ana's necklace, a gift from her grandma, symbolizes love and faith.",
            source_fact_ids: ["D7"],
          },
        ]),
      },
      {
        tool: "recall",
        result: memories([
          turn("D7", "Ana", "My grandma gave it to me; it stands for love and faith.", "2023-06-27", 7),
        ]),
      },
    ]);
    expect(first).not.toBe("Not mentioned in the conversation.");
    expect(answer).toContain("[D7]");
    expect(memory_ids).toEqual(["D7"]);
  });
});

describe("counts and several-part answers", () => {
  it("states a number the memory gives, with what it counts", async () => {
    const { first } = await ask("How long has Ana had her bakery?", [
      {
        tool: "recall",
        result: memories([turn("D1", "Ana", "My bakery has been open for 4 years now.", "2024-02-20", 1)]),
      },
    ]);
    expect(first).toBe("4 years");
  });

  it("counts the distinct occasions when no number is stated", async () => {
    const { first } = await ask("How many times has Ben gone kayaking?", [
      {
        tool: "recall",
        result: memories([
          turn("D1", "Ben", "Went kayaking on the lake today.", "2024-01-01", 1),
          turn("D2", "Ben", "Kayaking again this morning, cold!", "2024-02-01", 1),
          turn("D3", "Ben", "Kayaking trip with my sister was great.", "2024-03-01", 1),
        ]),
      },
    ]);
    expect(first).toBe("3");
  });

  it("lists one answer per occasion for a question asking for several things", async () => {
    const { first, memory_ids } = await ask("What books has Ana read?", [
      {
        tool: "recall",
        result: memories([
          turn("D1", "Ana", "I just read books by Ursula Le Guin, loved them.", "2024-01-01", 1),
          turn("D2", "Ana", "I read books about sourdough starters this week.", "2024-02-01", 1),
        ]),
      },
    ]);
    expect(first.split(", ")).toHaveLength(2);
    expect(memory_ids.sort()).toEqual(["D1", "D2"]);
  });
});

describe("a fresh summary is a pointer, the record is the answer", () => {
  it("searches the raw facts behind a fresh mental model before answering", async () => {
    const model = createOfflineModel();
    const messages = conversation(
      "When did Ana go to the pottery fair?",
      [
        {
          tool: "search_mental_models",
          result: mentalModels([{ id: "mm-1", content: "Ana went to a pottery fair and loved it." }]),
        },
      ],
      { system: SYSTEM },
    );
    const next = onlyCall(await model.complete(auto(messages)));
    expect(next.name).toBe("recall");
  });
});
