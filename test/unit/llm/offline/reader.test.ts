/**
 * The offline model as a careful reader: what leads its answer, what it leaves out, when it
 * answers without searching further, and how a skill's output format shapes the same evidence.
 */
import { describe, expect, it } from "vitest";
import { createOfflineModel, NO_ANSWER_TEXT, type TermStatsPort } from "@/lib/llm/offline-model";
import type { SkillSnapshot } from "@/lib/reflect/domain";
import type { ModelResponse } from "@/lib/reflect/ports";
import { buildSystemPrompt } from "@/lib/reflect/prompt";
import { auto, conversation, forcedDone, memories, mentalModels, observations, onlyCall, type Turn } from "./chat";

function statsPort(documents: number, frequencies: Record<string, number>, calls: string[][] = []): TermStatsPort {
  return {
    lookup: async (stems) => {
      calls.push([...stems]);
      return { documents, frequencies: new Map(Object.entries(frequencies)) };
    },
  };
}

interface Done {
  answer: string;
  memory_ids: string[];
  observation_ids: string[];
  mental_model_ids: string[];
}

/** The `done` call; and every id the answer shows is cited, and every id cited is shown. */
function done(response: ModelResponse): Done {
  const call = onlyCall(response);
  expect(call.name).toBe("done");
  const args = call.args as unknown as Done;
  // Every [id] but a checklist's [x].
  const shown = new Set([...args.answer.matchAll(/\[([^\]\s]+)\]/g)].map((m) => m[1]).filter((id) => id !== "x"));
  const cited = new Set([...args.memory_ids, ...args.observation_ids, ...args.mental_model_ids]);
  expect(shown).toEqual(cited);
  return args;
}

const firstLine = (d: Done) => d.answer.split("\n")[0] ?? "";

async function answer(question: string, turns: Turn[], options: { system?: string; stats?: TermStatsPort } = {}) {
  const model = createOfflineModel(options.stats ? { termStats: options.stats } : {});
  return done(await model.complete(forcedDone(conversation(question, turns, options))));
}

describe("relevance", () => {
  const facts = memories([
    { id: "f_billing", text: "Billing moves to annual invoices in March." },
    { id: "f_hiring", text: "Hiring is paused until the budget review." },
  ]);

  it("weighs words by how rare the bank says they are", async () => {
    const question = "Any news on billing and hiring?";
    const billingRare = statsPort(100, { bill: 2, hire: 60 });
    const hiringRare = statsPort(100, { bill: 60, hire: 2 });
    expect(firstLine(await answer(question, [{ tool: "recall", result: facts }], { stats: billingRare }))).toContain(
      "[f_billing]",
    );
    expect(firstLine(await answer(question, [{ tool: "recall", result: facts }], { stats: hiringRare }))).toContain(
      "[f_hiring]",
    );
  });

  it("asks the statistics port once per question and answers with equal weights when it fails", async () => {
    const calls: string[][] = [];
    const model = createOfflineModel({ termStats: statsPort(100, {}, calls) });
    const messages = conversation("Any news on billing?", [{ tool: "recall", result: facts }]);
    await model.complete(auto(messages));
    await model.complete(forcedDone(messages));
    expect(calls).toEqual([["bill"]]);

    const broken = createOfflineModel({ termStats: { lookup: () => Promise.reject(new Error("db gone")) } });
    const fallback = done(await broken.complete(forcedDone(messages)));
    expect(firstLine(fallback)).toContain("[f_billing]");
  });

  it("leads with the sentence that states what the question asks for, and drops weak matches", async () => {
    const d = await answer("How much does the Pro plan cost?", [
      {
        tool: "recall",
        result: memories([
          { id: "f_popular", text: "The Pro plan is popular with agencies." },
          { id: "f_price", text: "The Pro plan costs $49 per seat each month." },
          { id: "f_plants", text: "The office plants need water on Fridays." },
        ]),
      },
    ]);
    expect(firstLine(d)).toBe("The Pro plan costs $49 per seat each month. [f_price]");
    expect(d.memory_ids).not.toContain("f_plants");
  });

  it("quotes the line of a mental model that answers, not the whole model", async () => {
    const d = await answer("When is the Orion launch?", [
      {
        tool: "search_mental_models",
        result: mentalModels([
          {
            id: "mm_orion",
            name: "Orion launch",
            content:
              "Owners: Ada and Lin.\n- Orion launches on **April 14**, after the security review.\n- Budget: $40,000.",
          },
        ]),
      },
    ]);
    expect(firstLine(d)).toBe("Orion launches on April 14, after the security review. [mm_orion]");
  });

  it("puts a fresh mental model before a raw fact that says the same, and a stale one after it", async () => {
    const turns = (isStale: boolean): Turn[] => [
      {
        tool: "search_mental_models",
        result: mentalModels([
          { id: "mm_orion", name: "Orion launch", content: "- Orion launches on April 14.", is_stale: isStale },
        ]),
      },
      { tool: "recall", result: memories([{ id: "f_orion", text: "Orion launches on April 14." }]) },
    ];
    expect(firstLine(await answer("When does Orion launch?", turns(false)))).toContain("[mm_orion]");
    const stale = await answer("When does Orion launch?", turns(true));
    expect(firstLine(stale)).toContain("[f_orion]");
    expect(stale.mental_model_ids).toEqual([]);
  });

  it("answers a 'when' with the day a fact records when its text names none", async () => {
    const d = await answer("When was the batch load turned off?", [
      {
        tool: "recall",
        result: memories([
          { id: "f_off", text: "Sam turned off the batch load for good.", occurred_at: "2026-10-13T09:00:00Z" },
        ]),
      },
    ]);
    expect(firstLine(d)).toBe("2026-10-13: Sam turned off the batch load for good. [f_off]");
  });
});

