/**
 * A run's event stream over a long packed run (more events than SSE_PAGE_EVENTS, in several packs):
 * read page by page as the client reads (lib/server/http/api/runs.ts), every event arrives once and
 * in order, from the start and after a Last-Event-ID, and the stream ends with the finished run.
 */
import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const dbFile = vi.hoisted(() => {
  const path = `${process.cwd()}/test/.tmp/run-events-pages-${process.pid}-${Date.now()}.db`;
  process.env.DATABASE_URL = `file:${path}`;
  process.env.REFLECT_LLM = "offline";
  return path;
});

import * as runEvents from "@/app/api/v1/runs/[id]/events/route";
import { createRun, createRunSink, finishRun } from "@/db/queries/runs";
import { SSE_PAGE_EVENTS } from "@/lib/server/http/api/runs";
import { getAppDb } from "@/lib/server/runtime/db";

const RUN = "run_long_packed";
const EVENTS = SSE_PAGE_EVENTS * 3 + 17;

beforeAll(async () => {
  mkdirSync(resolve(process.cwd(), "test/.tmp"), { recursive: true });
  const db = await getAppDb();
  await createRun(db, {
    id: RUN,
    bankId: "demo",
    question: "A long run?",
    skill: null,
    budget: "low",
    mode: "synthesize",
    scope: "personal",
    model: { kind: "offline", name: "offline" },
  });
  const sink = createRunSink(db, RUN);
  for (let seq = 0; seq < EVENTS; seq++)
    await sink.append({
      runId: RUN,
      seq,
      at: seq,
      type: "tool.call",
      iteration: seq,
      payload: {
        callId: `c${seq}`,
        tool: "recall",
        tier: null,
        query: `q ${seq} ${"w".repeat(400)}`,
        reason: null,
        args: {},
      },
    } as never);
  const result = {
    status: "done" as const,
    answer: "Long.",
    citations: { raw_facts: [], observations: [], mental_models: [] },
    dropped: [],
    flags: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    llmCalls: 0,
    iterations: EVENTS,
    warnings: [],
    error: null,
    probe: null,
  };
  await sink.flush();
  await finishRun(db, RUN, result as never);
  const packs = await db.$client.execute({
    sql: "SELECT count(*) AS n FROM run_event_packs WHERE run_id = ?",
    args: [RUN],
  });
  expect(Number(packs.rows[0]?.n)).toBeGreaterThan(1);
});
afterAll(async () => {
  (await getAppDb()).$client.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${dbFile}${suffix}`, { force: true });
});

async function stream(headers: Record<string, string> = {}): Promise<number[]> {
  const res = await runEvents.GET(
    new Request(`http://127.0.0.1/api/v1/runs/${RUN}/events`, { headers: { accept: "text/event-stream", ...headers } }),
    { params: Promise.resolve({ id: RUN }) },
  );
  expect(res.status).toBe(200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (let i = 0; ; i++) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
    // A slow reader now and then: the stream waits for it rather than holding everything.
    if (i % 50 === 0) await new Promise((r) => setTimeout(r, 5));
  }
  return text
    .split("\n\n")
    .filter((f) => f.startsWith("id: ") && f.includes("\nevent: "))
    .map((f) => Number(/^id: (\d+)/.exec(f)?.[1]));
}

describe("a long packed run's event stream", () => {
  it("sends every event once, in order, page after page, and ends with the finished run", async () => {
    expect(await stream()).toEqual(Array.from({ length: EVENTS }, (_, i) => i));
  });

  it("resumes after a Last-Event-ID inside a later page", async () => {
    const from = SSE_PAGE_EVENTS + 5;
    expect(await stream({ "last-event-id": String(from) })).toEqual(
      Array.from({ length: EVENTS - from - 1 }, (_, i) => from + 1 + i),
    );
  });
});
