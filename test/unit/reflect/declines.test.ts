/**
 * Honest declines (docs/engine.md#grounding-citations-and-the-output-guard and
 * #the-missed-evidence-probe): a short "nothing about that" that cites nothing is an abstention, not
 * an ungrounded answer; and the probe reads a conversation turn as its speaker's, so a correct
 * decline about one person is not flagged for what another person said.
 */
import { describe, expect, it } from "vitest";
import { validateCitations } from "@/lib/reflect/citations";
import { isDecline } from "@/lib/reflect/declines";
import { emptyCitations } from "@/lib/reflect/domain";
import { Evidence } from "@/lib/reflect/evidence";
import { isStrongMatchFor, matchText, participantsOf, readButUnused } from "@/lib/reflect/probe";
import { fact, InMemoryMemory } from "@/test/fixtures/in-memory-memory";
import { call, done, forcedTool, reply, ScriptedModel } from "@/test/fixtures/scripted-model";
import { ofType, run, SKILL } from "./harness";

describe("isDecline", () => {
  it.each([
    ["I could not find anything about that in the bank.", true],
    ["There is no mention of Melanie painting a sunset. The memories only cover Caroline's art.", true],
    ["No relevant memories.", true],
    // A claim beside the phrase: three sentences, or a long text, is an answer that needs citations.
    ["I could not find the launch date. The launch moved to March. The budget is 2M and owned by Ana.", false],
    [`I could not find the date, but ${"the team said many things about the plan and its owners ".repeat(6)}`, false],
    ["The launch is on March 14.", false],
  ])("%s → %s", (answer, expected) => {
    expect(isDecline(answer)).toBe(expected);
  });
});

describe("validateCitations: a decline is not ungrounded", () => {
  const evidence = new Evidence();
  evidence.add({ tier: "raw_facts", hits: [fact("f1", "Atlas launches on March 14.")] });

  it("a short decline citing nothing, with evidence in hand, is declined and not ungrounded", () => {
    const check = validateCitations(emptyCitations(), evidence, "I could not find anything about that in the bank.");
    expect(check).toEqual({ kept: emptyCitations(), dropped: [], ungrounded: false, declined: true });
  });

  it("a claim citing nothing is still ungrounded", () => {
    const check = validateCitations(emptyCitations(), evidence, "Atlas launches on March 14.");
    expect(check.ungrounded).toBe(true);
    expect(check).not.toHaveProperty("declined");
  });

  it("a decline whose citations were all dropped is declined, and the drops are still recorded", () => {
    const claimed = { ...emptyCitations(), memory_ids: ["nope"] };
    const check = validateCitations(claimed, evidence, "No relevant memories.");
    expect(check.declined).toBe(true);
    expect(check.dropped).toEqual([{ id: "nope", claimedTier: "raw_facts", reason: "never_retrieved" }]);
  });

  it("without the answer text (the release-miss check) nothing is read as a decline", () => {
    expect(validateCitations(emptyCitations(), evidence).ungrounded).toBe(true);
  });
});

describe("probe: a turn is its speaker's", () => {
  const people = participantsOf("What did Melanie paint at sunset?", ["Caroline", "Melanie", null]);

  it("knows who the question names", () => {
    expect([...people.all].sort()).toEqual(["Caroline", "Melanie"]);
    expect(people.named).toEqual(["Melanie"]);
  });

  it("reads a turn without the other participants' names", () => {
    expect(matchText("Thanks Melanie! I painted a sunset.", "Caroline", people)).toBe(
      "Caroline: Thanks  ! I painted a sunset.",
    );
    expect(matchText("Melanie painted it", null, people)).toBe("Melanie painted it");
  });

  it("another speaker's turn that only addresses the asked person is not a strong match", () => {
    const text = matchText("Thanks Melanie! I painted a sunset yesterday.", "Caroline", people);
    expect(isStrongMatchFor("What did Melanie paint at sunset?", text, people)).toBe(false);
  });

  it("the asked person's own turn is", () => {
    const text = matchText("I painted a lake at sunset.", "Melanie", people);
    expect(isStrongMatchFor("What did Melanie paint at sunset?", text, people)).toBe(true);
  });

  it("a memory about someone else that holds the other words is not strong when the question names a participant", () => {
    expect(isStrongMatchFor("What did Melanie paint at sunset?", "Caroline painted a sunset.", people)).toBe(false);
    expect(isStrongMatchFor("What did Melanie paint at sunset?", "Melanie painted a sunset.", people)).toBe(true);
  });

  it("a question that names nobody is matched as before", () => {
    const nobody = participantsOf("Who painted a sunset?", ["Caroline", "Melanie"]);
    expect(nobody.named).toEqual([]);
    expect(isStrongMatchFor("Who painted a sunset?", "Caroline: I painted a sunset.", nobody)).toBe(true);
  });

  it("readButUnused skips a turn by someone other than the asked person", () => {
    const evidence = new Evidence();
    evidence.add({
      tier: "raw_facts",
      hits: [
        fact("c1", "Thanks Melanie! I painted a sunset yesterday.", { speaker: "Caroline" }),
        fact("m1", "I love hiking with my kids.", { speaker: "Melanie" }),
      ],
    });
    expect(readButUnused("What did Melanie paint at sunset?", evidence, emptyCitations())).toEqual([]);
    expect(readButUnused("What did Caroline paint at sunset?", evidence, emptyCitations())).toEqual([
      expect.objectContaining({ id: "c1", rank: 1 }),
    ]);
  });
});

describe("in a run: a correct decline about a swapped speaker", () => {
  const facts = [
    fact("c1", "Thanks Melanie! I painted a sunset over the lake yesterday.", { speaker: "Caroline" }),
    fact("m1", "My kids and I went camping last weekend.", { speaker: "Melanie" }),
  ];
  const decliner = (question: string) =>
    new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced && forced !== "done") return reply(call(forced, { reason: "forced", query: "painted sunset lake" }));
      return reply(done(`There is no mention of that in the memories (${question.length}).`, {}));
    });
  const opts = { skill: { ...SKILL, retrieval: { ...SKILL.retrieval, types: ["episodic" as const] } } };

  it("is declined, not ungrounded, and not flagged missed_evidence", async () => {
    const q = "What did Melanie paint at the lake at sunset?";
    const { result, events } = await run(new InMemoryMemory({ facts }), decliner(q), { ...opts, question: q });
    expect(result.flags).not.toContain("ungrounded");
    expect(result.flags).not.toContain("missed_evidence");
    expect(ofType(events, "citations.validated")[0]?.payload).toMatchObject({ ungrounded: false, declined: true });
  });

  it("the same decline about the person who said it is still flagged", async () => {
    const q = "What did Caroline paint at the lake at sunset?";
    const { result } = await run(new InMemoryMemory({ facts }), decliner(q), { ...opts, question: q });
    expect(result.flags).toContain("missed_evidence");
    expect(result.probe?.unused?.[0]?.id).toBe("c1");
  });
});
