import { describe, expect, it } from "vitest";
import { entities } from "@/lib/llm/offline/entities";
import { analyzeQuestion, keywordQuery } from "@/lib/llm/offline/question";
import { idf, type TermStats, weigh } from "@/lib/llm/offline/weights";

const roles = (q: string) =>
  Object.fromEntries(
    analyzeQuestion(q).terms.map((t) => [t.word || `<${t.kind}>`, `${t.role}${t.head ? "+head" : ""}`]),
  );

describe("question analysis", () => {
  it("tells the subject from the frame and the kind of answer wanted", () => {
    const q = analyzeQuestion("What did we decide about the launch date?");
    expect(q.answerKind).toBe("date");
    expect(roles(q.text)).toEqual({ decide: "frame", launch: "subject", date: "answer" });
    // "decide" is met by any word of the family, "decision" included (porter keeps them apart).
    expect(q.terms[0]?.stems).toEqual(expect.arrayContaining(["decid", "decis"]));
  });

  it("reads when / who / why / how much / how many as the kind of answer", () => {
    expect(analyzeQuestion("When did Elif start?").answerKind).toBe("date");
    expect(analyzeQuestion("Who owns SSO now?").answerKind).toBe("name");
    expect(analyzeQuestion("Why is SSO Enterprise-only?").answerKind).toBe("reason");
    expect(analyzeQuestion("How much does the Team plan cost?").answerKind).toBe("money");
    expect(analyzeQuestion("How much faster are dashboards?").answerKind).toBe("number");
    expect(analyzeQuestion("How many users signed in?").answerKind).toBe("number");
  });

  it("asks for no kind in a yes/no question or an instruction", () => {
    expect(analyzeQuestion("Do read-only viewers need a paid seat?").answerKind).toBeNull();
    expect(analyzeQuestion("Summarize the pricing decisions").answerKind).toBeNull();
  });

  it("weighs the head of a compound and the word a question asks about", () => {
    expect(roles("What is the status of the data pipeline migration?")).toEqual({
      data: "subject",
      pipeline: "subject",
      migration: "subject+head",
    });
    expect(roles("What lesson did the team learn?").lesson).toBe("subject+head");
    expect(roles("Who sponsors Atlas?").sponsors).toBe("subject+head");
  });

  it("keeps filler out of the search query and notices status questions", () => {
    const q = analyzeQuestion("What is the latest status of the SSO rollout?");
    expect(keywordQuery(q)).toBe("sso rollout");
    expect(q.wantsLatest).toBe(true);
    expect(analyzeQuestion("When was the batch load turned off?").asksPast).toBe(true);
  });

  it("weighs rare words of the bank above common ones, and falls back to equal weights", () => {
    const stats: TermStats = {
      documents: 200,
      frequencies: new Map([
        ["launch", 60],
        ["slip", 3],
      ]),
    };
    expect(idf(stats, "slip")).toBeGreaterThan(idf(stats, "launch"));
    expect(idf(stats, "never")).toBeGreaterThan(idf(stats, "slip"));
    const weighed = weigh(analyzeQuestion("Why did the launch slip?"), stats);
    const weight = (w: string) => weighed.terms.find((t) => t.word === w)?.weight ?? 0;
    expect(weight("slip")).toBeGreaterThan(weight("launch"));
    const uniform = weigh(analyzeQuestion("Why did the launch slip twice?"), null);
    expect(uniform.terms.find((t) => t.word === "slip")?.weight).toBe(
      uniform.terms.find((t) => t.word === "launch")?.weight,
    );
  });
});

describe("entities", () => {
  it("finds dates, amounts, numbers and names, one span each", () => {
    const found = entities(
      "Brightwell Health went live on October 14, 2026 with 58 users; on the Team plan pay $59 (15% off annually).",
    );
    const of = (kind: string) => found.filter((e) => e.kind === kind).map((e) => e.key);
    expect(of("date")).toEqual(["10-14"]);
    expect(of("money")).toEqual(["59"]);
    expect(of("number")).toEqual(["58", "15%"]);
    expect(of("name")).toEqual(["brightwell", "health", "team"]);
  });

  it("does not take acronyms, months or a sentence's first word for names", () => {
    const names = entities("Dashboards moved in September. SSO needs AES-GCM; Kofi reviews it.").filter(
      (e) => e.kind === "name",
    );
    expect(names.map((e) => e.text)).toEqual(["Kofi"]);
  });

  it("gives two ways of writing a date the same key", () => {
    const keys = ["Nov 6", "November 6, 2026", "6 November", "2026-11-06"].map((t) => entities(t)[0]?.key);
    expect(new Set(keys)).toEqual(new Set(["11-06"]));
  });
});
