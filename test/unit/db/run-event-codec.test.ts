/**
 * The pack codec alone (db/queries/run-event-codec.ts): packs decode to the events encoded, each
 * pack alone, whatever the conversation's shape; splits keep every event once, in order.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decodePack, encodePacks, PACK_FORMAT_BROTLI, PACK_MAX_EVENTS } from "@/db/queries/run-event-codec";
import type { RunEvent } from "@/lib/reflect/events";

/** A seeded generator: the same conversations every run. */
function prng(seed: number) {
  let x = seed;
  return () => {
    x = (x * 48271) % 2147483647;
    return x / 2147483647;
  };
}

/** A run whose requests repeat, drop, reorder and inject messages at random, with results between. */
function randomRun(seed: number, n: number): RunEvent[] {
  const rand = prng(seed);
  const pool = Array.from({ length: 12 }, (_, i) => ({ role: "user", content: `message ${i} `.repeat(1 + i * 3) }));
  const events: RunEvent[] = [];
  let conversation: unknown[] = [pool[0]];
  for (let seq = 0; seq < n; seq++) {
    if (rand() < 0.4) {
      const callId = `c${seq}`;
      const content = `result ${seq} `.repeat(Math.floor(rand() * 80));
      events.push({
        runId: "r",
        seq,
        at: seq / 3,
        type: "tool.result",
        iteration: seq,
        payload: { callId, content, ids: { mental_models: [], observations: [], raw_facts: [] } },
      } as unknown as RunEvent);
      conversation.push({ role: "tool", tool_call_id: callId, content });
    } else {
      const roll = rand();
      if (roll < 0.2) conversation = conversation.filter(() => rand() < 0.7);
      else if (roll < 0.3) conversation.reverse();
      else conversation.push(pool[Math.floor(rand() * pool.length)]);
      events.push({
        runId: "r",
        seq,
        at: seq / 3,
        type: "llm.request",
        ...(rand() < 0.5 ? { iteration: seq } : {}),
        payload: { messages: [...conversation], tools: [], toolChoice: { type: "auto" }, injections: [] },
      } as unknown as RunEvent);
    }
  }
  return events;
}

describe("run event packs", () => {
  it("decode to the events encoded, for many shapes of conversation", async () => {
    for (let seed = 1; seed <= 30; seed++) {
      const events = randomRun(seed, 40);
      const packs = await encodePacks(events);
      expect(packs).toHaveLength(1);
      expect(JSON.stringify(await decodePack("r", packs[0]?.format ?? 0, packs[0]?.data ?? Buffer.alloc(0)))).toBe(
        JSON.stringify(events),
      );
    }
  });

  it("split a long run into packs that each decode alone, every event once and in order", async () => {
    const events = randomRun(99, PACK_MAX_EVENTS * 2 + 7);
    const packs = await encodePacks(events);
    expect(packs.length).toBeGreaterThanOrEqual(3);
    const decoded: unknown[] = [];
    for (const p of packs) {
      const part = await decodePack("r", p.format, p.data);
      expect(part.map((e) => e.seq)).toEqual(Array.from({ length: p.events }, (_, i) => p.firstSeq + i));
      expect(part.at(-1)?.seq).toBe(p.lastSeq);
      decoded.push(...part);
    }
    expect(JSON.stringify(decoded)).toBe(JSON.stringify(events));
  });

  it("refuse a format they do not know", async () => {
    const [pack] = await encodePacks(randomRun(3, 5));
    expect(pack?.format).toBe(PACK_FORMAT_BROTLI);
    await expect(decodePack("r", 2, pack?.data ?? Buffer.alloc(0))).rejects.toThrow(/pack format 2/);
  });

  it("compress and decompress a pack of one oversized event (a model's 30 MB answer) off the server's thread", async () => {
    const text = randomBytes(22 * 1024 * 1024).toString("base64");
    const events = [
      {
        runId: "r",
        seq: 0,
        at: 0,
        type: "llm.response",
        iteration: 0,
        payload: {
          text,
          toolCalls: [],
          finishReason: "stop",
          tokensIn: 0,
          tokensOut: 0,
          latencyMs: 1,
          replayed: false,
        },
      },
    ] as unknown as RunEvent[];
    // A timer fires while the pack is compressed, and while it is read back: the thread was free.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      const [pack] = await encodePacks(events);
      expect(ticks).toBeGreaterThan(0);
      ticks = 0;
      const [event] = await decodePack("r", pack!.format, pack!.data);
      expect(ticks).toBeGreaterThan(0);
      expect((event?.payload as { text?: string } | undefined)?.text).toBe(text);
    } finally {
      clearInterval(timer);
    }
  }, 60_000);
});
