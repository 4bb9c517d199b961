/**
 * The offline model as a careful reader, measured on the demo bank: for each question of the set
 * (test/fixtures/offline-questions.ts) the memory or text that must lead the answer. At least 90 %
 * lead with it and every answer contains it. `npm run bench -- offline` prints the same set.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { ensureDemoBank } from "@/lib/server/runtime/db";
import { OFFLINE_QUESTIONS, type QuestionScore, runOfflineQuestions } from "@/test/fixtures/offline-questions";
import { openTempDb } from "../db/temp-db";

let db: Db;
let cleanup: () => void;
let scores: QuestionScore[];

beforeAll(async () => {
  ({ db, cleanup } = await openTempDb("offline-questions"));
  expect(await ensureDemoBank(db)).toBe(true);
  scores = await runOfflineQuestions(db);
}, 120_000);
afterAll(() => cleanup());

const report = (list: QuestionScore[]) => list.map((s) => `${s.entry.question}\n    → ${s.firstLine}`).join("\n");

describe("the offline model on the demo-bank question set", () => {
  it("has at least 25 questions of its own, each with what must lead", () => {
    expect(OFFLINE_QUESTIONS.length).toBeGreaterThanOrEqual(25);
    for (const q of OFFLINE_QUESTIONS) expect(q.notFound || q.ids || q.text, q.question).toBeTruthy();
  });

  it("contains what must lead in every answer", () => {
    const missing = scores.filter((s) => !s.contains);
    expect(missing, report(missing)).toEqual([]);
  });

  it("leads with it in at least 90 % of the answers", () => {
    const led = scores.filter((s) => s.leads).length;
    expect(led / scores.length, report(scores.filter((s) => !s.leads))).toBeGreaterThanOrEqual(0.9);
  });

  it("keeps every answer grounded, and says plainly when nothing answers, citing nothing", () => {
    for (const s of scores) {
      const { citations, flags, answer } = s.result;
      const cited = [...citations.memory_ids, ...citations.observation_ids, ...citations.mental_model_ids];
      if (!s.entry.notFound) {
        expect(flags, s.entry.question).not.toContain("ungrounded");
        continue;
      }
      expect(answer, s.entry.question).toMatch(/could not find|no relevant memories/i);
      expect(cited, s.entry.question).toEqual([]);
    }
  });
});
