/**
 * GET /api/v1/runs/stream called as a route handler over a temp database: runs written by anyone
 * sharing the database (here: the store directly, as the CLI would) reach an open stream (the feed
 * reads new rows every RUN_FEED_POLL_MS; the waits here are only how long a loaded machine may take),
 * under the stream's filters; a reconnect replays what changed meanwhile; the number of
 * open streams is bounded.
 */
import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";

const dbFile = vi.hoisted(() => {
  const path = `${process.cwd()}/test/.tmp/run-list-stream-${process.pid}-${Date.now()}.db`;
  process.env.DATABASE_URL = `file:${path}`;
  process.env.REFLECT_LLM = "offline";
  return path;
});

import * as stream from "@/app/api/v1/runs/stream/route";
import { createRun, finishRun } from "@/db/queries/runs";
import { createFrameParser, type StreamFrame } from "@/lib/client/event-stream";
import { MAX_OPEN_STREAMS, openStreamCount } from "@/lib/server/http/api/sse";
import { getAppDb } from "@/lib/server/runtime/db";

interface OpenStream {
  status: number;
  frames: StreamFrame[];
  /** Waits for the next frame (after those already taken) that matches. */
  next: (match: (f: StreamFrame) => boolean, timeoutMs?: number) => Promise<StreamFrame>;
  close: () => void;
}

const open: OpenStream[] = [];

async function openStream(query = "", headers: Record<string, string> = {}): Promise<OpenStream> {
  const controller = new AbortController();
  const request = new Request(`http://127.0.0.1/api/v1/runs/stream${query}`, {
    headers: { accept: "text/event-stream", ...headers },
    signal: controller.signal,
  });
  const res = await stream.GET(request, { params: Promise.resolve(undefined) });
  const frames: StreamFrame[] = [];
  let taken = 0;
  let wake = () => {};
  if (res.ok && res.body) {
    const parse = createFrameParser((f) => {
      frames.push(f);
      wake();
    });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    controller.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}));
    void (async () => {
      for (;;) {
        const chunk = await reader.read().catch(() => null);
        if (!chunk || chunk.done) return;
        parse(chunk.value);
      }
    })();
  }
  const handle: OpenStream = {
    status: res.status,
    frames,
    close: () => controller.abort(),
    next: async (match, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        while (taken < frames.length) {
          const f = frames[taken++] as StreamFrame;
          if (match(f)) return f;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(frames)}`);
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, left);
        });
      }
    },
  };
  open.push(handle);
  // Connected: the first frame (the cursor) goes out once the stream has subscribed to the feed, so
  // a change made after this returns reaches it. Without this wait, a run created while 64 streams
  // were still subscribing on a loaded machine reached only those already subscribed.
  if (res.ok) {
    const deadline = Date.now() + 10_000;
    while (frames.length === 0 && Date.now() < deadline)
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 100);
      });
  }
  return handle;
}

const dataOf = (f: StreamFrame) => JSON.parse(f.data) as { id: string; status?: string; bankId?: string };
const about =
  (id: string, event = "run") =>
  (f: StreamFrame) =>
    f.event === event && dataOf(f).id === id;

let counter = 0;
async function newRun(bankId = "demo") {
  const id = `run_stream_${Date.now().toString(36)}_${counter++}`;
  await createRun(await getAppDb(), {
    id,
    bankId,
    question: `Question ${id}`,
    skill: null,
    budget: "low",
    mode: "synthesize",
    scope: "personal",
    model: { kind: "offline", name: "offline" },
  });
  return id;
}

async function finish(id: string) {
  await finishRun(await getAppDb(), id, {
    status: "done",
    answer: "An answer.",
    citations: { memory_ids: [], observation_ids: [], mental_model_ids: [] },
    dropped: [],
    flags: [],
    usage: { inputTokens: 1, outputTokens: 1 },
    llmCalls: 1,
    iterations: 1,
    warnings: [],
    error: null,
  });
}

beforeAll(async () => {
  mkdirSync(resolve(process.cwd(), "test/.tmp"), { recursive: true });
  await getAppDb();
});
afterEach(async () => {
  for (const s of open.splice(0)) s.close();
  await vi.waitFor(() => expect(openStreamCount()).toBe(0));
});
afterAll(async () => {
  (await getAppDb()).$client.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${dbFile}${suffix}`, { force: true });
});