describe("newest wins", () => {
  it("leads with the newest of two memories that disagree, and names what it superseded", async () => {
    const d = await answer("When is the Orion launch?", [
      {
        tool: "recall",
        result: memories([
          { id: "f_old", text: "The Orion launch is set for March 3.", occurred_at: "2026-01-10" },
          { id: "f_new", text: "The Orion launch moved to April 14.", occurred_at: "2026-02-20" },
        ]),
      },
    ]);
    const lines = d.answer.split("\n");
    expect(lines[0]).toBe("The Orion launch moved to April 14. [f_new]");
    expect(lines[1]).toBe(
      'It replaces what older memories said: "The Orion launch is set for March 3." [f_old] (2026-01-10).',
    );
  });

  it("reports a blocker a newer memory clears as resolved", async () => {
    const system = "Output format: markdown: one line per blocker with owner, what unblocks it, and since when";
    const d = await answer(
      "What is blocking the Orion rollout?",
      [
        {
          tool: "search_observations",
          result: observations([
            {
              id: "o_blocked",
              text: "The Orion rollout is blocked by the missing security review.",
              updated_at: "2026-01-05",
            },
            {
              id: "o_clear",
              text: "The Orion rollout is no longer blocked: the security review passed.",
              updated_at: "2026-02-01",
            },
          ]),
        },
      ],
      { system },
    );
    expect(firstLine(d)).toBe(
      "Resolved: The Orion rollout is no longer blocked: the security review passed. — as of: 2026-02-01 [o_clear]",
    );
    expect(d.answer).toContain("[o_blocked]");
  });

  it("keeps the best passage when newer ones only repeat it", async () => {
    const d = await answer("When is the Orion launch?", [
      {
        tool: "recall",
        result: memories([
          { id: "f_set", text: "The Orion launch is set for April 14 after the go/no-go.", occurred_at: "2026-01-10" },
          { id: "f_repeat", text: "Reminder: Orion launch on April 14.", occurred_at: "2026-03-01" },
        ]),
      },
    ]);
    expect(d.answer).not.toContain("replaces");
  });
});

describe("deciding to answer", () => {
  const PLAN =
    "**Atlas GA: Tuesday, October 20, 2026** (moved again at the September 22 go/no-go).\n- Launch customers: Acme.";
  const fresh = mentalModels([{ id: "mm-launch-plan", name: "Launch plan", content: PLAN }]);

  it("answers from a fresh mental model that states the answer in other words, without another search", async () => {
    const model = createOfflineModel();
    const messages = conversation(
      "What did we decide about the launch date?",
      [{ tool: "search_mental_models", result: fresh }],
      {
        query: "decide launch date",
      },
    );
    const d = done(await model.complete(auto(messages)));
    expect(firstLine(d)).toBe(
      "Atlas GA: Tuesday, October 20, 2026 (moved again at the September 22 go/no-go). [mm-launch-plan]",
    );
  });

  it("searches for what a fresh mental model leaves out before answering", async () => {
    const model = createOfflineModel();
    const messages = conversation(
      "Who signed the Brightwell contract?",
      [{ tool: "search_mental_models", result: fresh }],
      {
        query: "signed brightwell contract",
      },
    );
    const call = onlyCall(await model.complete(auto(messages)));
    expect(call.name).toBe("recall");
    expect(call.args.query).toBe("signed brightwell contract");
  });

  it("says plainly that nothing answers when the question's subject never appears, citing nothing", async () => {
    const stats = statsPort(200, { decid: 12, app: 3, web: 4, mobil: 0 });
    const d = await answer(
      "What did we decide about the mobile app?",
      [{ tool: "recall", result: memories([{ id: "f_web", text: "We decided the web app launches in May." }]) }],
      { stats },
    );
    expect(d).toEqual({ answer: NO_ANSWER_TEXT, memory_ids: [], observation_ids: [], mental_model_ids: [] });
  });
});

