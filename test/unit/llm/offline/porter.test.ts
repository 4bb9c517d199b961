import { describe, expect, it } from "vitest";
import { tokenize } from "@/lib/llm/offline/text";
import { porterStem } from "@/lib/reflect/porter";

describe("porter stemmer (as FTS5's porter tokenizer)", () => {
  it("stems Porter's own examples step by step", () => {
    const cases: Record<string, string> = {
      caresses: "caress",
      ponies: "poni",
      cats: "cat",
      feed: "feed",
      agreed: "agre",
      plastered: "plaster",
      motoring: "motor",
      sing: "sing",
      conflated: "conflat",
      hopping: "hop",
      falling: "fall",
      filing: "file",
      happy: "happi",
      relational: "relat",
      conditional: "condit",
      digitizer: "digit",
      vietnamization: "vietnam",
      predication: "predic",
      operator: "oper",
      hopefulness: "hope",
      formaliti: "formal",
      triplicate: "triplic",
      electrical: "electr",
      goodness: "good",
      revival: "reviv",
      allowance: "allow",
      adjustable: "adjust",
      replacement: "replac",
      adoption: "adopt",
      effective: "effect",
      probate: "probat",
      controll: "control",
      roll: "roll",
    };
    for (const [word, stem] of Object.entries(cases)) expect(porterStem(word), word).toBe(stem);
  });

  it("joins the forms a memory and a question use, and keeps FTS5's own splits", () => {
    expect(porterStem("decided")).toBe(porterStem("decide"));
    expect(porterStem("pricing")).toBe(porterStem("priced"));
    expect(porterStem("blocking")).toBe("block");
    // FTS5 does not join these, so neither does the model: a search for one never finds the other.
    expect(porterStem("decision")).not.toBe(porterStem("decide"));
    expect(porterStem("blocker")).not.toBe(porterStem("blocked"));
  });

  it("passes short tokens through unchanged", () => {
    expect(porterStem("is")).toBe("is");
    expect(porterStem("q3")).toBe("q3");
  });

  it("tokenizes like unicode61: letters and digits, lowercase, diacritics removed", () => {
    expect(tokenize("Tomás's $24,000 SSO-rollout (Q3)").map((t) => t.word)).toEqual([
      "tomas",
      "s",
      "24",
      "000",
      "sso",
      "rollout",
      "q3",
    ]);
  });
});
