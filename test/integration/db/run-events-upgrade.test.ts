/**
 * A database written by the release before packed events (migration 0018): its runs' events stay
 * rows in the format that release wrote (request deltas, deflated payloads) and read as they were
 * appended; the mental-model pages and retention, which read events' JSON in SQL then, find the
 * same runs through what the migration filled in (`runs.enabled_tiers`, `run_mental_model_reads`);
 * and such a run, once packed, reads the same again.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDb } from "@/db/client";
import {
  countMentalModelReads,
  listRefreshRuns,
  listRunsThatRead,
  mentalModelVersionsReadBy,
} from "@/db/queries/mental-model-reads";
import { pruneRuns } from "@/db/queries/retention";
import { createDeltaEncoder, deflatePayload } from "@/db/queries/run-event-codec";
import { countRunEvents, getRunEvents, packFinishedRuns } from "@/db/queries/runs";
import type { RunEvent } from "@/lib/reflect/events";
import { migratedUpTo } from "./temp-db";

const SOURCE_QUERY = "What are the launch dates?";
const SKILL = { id: "s1", name: "default", version: 1, instructions: "Answer from memory." };

function runStarted(runId: string, enabledTiers: string[]): RunEvent {
  return {
    runId,
    seq: 0,
    at: 0,
    type: "run.started",
    payload: {
      bankId: "a",
      question: SOURCE_QUERY,
      skill: SKILL,
      budget: "mid",
      mode: "synthesize",
      scope: "personal",
      model: { kind: "offline", name: "offline" },
      maxIterations: 4,
      anchorEvery: 0,
      enabledTiers,
      toolResultCapChars: 8000,
      wallClockMs: 60000,
      parentRunId: null,
      forkedAtIteration: null,
      warnings: [],
    },
  } as unknown as RunEvent;
}

const request = (runId: string, seq: number, messages: unknown[]): RunEvent =>
  ({
    runId,
    seq,
    at: seq,
    type: "llm.request",
    iteration: 1,
    payload: { messages, tools: ["recall", "done"], toolChoice: { type: "auto" }, injections: [] },
  }) as RunEvent;

const SYSTEM = { role: "system", content: "You answer from memory. ".repeat(40) };
const USER = { role: "user", content: SOURCE_QUERY };
const CALL = {
  role: "assistant",
  content: null,
  tool_calls: [{ id: "c1", type: "function", function: { name: "recall_mental_models", arguments: '{"q":"launch"}' } }],
};
const CONTENT = "mm1 (v2): The launch is on the 20th; the beta on the 6th. ".repeat(20);

function readingRun(runId: string): RunEvent[] {
  return [
    runStarted(runId, ["mental_models", "observations", "raw_facts"]),
    request(runId, 1, [SYSTEM, USER]),
    {
      runId,
      seq: 2,
      at: 2,
      type: "tool.result",
      iteration: 1,
      payload: {
        callId: "c1",
        tool: "recall",
        tier: "mental_models",
        outcome: "success",
        ids: { mental_models: ["mm1"], observations: [], raw_facts: [] },
        count: 1,
        chars: CONTENT.length,
        cap: 8000,
        truncated: false,
        durationMs: 1,
        error: null,
        signature: "recall|launch",
        content: CONTENT,
        mentalModels: [{ id: "mm1", version: 2, isStale: false }],
      },
    } as RunEvent,
    request(runId, 3, [SYSTEM, USER, CALL, { role: "tool", tool_call_id: "c1", content: CONTENT }]),
  ];
}

const refreshRun = (runId: string): RunEvent[] => [
  runStarted(runId, ["observations", "raw_facts"]),
  request(runId, 1, [SYSTEM, USER]),
];

let dir: string;
let db: Db;
const appended = new Map<string, RunEvent[]>();

beforeAll(async () => {
  dir = mkdtempSync(resolve(process.cwd(), "test/.tmp/events-upgrade-"));
  const { url, client } = await migratedUpTo(dir, "0018");
  await client.execute("INSERT INTO banks (id, name, permitted_teams) VALUES ('a', 'A', '[]')");
  const runs: [string, string, RunEvent[]][] = [
    ["r-read", "done", readingRun("r-read")],
    ["r-refresh", "done", refreshRun("r-refresh")],
    ["r-crashed", "interrupted", readingRun("r-crashed").slice(0, 3)],
  ];
  for (const [id, status, events] of runs) {
    appended.set(id, events);
    await client.execute({
      sql: `INSERT INTO runs (id, bank_id, question, skill_snapshot, budget, mode, scope, model_kind, model_name, status,
              dropped, flags, warnings, created_at)
            VALUES (?, 'a', ?, ?, 'mid', 'synthesize', 'personal', 'offline', 'offline', ?, '[]', '[]', '[]', ?)`,
      args: [
        id,
        SOURCE_QUERY,
        JSON.stringify(SKILL),
        status,
        `2020-01-0${runs.findIndex((r) => r[0] === id) + 1}T00:00:00.000Z`,
      ],
    });
    // The rows exactly as that release's sink wrote them.
    const encode = createDeltaEncoder();
    for (const e of events) {
      await client.execute({
        sql: "INSERT INTO run_events (run_id, seq, at, type, iteration, payload) VALUES (?, ?, ?, ?, ?, ?)",
        args: [id, e.seq, e.at, e.type, e.iteration ?? null, JSON.stringify(deflatePayload(e.type, encode(e)))],
      });
    }
  }
  client.close();
  db = await openDb(url);
  await db.$client.execute(
    `INSERT INTO mental_models (id, bank_id, name, source_query, content, tags, refreshed_at, stale_override, based_on_ids, version, updated_at)
       VALUES ('mm1', 'a', 'Dates', '${SOURCE_QUERY}', 'The 20th.', '[]', NULL, NULL, '[]', 2, NULL)`,
  );
});

afterAll(() => {
  db?.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a database written before packed events", () => {
  it("reads every run's events as they were appended, rows in the old format", async () => {
    for (const [id, events] of appended) {
      expect(JSON.stringify(await getRunEvents(db, id))).toBe(JSON.stringify(events));
      expect(JSON.stringify(await getRunEvents(db, id, { afterSeq: 2 }))).toBe(JSON.stringify(events.slice(3)));
    }
  });

  it("the mental-model pages find the same runs: readers, counts, refresh runs, versions read", async () => {
    expect(await countMentalModelReads(db, "a")).toEqual(new Map([["mm1", 2]]));
    expect((await listRunsThatRead(db, "a", "mm1")).map((r) => r.id)).toEqual(["r-crashed", "r-read"]);
    expect((await listRefreshRuns(db, "a", "mm1", SOURCE_QUERY)).map((r) => r.id)).toEqual(["r-refresh"]);
    expect(await mentalModelVersionsReadBy(db, "r-read")).toEqual(new Map([["mm1", 2]]));
  });

  it("the background pass packs the old runs, and they read the same; the pages still find them", async () => {
    expect(await packFinishedRuns(db)).toEqual({ runs: 3, events: 9, failed: [] });
    expect(await packFinishedRuns(db)).toEqual({ runs: 0, events: 0, failed: [] });
    for (const id of ["r-read", "r-refresh", "r-crashed"]) {
      expect(JSON.stringify(await getRunEvents(db, id))).toBe(JSON.stringify(appended.get(id)));
      expect(JSON.stringify(await getRunEvents(db, id, { afterSeq: 1 }))).toBe(
        JSON.stringify(appended.get(id)?.slice(2)),
      );
      expect(await countRunEvents(db, id)).toBe(appended.get(id)?.length);
    }
    const { rows } = await db.$client.execute("SELECT count(*) AS n FROM run_events");
    expect(Number(rows[0]?.n)).toBe(0);
    expect(await countMentalModelReads(db, "a")).toEqual(new Map([["mm1", 2]]));
    expect((await listRefreshRuns(db, "a", "mm1", SOURCE_QUERY)).map((r) => r.id)).toEqual(["r-refresh"]);
    expect(await mentalModelVersionsReadBy(db, "r-read")).toEqual(new Map([["mm1", 2]]));
  });

  it("retention keeps the refresh run and removes the others with their packs and reads", async () => {
    const result = await pruneRuns(db, { rule: { keep: 0 } });
    expect(result.deleted).toBe(2);
    expect(result.deletedEvents).toBe(7);
    expect(result.kept.total).toBe(1);
    const { rows } = await db.$client.execute(
      `SELECT (SELECT group_concat(id) FROM runs) AS runs,
              (SELECT group_concat(DISTINCT run_id) FROM run_event_packs) AS packs,
              (SELECT count(*) FROM run_mental_model_reads) AS reads`,
    );
    expect(rows[0]).toMatchObject({ runs: "r-refresh", packs: "r-refresh", reads: 0 });
  });
});
