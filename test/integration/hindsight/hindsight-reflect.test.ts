/**
 * Ask Hindsight, inspect here: a question sent to the fake Hindsight server's reflect endpoint is
 * stored as an imported run that opens like any run and compares with a native run of the same
 * question on the imported bank.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.REFLECT_LLM = "offline";
  process.env.OPENAI_API_KEY = "";
});

import type { Db } from "@/db/client";
import { getRun, getRunEvents, listRuns } from "@/db/runs";
import { isAppError } from "@/lib/contracts/errors";
import { AskHindsightResult } from "@/lib/contracts/hindsight";
import { importFromHindsight } from "@/lib/server/hindsight-import";
import { askHindsight } from "@/lib/server/hindsight-reflect";
import { startRun } from "@/lib/server/runs";
import { compareRuns } from "@/lib/timeline/compare";
import { type FakeHindsight, sampleBank, startFakeHindsight } from "../../fixtures/fake-hindsight-server";
import { openTempDb } from "../db/temp-db";

const KEY = "hs-reflect-key";
let temp: Awaited<ReturnType<typeof openTempDb>>;
let db: Db;
let fake: FakeHindsight;

beforeAll(async () => {
  temp = await openTempDb("hindsight-reflect");
  db = temp.db;
  fake = await startFakeHindsight({
    banks: [sampleBank("alice")],
    apiKey: KEY,
    override: (path) => (path.endsWith("/banks/broken/reflect") ? { body: { based_on: null } } : undefined),
  });
  await importFromHindsight(db, { baseUrl: fake.url, bankId: "alice", apiKey: KEY });
});
afterEach(() => {
  fake.requests.length = 0;
  fake.reflectBodies.length = 0;
});
afterAll(async () => {
  await fake.close();
  temp.cleanup();
});

describe("ask Hindsight", () => {
  it("stores Hindsight's answer, tool calls and evidence as an imported run on the imported bank", async () => {
    const result = AskHindsightResult.parse(
      await askHindsight(db, { baseUrl: fake.url, bankId: "alice", apiKey: KEY, question: "Where does Alice work?" }),
    );
    expect(fake.reflectBodies).toEqual([
      { query: "Where does Alice work?", budget: "mid", include: { facts: {}, tool_calls: {} } },
    ]);
    expect(fake.requests[0]?.authorization).toBe(`Bearer ${KEY}`);
    expect(result).toMatchObject({
      bankId: "alice",
      answer: "Hindsight answer to: Where does Alice work?",
      toolCalls: 4,
    });
    const run = await getRun(db, result.runId);
    expect(run).toMatchObject({ bankId: "alice", question: "Where does Alice work?" });
    const events = await getRunEvents(db, result.runId);
    const calls = events.flatMap((e) => (e.type === "tool.call" ? [[e.payload.tool, e.payload.tier]] : []));
    expect(calls).toEqual([
      ["search_mental_models", "mental_models"],
      ["search_observations", "observations"],
      ["recall", "raw_facts"],
      ["done", null],
    ]);
    const finished = events.find((e) => e.type === "run.finished");
    if (finished?.type !== "run.finished") throw new Error("no run.finished");
    expect(finished.payload.answer).toBe("Hindsight answer to: Where does Alice work?");
    // Evidence: two facts, the observation and the mental model, cited by their (shared) ids.
    expect(finished.payload.citations.memory_ids.length).toBe(2);
    expect(finished.payload.citations.observation_ids).toEqual(["obs-1"]);
    expect(finished.payload.citations.mental_model_ids).toEqual(["team-communication"]);
    const { runs } = await listRuns(db, { bankId: "alice" });
    expect(runs.map((r) => r.id)).toContain(result.runId);
    // The key is in no stored row: runs, events, spans, banks.
    for (const table of ["runs", "run_events", "otlp_spans", "banks", "facts"]) {
      const rows = (await db.$client.execute(`SELECT * FROM ${table}`)).rows;
      expect(JSON.stringify(rows)).not.toContain(KEY);
    }
  });

  it("compares step by step with a native run of the same question on the imported bank", async () => {
    const hs = await askHindsight(db, {
      baseUrl: fake.url,
      bankId: "alice",
      apiKey: KEY,
      question: "What does Alice do?",
    });
    const { runId, finished } = await startRun(db, {
      bankId: "alice",
      question: "What does Alice do?",
      mode: "synthesize",
    });
    await finished;
    const comparison = compareRuns(await getRunEvents(db, runId), await getRunEvents(db, hs.runId));
    expect(comparison.steps.length).toBeGreaterThan(0);
    expect(comparison.steps.some((s) => s.b !== null)).toBe(true);
  });

  it("a malformed answer (no text) is refused by field and stores no run", async () => {
    const before = (await listRuns(db, {})).runs.length;
    const err = await askHindsight(db, { baseUrl: fake.url, bankId: "broken", apiKey: KEY, question: "q?" }).catch(
      (e) => e,
    );
    expect(isAppError(err, "upstream_failed")).toBe(true);
    expect(err.message).toMatch(/POST \/v1\/default\/banks\/broken\/reflect: malformed response: text/);
    expect((await listRuns(db, {})).runs.length).toBe(before);
  });

  it("a refused key stores no run and does not echo the key", async () => {
    const err = await askHindsight(db, {
      baseUrl: fake.url,
      bankId: "alice",
      apiKey: "bad-key-xyz",
      question: "q?",
    }).catch((e) => e);
    expect(isAppError(err, "upstream_failed")).toBe(true);
    expect(err.message).not.toContain("bad-key-xyz");
  });
});
