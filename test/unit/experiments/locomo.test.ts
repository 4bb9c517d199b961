import { describe, expect, it } from "vitest";
import { LOCOMO_SKILL, locomoBundle, parseLocomoDate, readLocomoFile, turnText } from "@/lib/experiments/locomo";
import { validateBundle } from "@/lib/server/services/bundle-io";
import { MINI_LOCOMO } from "@/test/fixtures/locomo/mini";

describe("LoCoMo → a bank", () => {
  const [conv] = readLocomoFile(MINI_LOCOMO);

  it("reads LoCoMo's session times as UTC", () => {
    expect(parseLocomoDate("1:56 pm on 8 May, 2023")).toBe("2023-05-08T13:56:00.000Z");
    expect(parseLocomoDate("12:05 am on 1 January, 2024")).toBe("2024-01-01T00:05:00.000Z");
    expect(parseLocomoDate("sometime")).toBeNull();
  });

  it("makes every turn a fact with its speaker, session, position and the session's date", () => {
    const bundle = locomoBundle(conv!);
    expect(bundle.bank.id).toBe("locomo-mini-1");
    expect(bundle.facts).toHaveLength(9);
    const skating = bundle.facts.find((f) => f.id === "D1:2");
    expect(skating).toMatchObject({
      speaker: "Ben",
      sessionId: "session_1",
      position: 2,
      occurredAt: "2024-01-01T09:15:00.000Z",
    });
    expect(bundle.facts.find((f) => f.id === "D1:4")?.text).toBe(
      "Look at this! [shares a photo of a red kayak on a beach]",
    );
    expect(locomoBundle(conv!, { captions: false }).facts.find((f) => f.id === "D1:4")?.text).toBe("Look at this!");
    expect(bundle.skills).toEqual([LOCOMO_SKILL]);
    // The bundle is one the importer accepts.
    expect(() => validateBundle(bundle)).not.toThrow();
  });

  it("repairs or drops malformed ids and reports every change", () => {
    expect(conv!.items[5]?.evidence).toEqual(["D1:4"]);
    expect(conv!.repairs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: "qa[5].evidence[0]", value: "D1:4; D9:9", action: "split" }),
        expect.objectContaining({ path: "qa[5].evidence[0]", value: "D9:9", action: "dropped" }),
        expect.objectContaining({ path: "qa[5].evidence[1]", value: "D", action: "dropped" }),
        expect.objectContaining({ value: "D:2:3", action: "fixed", detail: "D2:3" }),
        expect.objectContaining({ value: "D1:3, D1:1", action: "split" }),
      ]),
    );
    expect(conv!.repairs).toHaveLength(5);
  });

  it("keeps the observations' sources and the summaries as mental models when asked", () => {
    const bundle = locomoBundle(conv!, { summaries: "fresh" });
    expect(bundle.observations.map((o) => o.sourceFactIds)).toEqual([["D1:2"], ["D1:3", "D1:1"], ["D2:2"], ["D2:3"]]);
    expect(bundle.mentalModels.map((m) => m.name)).toEqual([
      "Session 1 summary (1 January 2024)",
      "Session 2 summary (20 February 2024)",
    ]);
    // Fresh: refreshed at the last turn, so no memory in scope is newer.
    expect(bundle.mentalModels[0]?.refreshedAt).toBe("2024-03-03T11:05:00.000Z");
    expect(locomoBundle(conv!, { summaries: "stale" }).mentalModels[0]?.refreshedAt).toBeNull();
    expect(locomoBundle(conv!).mentalModels).toEqual([]);
  });

  it("reads questions with their category, gold answer (numbers as text) and the adversarial answer", () => {
    expect(conv!.items.map((i) => [i.category, i.answer])).toEqual([
      [2, "31 December 2023"],
      [1, "a bakery"],
      [4, "Biscuit"],
      [3, "2"],
      [5, null],
      [4, "a red kayak"],
    ]);
    expect(conv!.items[4]?.adversarialAnswer).toBe("Biscuit");
    expect(turnText({ speaker: "A", dia_id: "D1:1", text: "", blip_caption: "a photo of a cat" })).toBe(
      "[shares a photo of a cat]",
    );
  });

  it("refuses a file that is not LoCoMo's shape", () => {
    expect(() => readLocomoFile([{ sample_id: "x" }])).toThrow();
    expect(() => readLocomoFile([])).toThrow();
  });
});
