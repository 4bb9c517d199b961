import { describe, expect, it } from "vitest";
import {
  bareMonths,
  formatDay,
  isoMatches,
  resolveRelativeTimes,
  withoutDates,
  writtenDates,
} from "@/lib/reflect/dates";

const said = (iso: string) => new Date(iso).toISOString();

describe("written dates", () => {
  it("reads a date however it is written, each place once in its most specific form", () => {
    expect(writtenDates("on 7 May 2023, May 7, 2023 and 2023-05-07")).toEqual([
      { year: 2023, month: 5, day: 7 },
      { year: 2023, month: 5, day: 7 },
      { year: 2023, month: 5, day: 7 },
    ]);
    expect(writtenDates("in May 2023, back in 2022")).toEqual([
      { year: 2023, month: 5, day: null },
      { year: 2022, month: null, day: null },
    ]);
    expect(writtenDates("the 13th of October, 2023")).toEqual([{ year: 2023, month: 10, day: 13 }]);
  });

  it("takes the dates out of a text, and reads a month named on its own", () => {
    expect(withoutDates("What did Ana do on 13 October 2023?").replace(/\s+/g, " ")).toBe("What did Ana do on ?");
    expect(bareMonths("When did Ben go camping in July?")).toEqual([7]);
    expect(bareMonths("Did it happen in May or in June 2023?")).toEqual([5]);
    // "may" the verb is no month.
    expect(bareMonths("What may Ana bake next?")).toEqual([]);
  });

  it("matches an ISO time against a date written to the day, the month or the year", () => {
    const at = "2023-10-13T14:00:00.000Z";
    expect(isoMatches(at, { year: 2023, month: 10, day: 13 })).toBe(true);
    expect(isoMatches(at, { year: 2023, month: 10, day: null })).toBe(true);
    expect(isoMatches(at, { year: 2023, month: null, day: null })).toBe(true);
    expect(isoMatches(at, { year: 2023, month: 10, day: 12 })).toBe(false);
  });
});

describe("relative times, resolved against the day they were said", () => {
  it("resolves yesterday across a month end and a year end", () => {
    expect(resolveRelativeTimes("I went yesterday", said("2023-05-08T13:56:00Z"))[0]?.text).toBe("7 May 2023");
    expect(resolveRelativeTimes("yesterday was fun", said("2023-03-01T09:00:00Z"))[0]?.text).toBe("28 February 2023");
    expect(resolveRelativeTimes("Yesterday!", said("2024-01-01T09:00:00Z"))[0]?.text).toBe("31 December 2023");
  });

  it("names a week or weekend relative to the day said, as LoCoMo's answers do", () => {
    const on = said("2023-06-09T10:00:00Z");
    expect(resolveRelativeTimes("I gave a talk last week", on)[0]?.text).toBe("the week before 9 June 2023");
    expect(resolveRelativeTimes("we went camping two weekends ago", on)[0]?.text).toBe("2 weekends before 9 June 2023");
    expect(resolveRelativeTimes("a few days ago", on)[0]?.text).toBe("6 June 2023");
  });

  it("resolves months and years across a year end", () => {
    const on = said("2024-01-15T10:00:00Z");
    expect(resolveRelativeTimes("last month", on)[0]?.text).toBe("December 2023");
    expect(resolveRelativeTimes("next month", on)[0]?.text).toBe("February 2024");
    expect(resolveRelativeTimes("I painted it last year", on)[0]?.text).toBe("2023");
    expect(resolveRelativeTimes("two years ago", on)[0]?.text).toBe("2022");
  });

  it("finds nothing in a text without a relative time, or for a day it cannot read", () => {
    expect(resolveRelativeTimes("I love pottery", said("2023-06-09T10:00:00Z"))).toEqual([]);
    expect(resolveRelativeTimes("yesterday", "not a date")).toEqual([]);
    expect(formatDay("2023-05-07T00:00:00.000Z")).toBe("7 May 2023");
  });
});
