import { describe, expect, it } from "vitest";
import { shapeQuery } from "@/lib/reflect/query-shape";

describe("query shape", () => {
  it("takes a speaker the question names out of the words and keeps it as a preference", () => {
    const shape = shapeQuery("What are Caroline's plans for the summer?", ["Caroline", "Melanie"]);
    expect(shape.speakers).toEqual(["Caroline"]);
    expect(shape.lexical).toBe("plans summer");
  });

  it("names both speakers when the question does, and searches a name-only question by the name", () => {
    expect(shapeQuery("How do Jon and Gina destress?", ["Jon", "Gina"]).speakers).toEqual(["Jon", "Gina"]);
    expect(shapeQuery("Caroline?", ["Caroline"]).lexical).toBe("caroline");
  });

  it("leaves a name that is not a speaker of the bank among the words", () => {
    const shape = shapeQuery("What did Ana say about Nicole?", ["Ana", "Ben"]);
    expect(shape.speakers).toEqual(["Ana"]);
    expect(shape.lexical).toBe("say nicole");
  });

  it("takes stated dates and months out of the words", () => {
    const dated = shapeQuery("What did Gina find on 1 February, 2023?", []);
    expect(dated.dates).toEqual([{ year: 2023, month: 2, day: 1 }]);
    expect(dated.lexical).toBe("gina find");
    const month = shapeQuery("When did Melanie go camping in July?", []);
    expect(month.months).toEqual([7]);
    expect(month.lexical).toBe("melanie go camping");
  });

  it("reads no dates when told not to (the bench's switch)", () => {
    const shape = shapeQuery("camping in July 2023", [], { dates: false });
    expect(shape.dates).toEqual([]);
    expect(shape.lexical).toBe("camping july 2023");
  });
});