describe("skills shape the answer", () => {
  const SKILL: Omit<SkillSnapshot, "outputFormat" | "mission"> = {
    id: "s",
    name: "s",
    version: 1,
    disposition: [],
    retrieval: { tags: [], types: ["observation", "episodic"], scope: "personal" },
    budget: "mid",
    anchorEvery: 4,
    answerFormat: "prose",
  };
  // The output formats of the demo bank's five skills.
  const FORMATS = {
    recap: "markdown: a two-sentence summary, then dated bullets",
    decisions: "markdown: a short answer paragraph, then bullets (decision, date, who, why)",
    actionables: "markdown checklist with owner and due date",
    blockers: "markdown: one line per blocker with owner, what unblocks it, and since when",
    prep: "markdown: three to five bullets to read before the meeting, then open questions",
  };
  const EVIDENCE: Turn[] = [
    {
      tool: "recall",
      result: memories([
        {
          id: "f_1",
          text: "Decision: the Orion launch moves to April 14, because the security review is late. Dana approved it.",
          occurred_at: "2026-02-20",
        },
        {
          id: "f_2",
          text: "Action item: Lin to book the security review for the Orion launch by March 1.",
          occurred_at: "2026-02-01",
        },
        { id: "f_3", text: "The Orion launch is blocked until the security review passes.", occurred_at: "2026-02-10" },
        {
          id: "f_4",
          text: "Open question for the Orion launch: who signs off on the security review?",
          occurred_at: "2026-02-12",
        },
        {
          id: "f_5",
          text: "Action item: Ada to draft the Orion launch post. Done on February 15.",
          occurred_at: "2026-02-05",
        },
      ]),
    },
  ];

  it("gives recognisably different answers from the same evidence", async () => {
    const answers: Record<string, string> = {};
    for (const [name, outputFormat] of Object.entries(FORMATS)) {
      const system = buildSystemPrompt({ ...SKILL, mission: "", outputFormat }, "personal", ["raw_facts"]);
      answers[name] = (await answer("What is going on with the Orion launch?", EVIDENCE, { system })).answer;
    }
    const first = (name: string) => answers[name]?.split("\n")[0];
    // recap: the answer, then dated bullets in date order.
    expect(answers.recap).toMatch(/\[f_1\]\n\n- 2026-02-01: .*\[f_2\]\n- 2026-02-05: .*\n- 2026-02-10: /);
    // decisions: the latest decision with its date, who and why; what is not a decision stays apart.
    expect(first("decisions")).toContain("[f_1]");
    expect(answers.decisions).toContain(
      "The decision above — date: 2026-02-20 — who: Dana — why: because the security review is late [f_1]",
    );
    expect(answers.decisions).toMatch(/Related:\n- Action item: Lin/);
    // actionables: an open item leads, with owner and due date; done items apart.
    expect(first("actionables")).toBe(
      "- [ ] Action item: Lin to book the security review for the Orion launch by March 1. — owner: Lin — due: March 1 [f_2]",
    );
    expect(answers.actionables).toMatch(/Done:\n- \[x\] Action item: Ada .* — owner: Ada \[f_5\]/);
    // blockers: the blocker leads, with since when and what unblocks it.
    expect(first("blockers")).toBe(
      "Blocked: The Orion launch is blocked until the security review passes. — since: 2026-02-10 — unblocks: the security review passes [f_3]",
    );
    // prep: a brief, then open questions.
    expect(answers.prep).toMatch(
      /Before the meeting:\n(- .*\n)+\nOpen questions:\n- Open question for the Orion launch/,
    );
    expect(new Set(Object.values(answers)).size).toBe(5);
  });
});
