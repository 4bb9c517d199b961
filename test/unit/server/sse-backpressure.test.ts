/**
 * A server-sent event stream sends only as fast as its client reads (lib/server/http/api/sse.ts
 * SSE_BUFFER_BYTES): a client that reads slowly or not at all holds at most the bound, not a big
 * run's whole log (16 such streams on a 10,000-event run took 450 MB before the bound).
 */
import { describe, expect, it } from "vitest";
import { openStreamCount, SSE_BUFFER_BYTES, sseResponse } from "@/lib/server/http/api/sse";

const FRAME = "x".repeat(10_000);
const FRAMES = 2_000; // 20 MB in all

function stream() {
  let sent = 0;
  let finished = false;
  const response = sseResponse(new Request("http://127.0.0.1/x"), async ({ send, ready, signal }) => {
    for (let i = 0; i < FRAMES && !signal.aborted; i++) {
      send({ id: i, event: "e", data: FRAME });
      sent++;
      await ready();
    }
    finished = true;
  });
  return { response, sent: () => sent, finished: () => finished };
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("SSE back-pressure", () => {
  it("a client that reads nothing holds at most the buffer bound, not everything", async () => {
    const s = stream();
    await tick(200);
    // One frame past the bound at most: the producer waits once the queue is full.
    expect(s.sent() * FRAME.length).toBeLessThanOrEqual(SSE_BUFFER_BYTES + 2 * FRAME.length);
    expect(s.finished()).toBe(false);
    // Once the client reads, the producer goes on where it waited.
    const before = s.sent();
    const reader = s.response.body!.getReader();
    let read = 0;
    while (read < 4 * SSE_BUFFER_BYTES) read += (await reader.read()).value?.byteLength ?? 0;
    await tick(20);
    expect(s.sent()).toBeGreaterThan(before + 20);
    expect(s.sent()).toBeLessThan(FRAMES);
    await reader.cancel();
    // The producer wakes and stops once the client goes away; the stream is no longer counted.
    await tick(50);
    expect(s.sent()).toBeLessThan(FRAMES);
    expect(openStreamCount()).toBe(0);
  });

  it("a client that reads receives every frame, in order", async () => {
    const s = stream();
    const reader = s.response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
    expect(s.finished()).toBe(true);
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual(Array.from({ length: FRAMES }, (_, i) => i));
  });
});
