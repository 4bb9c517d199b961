import { describe, expect, it } from "vitest";
import { containsAnswer, multiPartF1, normalizeAnswer, tokenF1 } from "@/lib/experiments/answer-score";

describe("LoCoMo's answer scoring", () => {
  it("normalises as LoCoMo does: case, commas, punctuation, articles and 'and'", () => {
    expect(normalizeAnswer("The Sunday, before 25 May, 2023!")).toBe("sunday before 25 may 2023");
    expect(normalizeAnswer("Psychology and counseling")).toBe("psychology counseling");
  });

  it("scores token F1 on porter stems", () => {
    expect(tokenF1("7 May 2023", "7 May 2023")).toBe(1);
    expect(tokenF1("adoption agencies", "Adoption agency")).toBe(1);
    // 2 of 3 predicted tokens are right, 2 of 2 gold: P 2/3, R 1.
    expect(tokenF1("researching adoption agencies", "adoption agencies")).toBeCloseTo(0.8, 5);
    expect(tokenF1("", "anything")).toBe(0);
    expect(tokenF1("Sweden", "Norway")).toBe(0);
  });

  it("scores a multi-part answer part by part, as category 1 is scored", () => {
    expect(multiPartF1("Sweden, Norway", "Norway, Sweden")).toBe(1);
    expect(multiPartF1("Sweden", "Norway, Sweden")).toBe(0.5);
  });

  it("finds the gold answer in an answer after normalisation, and a date written another way", () => {
    expect(containsAnswer("She went to the bakery on Main Street.", "a bakery")).toBe(true);
    expect(containsAnswer("On May 7, 2023 [D1:3]", "7 May 2023")).toBe(true);
    expect(containsAnswer("2023-05-07", "7 May 2023")).toBe(true);
    expect(containsAnswer("the week before 9 June 2023", "The week before 9 June 2023")).toBe(true);
    expect(containsAnswer("June 9, 2023", "The week before 9 June 2023")).toBe(false);
    expect(containsAnswer("8 May 2023", "7 May 2023")).toBe(false);
    expect(containsAnswer("in 2022", "2022")).toBe(true);
    expect(containsAnswer("a bake sale", "bakery")).toBe(false);
  });
});