describe("GET /runs/stream", () => {
  it("sends a run started elsewhere, then its finish", async () => {
    const s = await openStream();
    expect(s.status).toBe(200);
    // At once, before any change: a frame that only carries the cursor, so the client knows it is connected.
    const hello = await s.next(() => true);
    expect(hello.data).toBe("");
    expect(Number(hello.id)).toBeGreaterThan(0);
    const id = await newRun();
    const first = await s.next(about(id));
    expect(dataOf(first)).toMatchObject({ id, status: "running", bankId: "demo", question: `Question ${id}` });
    expect(Number(first.id)).toBeGreaterThan(0);

    await finish(id);
    const update = await s.next(about(id));
    expect(dataOf(update)).toMatchObject({ id, status: "done", answer: "An answer.", llmCalls: 1 });
  });

  it("keeps to its filters: other banks stay out, a run that stops matching is removed", async () => {
    const otherBank = await openStream("?bank=elsewhere");
    const running = await openStream("?status=running");
    const demo = await newRun("demo");
    const elsewhere = await newRun("elsewhere");
    // Batches arrive in the order they were read: had the demo run been sent, it would come first.
    await otherBank.next((f) => f.event === "run");
    expect(otherBank.frames.filter((f) => f.event === "run").map((f) => dataOf(f).id)).toEqual([elsewhere]);

    await running.next(about(demo));
    await finish(demo);
    await running.next(about(demo, "remove"));
    expect(running.frames.filter((f) => f.data && dataOf(f).id === demo).map((f) => f.event)).toEqual([
      "run",
      "remove",
    ]);
  });

  it("a reconnect with Last-Event-ID replays what changed while it was away", async () => {
    const first = await openStream();
    const before = await newRun();
    const seen = await first.next(about(before));
    first.close();

    const meanwhile = await newRun();
    await finish(before);
    const again = await openStream("", { "last-event-id": String(seen.id) });
    const replayed = new Map<string, (string | undefined)[]>();
    while (!replayed.has(meanwhile) || !replayed.has(before)) {
      const r = dataOf(await again.next((f) => f.event === "run"));
      replayed.set(r.id, [...(replayed.get(r.id) ?? []), r.status]);
    }
    expect(replayed.get(meanwhile)).toEqual(["running"]);
    expect(replayed.get(before)).toEqual(["done"]);
  });

  it("replays from ?since= too, and refuses a cursor that is not one", async () => {
    const since = Date.now();
    const id = await newRun();
    const s = await openStream(`?since=${since}`);
    await s.next(about(id));
    expect((await openStream("?since=yesterday")).status).toBe(400);
    for (const notation of ["1e3", "0x10", "%20"]) expect((await openStream(`?since=${notation}`)).status).toBe(400);
    expect((await openStream("?status=bogus")).status).toBe(400);
    expect((await openStream("?kind=bogus")).status).toBe(400);
  });

  it("a resume point out of range or from the future resumes from now, and the stream stays healthy", async () => {
    // An id no server gave out (beyond any date) and one a little in the future: neither may
    // break the stream after its 200, nor replay every run ever made.
    const old = await newRun();
    const anHourAgo = new Date(Date.now() - 3_600_000).toISOString();
    await (await getAppDb()).$client.execute({
      sql: "UPDATE runs SET created_at = ? WHERE id = ?",
      args: [anHourAgo, old],
    });
    // A cursor in another notation ("1e3" read as 1000 ms, "0x10" as 16) is none either.
    for (const id of ["99999999999999999999", String(Date.now() + 86_400_000), "1e3", "0x10"]) {
      const s = await openStream("", { "last-event-id": id });
      expect(s.status).toBe(200);
      const hello = await s.next(() => true);
      expect(Number(hello.id)).toBeLessThanOrEqual(Date.now());
      const fresh = await newRun();
      await s.next(about(fresh));
      expect(s.frames.some((f) => f.event === "run" && dataOf(f).id === old)).toBe(false);
      s.close();
    }
    const far = await openStream(`?since=${Date.now() + 86_400_000}`);
    await far.next(() => true);
    const fresh = await newRun();
    await far.next(about(fresh));
    expect(far.frames.some((f) => f.event === "run" && dataOf(f).id === old)).toBe(false);
  });

  it(`serves at most ${MAX_OPEN_STREAMS} streams at once and answers 503 with Retry-After past that`, async () => {
    const streams = await Promise.all(Array.from({ length: MAX_OPEN_STREAMS }, () => openStream()));
    expect(streams.every((s) => s.status === 200)).toBe(true);
    const refused = await stream.GET(
      new Request("http://127.0.0.1/api/v1/runs/stream", { headers: { accept: "text/event-stream" } }),
      { params: Promise.resolve(undefined) },
    );
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect((await refused.json()).error.code).toBe("too_many_streams");
    // Every stream still gets the change, from the one shared poller.
    const id = await newRun();
    // Delivery, not latency, is what this asserts: 64 streams on a loaded 2-core machine (integration
    // files run in parallel) can take longer than one poll to all wake up.
    await Promise.all(streams.map((s) => s.next(about(id), 15_000)));
  });
});
