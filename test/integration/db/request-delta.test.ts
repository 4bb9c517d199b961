/**
 * `llm.request` events are stored as a delta against the run's previous request (db/queries/runs.ts) and
 * read back whole: every read — the whole log, after a seq, the last event of a type — returns the
 * event exactly as the engine appended it (same JSON, key order included), and a run stored before
 * deltas existed reads as it always did. The same holds once a finished run's events are packed
 * (db/queries/run-event-codec.ts): in one pack or many, beside rows written after them, packed by
 * two processes at once, and for a run stored before packs or left as rows by a crash.
 */
import { inflateRawSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "@/db/client";
import { PACK_MAX_EVENTS } from "@/db/queries/run-event-codec";
import {
  countRunEvents,
  createRun,
  createRunSink,
  finishRun,
  getLastRunEvent,
  getRunEvents,
  packRunEvents,
} from "@/db/queries/runs";
import { runEvents } from "@/db/schema";
import type { RunEvent } from "@/lib/reflect/events";
import { openTempDb } from "./temp-db";

let t: Awaited<ReturnType<typeof openTempDb>>;
beforeAll(async () => {
  t = await openTempDb("request-delta");
});
afterAll(() => t.cleanup());

const newRun = (id: string) =>
  createRun(t.db, {
    id,
    bankId: "acme",
    question: "q",
    skill: null,
    budget: "mid",
    mode: "synthesize",
    scope: "personal",
    model: { kind: "offline", name: "offline" },
  });

const SYSTEM = { role: "system" as const, content: "You answer from memory. ".repeat(60) };
const USER = { role: "user" as const, content: "When did Atlas launch?" };
const OTHER = { role: "user" as const, content: "Who owns the SSO rollout?" };
const call = (n: number) => ({
  role: "assistant" as const,
  content: null,
  tool_calls: [{ id: `c${n}`, type: "function" as const, function: { name: "recall", arguments: `{"q":"${n}"}` } }],
});
const result = (n: number) => ({ role: "tool" as const, tool_call_id: `c${n}`, content: `result ${n} `.repeat(100) });
const anchor = { role: "system" as const, content: "Remember the mission." };

function request(runId: string, seq: number, messages: unknown[], injections: unknown[] = []): RunEvent {
  return {
    runId,
    seq,
    at: seq,
    type: "llm.request",
    iteration: seq,
    payload: { messages, tools: ["recall", "done"], toolChoice: { type: "auto" }, injections },
  } as RunEvent;
}

/** Key order as getRunEvents builds an event: the JSON comparisons below include it. */
/** A conversation that grows, gets a one-request injection, then restarts from scratch. */
function conversation(runId: string): RunEvent[] {
  return [
    request(runId, 0, [SYSTEM, USER]),
    request(runId, 1, [SYSTEM, USER, call(1), result(1)]),
    request(
      runId,
      2,
      [SYSTEM, USER, anchor, call(1), result(1), call(2), result(2)],
      [{ kind: "anchor", text: anchor.content, index: 2 }],
    ),
    request(runId, 3, [SYSTEM, USER, call(1), result(1), call(2), result(2), call(3), result(3)]),
    {
      runId,
      seq: 4,
      at: 4,
      type: "steering.nudge",
      iteration: 4,
      payload: { text: "try another tier", trigger: "repeated_empty", signature: null, count: 2, sinceIteration: 0 },
    } as RunEvent,
    request(runId, 5, [OTHER]),
    request(runId, 6, [OTHER, call(4), result(4)]),
  ];
}

async function append(runId: string, events: RunEvent[], flushEach = false) {
  const sink = createRunSink(t.db, runId);
  for (const e of events) {
    await sink.append(e);
    if (flushEach) await sink.flush();
  }
  await sink.flush();
}

async function storedPayloads(runId: string) {
  const { rows } = await t.db.$client.execute({
    sql: "SELECT seq, payload FROM run_events WHERE run_id = ? AND type = 'llm.request' ORDER BY seq",
    args: [runId],
  });
  return rows.map((r) => ({ seq: Number(r.seq), payload: String(r.payload) }));
}

describe("llm.request deltas", () => {
  it("stores each message a request repeats as its index in the previous request, and reads back the same JSON", async () => {
    const events = conversation("run-d1");
    await newRun("run-d1");
    await append("run-d1", events);
    const stored = await storedPayloads("run-d1");
    // Messages are stored deflated when that is shorter (messagesZ, base64).
    const from = stored.map((s) => {
      const p = JSON.parse(s.payload) as { messages: unknown[]; messagesFrom?: unknown; messagesZ?: string };
      if (p.messagesZ) p.messages = JSON.parse(inflateRawSync(Buffer.from(p.messagesZ, "base64")).toString("utf8"));
      return p;
    });
    expect(from.filter((p) => p.messagesZ).length).toBeGreaterThan(3);
    expect(from.map((p) => p.messagesFrom ?? null)).toEqual([
      null,
      { seq: 0 },
      { seq: 1 },
      { seq: 2 },
      // A conversation sharing no message with the previous request is stored whole.
      null,
      { seq: 5 },
    ]);
    // A message the previous request sent is stored as its index there; the anchor injected at
    // index 2 of request 2 is stored whole, and the messages after it are still references.
    const refs = (p: { messages: unknown[] }) => p.messages.map((m) => (typeof m === "number" ? m : "new"));
    expect(from.map(refs)).toEqual([
      ["new", "new"],
      [0, 1, "new", "new"],
      [0, 1, "new", 2, 3, "new", "new"],
      [0, 1, 3, 4, 5, 6, "new", "new"],
      ["new"],
      [0, "new", "new"],
    ]);
    const whole = events
      .filter((e) => e.type === "llm.request")
      .reduce((n, e) => n + JSON.stringify(e.payload).length, 0);
    const kept = stored.reduce((n, s) => n + s.payload.length, 0);
    expect(kept).toBeLessThan(whole * 0.15);

    const read = await getRunEvents(t.db, "run-d1");
    expect(JSON.stringify(read)).toBe(JSON.stringify(events));
  });

  it("rebuilds a request whose base is not among the events read: after a seq, or the last of its type", async () => {
    const events = conversation("run-d2");
    await newRun("run-d2");
    await append("run-d2", events, true);
    for (const after of [0, 1, 2, 3, 4]) {
      const read = await getRunEvents(t.db, "run-d2", { afterSeq: after });
      expect(JSON.stringify(read)).toBe(JSON.stringify(events.slice(after + 1)));
    }
    const limited = await getRunEvents(t.db, "run-d2", { afterSeq: 1, limit: 2 });
    expect(JSON.stringify(limited)).toBe(JSON.stringify(events.slice(2, 4)));
    expect(JSON.stringify(await getLastRunEvent(t.db, "run-d2", "llm.request"))).toBe(JSON.stringify(events[6]));
  });

  it("a search result's content is stored deflated, read back as it was, and SQL on its ids still works", async () => {
    await newRun("run-tool");
    const big = {
      runId: "run-tool",
      seq: 0,
      at: 0,
      type: "tool.result",
      iteration: 1,
      payload: {
        callId: "c1",
        tool: "recall",
        tier: "raw_facts",
        outcome: "success",
        ids: { mental_models: [], observations: [], raw_facts: ["f1", "f2"] },
        count: 2,
        chars: 5000,
        cap: 8000,
        truncated: false,
        durationMs: 3,
        error: null,
        signature: "recall|q",
        content: "f1: Atlas launches on October 20. ".repeat(150),
      },
    } as RunEvent;
    const small = { ...big, seq: 1, payload: { ...big.payload, callId: "c2", content: "f1: short" } } as RunEvent;
    await append("run-tool", [big, small]);
    const { rows } = await t.db.$client.execute(
      "SELECT seq, length(payload) AS n, json_extract(payload, '$.contentZ') IS NOT NULL AS packed FROM run_events WHERE run_id = 'run-tool' ORDER BY seq",
    );
    expect(rows.map((r) => Number(r.packed))).toEqual([1, 0]);
    expect(Number(rows[0]?.n)).toBeLessThan(JSON.stringify(big.payload).length / 5);
    expect(JSON.stringify(await getRunEvents(t.db, "run-tool"))).toBe(JSON.stringify([big, small]));
    const ids = await t.db.$client.execute(
      "SELECT j.value AS id FROM run_events e JOIN json_each(e.payload, '$.ids.raw_facts') j WHERE e.run_id = 'run-tool' AND e.seq = 0",
    );
    expect(ids.rows.map((r) => r.id)).toEqual(["f1", "f2"]);
  });

  it("a tool message repeating a search result is stored as a reference to it, and rebuilt on every read", async () => {
    const runId = "run-refs";
    const toolResult = (seq: number, n: number): RunEvent =>
      ({
        runId,
        seq,
        at: seq,
        type: "tool.result",
        iteration: n,
        payload: {
          callId: `c${n}`,
          tool: "recall",
          tier: "raw_facts",
          outcome: "success",
          ids: { mental_models: [], observations: [], raw_facts: [`f${n}`] },
          count: 1,
          chars: 900,
          cap: 8000,
          truncated: false,
          durationMs: 1,
          error: null,
          signature: `recall|${n}`,
          content: result(n).content,
        },
      }) as RunEvent;
    // A tool message whose content differs from its result (it was cut, say) is stored whole.
    const edited = { ...result(2), content: "result 2, edited" };
    const events = [
      request(runId, 0, [SYSTEM, USER]),
      toolResult(1, 1),
      request(runId, 2, [SYSTEM, USER, call(1), result(1)]),
      toolResult(3, 2),
      request(runId, 4, [SYSTEM, USER, call(1), result(1), call(2), edited]),
    ];
    await newRun(runId);
    await append(runId, events, true);
    const stored = (await storedPayloads(runId)).map((s) => {
      const p = JSON.parse(s.payload) as { messages: unknown[]; messagesZ?: string };
      return p.messagesZ ? JSON.parse(inflateRawSync(Buffer.from(p.messagesZ, "base64")).toString("utf8")) : p.messages;
    });
    expect(stored[1]).toEqual([0, 1, call(1), { role: "tool", tool_call_id: "c1", content: "", contentOf: 1 }]);
    expect(stored[2]).toEqual([0, 1, 2, 3, call(2), edited]);
    expect(JSON.stringify(await getRunEvents(t.db, runId))).toBe(JSON.stringify(events));
    for (const after of [0, 1, 2, 3]) {
      expect(JSON.stringify(await getRunEvents(t.db, runId, { afterSeq: after }))).toBe(
        JSON.stringify(events.slice(after + 1)),
      );
    }
    expect(JSON.stringify(await getLastRunEvent(t.db, runId, "llm.request"))).toBe(JSON.stringify(events[4]));
  });

  it("a run stored whole (before deltas) reads as it was written", async () => {
    const events = conversation("run-old");
    await newRun("run-old");
    await t.db.insert(runEvents).values(
      events.map((e) => ({
        runId: e.runId,
        seq: e.seq,
        at: e.at,
        type: e.type,
        iteration: e.iteration ?? null,
        payload: e.payload,
      })),
    );
    expect(JSON.stringify(await getRunEvents(t.db, "run-old"))).toBe(JSON.stringify(events));
  });

  it("a delta whose base is missing fails loudly instead of showing a wrong conversation", async () => {
    await newRun("run-broken");
    await append("run-broken", conversation("run-broken").slice(0, 2));
    await t.db.$client.execute("DELETE FROM run_events WHERE run_id = 'run-broken' AND seq = 0");
    await expect(getRunEvents(t.db, "run-broken")).rejects.toThrow(/refers to request 0, which is missing/);
  });
});

/** Every read a reader makes — whole, after each seq, pages, the last of each type, the count — returns what was appended. */
async function expectReadsAsAppended(runId: string, events: RunEvent[]) {
  expect(JSON.stringify(await getRunEvents(t.db, runId))).toBe(JSON.stringify(events));
  for (const e of events) {
    expect(JSON.stringify(await getRunEvents(t.db, runId, { afterSeq: e.seq }))).toBe(
      JSON.stringify(events.filter((x) => x.seq > e.seq)),
    );
  }
  for (const [after, limit] of [
    [undefined, 1],
    [undefined, 3],
    [1, 2],
    [2, 100],
  ] as const) {
    const expected = events.filter((x) => after === undefined || x.seq > after).slice(0, limit);
    expect(JSON.stringify(await getRunEvents(t.db, runId, { afterSeq: after, limit }))).toBe(JSON.stringify(expected));
  }
  for (const type of new Set(events.map((e) => e.type))) {
    expect(JSON.stringify(await getLastRunEvent(t.db, runId, type))).toBe(
      JSON.stringify(events.findLast((e) => e.type === type)),
    );
  }
  expect(await getLastRunEvent(t.db, runId, "probe.finished")).toBeNull();
  expect(await countRunEvents(t.db, runId)).toBe(events.length);
}

async function storedCounts(runId: string) {
  const { rows } = await t.db.$client.execute({
    sql: `SELECT (SELECT count(*) FROM run_events WHERE run_id = ?1) AS rows,
                 (SELECT count(*) FROM run_event_packs WHERE run_id = ?1) AS packs`,
    args: [runId],
  });
  return { rows: Number(rows[0]?.rows), packs: Number(rows[0]?.packs) };
}

const markDone = (runId: string) =>
  t.db.$client.execute({ sql: "UPDATE runs SET status = 'done' WHERE id = ?", args: [runId] });

const toolResult = (runId: string, seq: number, n: number): RunEvent =>
  ({
    runId,
    seq,
    at: seq + 0.25,
    type: "tool.result",
    iteration: n,
    payload: {
      callId: `c${n}`,
      tool: "recall",
      tier: "raw_facts",
      outcome: "success",
      ids: { mental_models: [], observations: [], raw_facts: [`f${n}`, "f0"] },
      count: 2,
      chars: 900,
      cap: 8000,
      truncated: false,
      durationMs: 1,
      error: null,
      signature: `recall|${n}`,
      content: result(n).content,
    },
  }) as RunEvent;

/**
 * A run of `turns` iterations: each a request repeating the system and user messages and the last
 * two searches (a long conversation trimmed, as a small context would), then a search result.
 */
function longRun(runId: string, turns: number): RunEvent[] {
  const events: RunEvent[] = [];
  const recent: unknown[] = [];
  for (let n = 1; n <= turns; n++) {
    events.push(request(runId, events.length, [SYSTEM, USER, ...recent.slice(-4)]));
    events.push(toolResult(runId, events.length, n));
    recent.push(call(n), result(n));
  }
  return events;
}

describe("packed runs", () => {
  it("a finished run's events are packed in place of its rows, and every read returns the JSON appended", async () => {
    const runId = "run-pack";
    const events = [
      ...conversation(runId),
      toolResult(runId, 7, 5),
      request(runId, 8, [OTHER, call(4), result(4), call(5), result(5)]),
    ];
    await newRun(runId);
    await append(runId, events, true);
    await expectReadsAsAppended(runId, events);
    // A running run is never packed: its sink may still append.
    expect(await packRunEvents(t.db, runId)).toEqual({ packs: 0, events: 0 });
    expect(await storedCounts(runId)).toEqual({ rows: events.length, packs: 0 });
    await markDone(runId);
    expect(await packRunEvents(t.db, runId)).toEqual({ packs: 1, events: events.length });
    expect(await storedCounts(runId)).toEqual({ rows: 0, packs: 1 });
    await expectReadsAsAppended(runId, events);
    // Packing again finds nothing left to pack.
    expect(await packRunEvents(t.db, runId)).toEqual({ packs: 0, events: 0 });
    const { rows } = await t.db.$client.execute(
      "SELECT length(data) AS n FROM run_event_packs WHERE run_id = 'run-pack'",
    );
    const asRows = events.reduce((n, e) => n + JSON.stringify(e.payload).length, 0);
    expect(Number(rows[0]?.n)).toBeLessThan(asRows / 10);
  });

  it("finishRun packs the run it finishes, and records what it retrieved", async () => {
    const runId = "run-finish";
    const events = longRun(runId, 4);
    await newRun(runId);
    await append(runId, events);
    const finished = await finishRun(t.db, runId, {
      status: "done",
      answer: "a",
      citations: { memory_ids: [], observation_ids: [], mental_model_ids: [] },
      dropped: [],
      flags: [],
      usage: { inputTokens: 1, outputTokens: 1 },
      llmCalls: 4,
      iterations: 4,
      warnings: [],
      error: null,
    });
    expect(finished.status).toBe("done");
    expect(finished.retrieved).toEqual([
      { id: "f1", tier: "raw_facts", rank: 1 },
      { id: "f0", tier: "raw_facts", rank: 2 },
      { id: "f2", tier: "raw_facts", rank: 1 },
      { id: "f3", tier: "raw_facts", rank: 1 },
      { id: "f4", tier: "raw_facts", rank: 1 },
    ]);
    expect(await storedCounts(runId)).toEqual({ rows: 0, packs: 1 });
    await expectReadsAsAppended(runId, events);
  });

  it("a long run is split into packs that each read alone: reads across their bounds return the JSON appended", async () => {
    const runId = "run-long";
    const events = longRun(runId, PACK_MAX_EVENTS + 20);
    await newRun(runId);
    await append(runId, events);
    await markDone(runId);
    const packed = await packRunEvents(t.db, runId);
    expect(packed.events).toBe(events.length);
    expect(packed.packs).toBeGreaterThanOrEqual(3);
    const { rows } = await t.db.$client.execute(
      "SELECT first_seq, last_seq, events FROM run_event_packs WHERE run_id = 'run-long' ORDER BY first_seq",
    );
    const bounds = rows.map((r) => ({ first: Number(r.first_seq), last: Number(r.last_seq), n: Number(r.events) }));
    // Consecutive, none over the cap, every event once.
    bounds.forEach((b, i) => {
      expect(b.first).toBe(i === 0 ? 0 : (bounds[i - 1]?.last ?? 0) + 1);
      expect(b.n).toBe(b.last - b.first + 1);
      expect(b.n).toBeLessThanOrEqual(PACK_MAX_EVENTS);
    });
    expect(bounds.at(-1)?.last).toBe(events.length - 1);
    expect(JSON.stringify(await getRunEvents(t.db, runId))).toBe(JSON.stringify(events));
    for (const after of [0, ...bounds.flatMap((b) => [b.first - 1, b.first, b.last - 1])]) {
      expect(JSON.stringify(await getRunEvents(t.db, runId, { afterSeq: after }))).toBe(
        JSON.stringify(events.slice(after + 1)),
      );
      expect(JSON.stringify(await getRunEvents(t.db, runId, { afterSeq: after, limit: 5 }))).toBe(
        JSON.stringify(events.slice(after + 1, after + 6)),
      );
    }
    expect(JSON.stringify(await getRunEvents(t.db, runId, { limit: PACK_MAX_EVENTS + 1 }))).toBe(
      JSON.stringify(events.slice(0, PACK_MAX_EVENTS + 1)),
    );
    expect(JSON.stringify(await getLastRunEvent(t.db, runId, "llm.request"))).toBe(
      JSON.stringify(events[events.length - 2]),
    );
    expect(await countRunEvents(t.db, runId)).toBe(events.length);
  });

  it("a run stored whole before deltas and packs packs and reads as it was written", async () => {
    const runId = "run-old-pack";
    const events = [...conversation(runId), toolResult(runId, 7, 5)];
    await newRun(runId);
    await t.db.insert(runEvents).values(
      events.map((e) => ({
        runId: e.runId,
        seq: e.seq,
        at: e.at,
        type: e.type,
        iteration: e.iteration ?? null,
        payload: e.payload,
      })),
    );
    await markDone(runId);
    expect((await packRunEvents(t.db, runId)).events).toBe(events.length);
    await expectReadsAsAppended(runId, events);
  });

  it("events written after a run was packed read after its packs, in order", async () => {
    const runId = "run-late";
    const events = longRun(runId, 3);
    await newRun(runId);
    // The sink stores the late request as a delta against a request that is now in the pack.
    const sink = createRunSink(t.db, runId);
    for (const e of events) await sink.append(e);
    await sink.flush();
    await markDone(runId);
    await packRunEvents(t.db, runId);
    const late = request(runId, events.length, [
      SYSTEM,
      USER,
      call(1),
      result(1),
      call(2),
      result(2),
      call(3),
      result(3),
    ]);
    await t.db.$client.execute({ sql: "UPDATE runs SET status = 'running' WHERE id = ?", args: [runId] });
    await sink.append(late);
    await sink.flush();
    await markDone(runId);
    expect(await storedCounts(runId)).toEqual({ rows: 1, packs: 1 });
    await expectReadsAsAppended(runId, [...events, late]);
    // A second pass packs the rest as a pack of its own.
    expect(await packRunEvents(t.db, runId)).toEqual({ packs: 1, events: 1 });
    expect(await storedCounts(runId)).toEqual({ rows: 0, packs: 2 });
    await expectReadsAsAppended(runId, [...events, late]);
  });

  it("two processes packing one run at once store its events once", async () => {
    const runId = "run-race";
    const events = longRun(runId, 6);
    await newRun(runId);
    await append(runId, events);
    await markDone(runId);
    const other = await openDb(`file:${t.path}`);
    try {
      const results = await Promise.all([packRunEvents(t.db, runId), packRunEvents(other, runId)]);
      expect(results.map((r) => r.packs).sort()).toEqual([0, 1]);
    } finally {
      other.$client.close();
    }
    expect(await storedCounts(runId)).toEqual({ rows: 0, packs: 1 });
    await expectReadsAsAppended(runId, events);
  });

  it("reads during packing see the whole run, before or after", async () => {
    const runId = "run-reading";
    const events = longRun(runId, 8);
    await newRun(runId);
    await append(runId, events);
    await markDone(runId);
    const reads = Array.from({ length: 20 }, (_, i) =>
      getRunEvents(t.db, runId, i % 2 === 0 ? {} : { afterSeq: 5 }).then((r) => JSON.stringify(r)),
    );
    const [, ...seen] = await Promise.all([packRunEvents(t.db, runId), ...reads]);
    for (const [i, json] of seen.entries()) {
      expect(json).toBe(JSON.stringify(i % 2 === 0 ? events : events.slice(6)));
    }
  });

  it("hostile text and values read back the same from rows and from the pack (a lone surrogate too)", async () => {
    const runId = "run-hostile";
    const odd = `lone \ud800 surrogate, NUL \u0000, 🧪, "quotes", \\ back\\slash, ${"é".repeat(300)}`;
    const events: RunEvent[] = [
      request(runId, 0, [SYSTEM, { role: "user", content: odd }]),
      {
        runId,
        seq: 1,
        at: 0.1 + 0.2,
        type: "tool.call",
        iteration: 1,
        payload: {
          callId: "c1",
          tool: "recall",
          tier: null,
          query: odd,
          reason: null,
          args: {
            __proto__: { polluted: true },
            constructor: "x",
            deep: [[[[{ n: 1e308, m: -1e-308 }]]]],
            contentOf: 0,
          },
        },
      } as unknown as RunEvent,
      {
        ...toolResult(runId, 2, 1),
        payload: { ...toolResult(runId, 2, 1).payload, content: odd.repeat(20) },
      } as RunEvent,
      request(runId, 3, [
        SYSTEM,
        { role: "user", content: odd },
        call(1),
        { role: "tool", tool_call_id: "c1", content: odd.repeat(20) },
      ]),
    ];
    await newRun(runId);
    await append(runId, events);
    const asRows = JSON.stringify(await getRunEvents(t.db, runId));
    await markDone(runId);
    expect((await packRunEvents(t.db, runId)).events).toBe(4);
    expect(JSON.stringify(await getRunEvents(t.db, runId))).toBe(asRows);
    expect(asRows).toBe(JSON.stringify(events));
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("a pack this version cannot read, or a damaged one, fails loudly instead of showing other events", async () => {
    const runId = "run-bad-pack";
    await newRun(runId);
    await append(runId, longRun(runId, 2));
    await markDone(runId);
    await packRunEvents(t.db, runId);
    await t.db.$client.execute("UPDATE run_event_packs SET format = 99 WHERE run_id = 'run-bad-pack'");
    await expect(getRunEvents(t.db, runId)).rejects.toThrow(/pack format 99, which this version cannot read/);
    await t.db.$client.execute(
      "UPDATE run_event_packs SET format = 1, data = substr(data, 1, length(data) / 2) WHERE run_id = 'run-bad-pack'",
    );
    await expect(getRunEvents(t.db, runId)).rejects.toThrow();
  });
});
