import { describe, expect, it } from "vitest";
import { ALL_BUT_ONE_AT_MOST, buildFtsMatches, buildFtsQuery } from "@/db/queries/fts-query";

describe("FTS query builder", () => {
  it("quotes each meaningful token and ORs them, dropping stop words and duplicates", () => {
    expect(buildFtsQuery("What is the status of the Billing billing migration?")).toBe(
      '"status" OR "billing" OR "migration"',
    );
  });

  it("drops question filler that names no topic", () => {
    expect(buildFtsQuery("What happened in the Brightwell incident?")).toBe('"brightwell" OR "incident"');
    expect(buildFtsQuery("How is the Acme pilot going?")).toBe('"acme" OR "pilot"');
  });

  it("neutralizes FTS5 syntax in the question", () => {
    expect(buildFtsQuery('NEAR(ab cd) "xy" OR yz* -zz ^col:w2')).toBe(
      '"near" OR "ab" OR "cd" OR "xy" OR "yz" OR "zz" OR "col" OR "w2"',
    );
  });

  it("drops a lone letter (what is left of a possessive or a contraction), keeps a lone digit", () => {
    expect(buildFtsQuery("What are Caroline's plans? She won't say")).toBe('"caroline" OR "plans" OR "won" OR "say"');
    expect(buildFtsQuery("Room 4 booking")).toBe('"room" OR "4" OR "booking"');
  });

  it("returns null when nothing searchable is left", () => {
    expect(buildFtsQuery("")).toBeNull();
    expect(buildFtsQuery("the of and?!")).toBeNull();
  });

  it("keeps non-English letters and digits", () => {
    expect(buildFtsQuery("Müller Q3 2025")).toBe('"müller" OR "q3" OR "2025"');
  });

  it("tries every word, then every word but one (three words or more), then any word", () => {
    expect(buildFtsMatches("Who owns the SSO rollout?")).toEqual([
      '"owns" AND "sso" AND "rollout"',
      '("sso" AND "rollout") OR ("owns" AND "rollout") OR ("owns" AND "sso")',
      '"owns" OR "sso" OR "rollout"',
    ]);
    expect(buildFtsMatches("SSO rollout")).toEqual(['"sso" AND "rollout"', '"sso" OR "rollout"']);
    expect(buildFtsMatches("What about pricing?")).toEqual(['"pricing"']);
    expect(buildFtsMatches("the?")).toBeNull();
  });

  it("writes the every-word-but-one level only up to ALL_BUT_ONE_AT_MOST words: a long query's expressions grow with its words, not their square", () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i.toString(36)}x`);
    expect(buildFtsMatches(words(ALL_BUT_ONE_AT_MOST).join(" "))).toHaveLength(3);
    const long = words(3_000);
    const matches = buildFtsMatches(long.join(" "));
    // Every word, then any word: what search.ts ranks past ALL_BUT_ONE_AT_MOST words.
    expect(matches).toEqual([long.map((w) => `"${w}"`).join(" AND "), long.map((w) => `"${w}"`).join(" OR ")]);
    for (const m of matches ?? []) expect(m.length).toBeLessThan(long.join(" ").length * 4);
  });
});
