/**
 * `llm.request` events are stored as a delta against the run's previous request (db/queries/runs.ts) and
 * read back whole: every read — the whole log, after a seq, the last event of a type — returns the
 * event exactly as the engine appended it (same JSON, key order included), and a run stored before
 * deltas existed reads as it always did.
 */
import { inflateRawSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, createRunSink, getLastRunEvent, getRunEvents } from "@/db/queries/runs";
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
