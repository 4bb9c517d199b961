/**
 * Server-sent events, the one way pages and API clients follow something live (a run's event log,
 * the runs list): frames, response headers, keep-alive, and a per-process bound on open streams.
 */

import { AppError } from "@/lib/contracts/errors";
import { processWide } from "../../runtime/process-wide";

/** Open streams per process; past it a new one gets 503 with Retry-After. */
export const MAX_OPEN_STREAMS = 64;
/** A comment frame this often keeps idle proxies from cutting the connection and finds dead clients. */
export const SSE_KEEPALIVE_MS = 15_000;

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  // no-transform also keeps response compression from buffering the stream.
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
} as const;

export interface SseFrame {
  /** What a reconnecting client sends back as Last-Event-ID. */
  id?: string | number;
  event?: string;
  /** JSON-encoded; a frame without data moves the client's Last-Event-ID without dispatching an event. */
  data?: unknown;
}

const encoder = new TextEncoder();

export function encodeSseFrame(frame: SseFrame): Uint8Array {
  let text = "";
  if (frame.id !== undefined) text += `id: ${frame.id}\n`;
  if (frame.event) text += `event: ${frame.event}\n`;
  text += frame.data === undefined ? ": keep-alive\n" : `data: ${JSON.stringify(frame.data)}\n`;
  return encoder.encode(`${text}\n`);
}

const streams = processWide("open-streams", () => ({ open: 0 }));

/**
 * Bytes a stream holds for a client that has not read them yet. Past it the producer waits
 * (`SseSink.ready`): without a bound, a client that reads slowly (or not at all) made the server
 * hold a big run's whole log per stream — 16 such streams on a 10,000-event run took 450 MB.
 */
export const SSE_BUFFER_BYTES = 256 * 1024;

export interface SseSink {
  send(frame: SseFrame): void;
  /** Resolves once the client has read enough that more may be sent (at once while it keeps up), or the stream closed. */
  ready(): Promise<void>;
  /** Aborted when the client goes away or the stream is closed. */
  signal: AbortSignal;
}

/**
 * A text/event-stream response whose frames `produce` sends; the stream closes when `produce`
 * returns or the client disconnects. Throws the API's 503 when this process already serves
 * MAX_OPEN_STREAMS streams. `keepAliveId` is the id a keep-alive frame carries (the cursor so far).
 */
export function sseResponse(
  request: Request,
  produce: (sink: SseSink) => Promise<void>,
  keepAliveId?: () => string | number | undefined,
): Response {
  if (streams.open >= MAX_OPEN_STREAMS) {
    throw new AppError("too_many_streams", `This server already serves ${MAX_OPEN_STREAMS} live streams.`);
  }
  streams.open++;
  const done = new AbortController();
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  // The producer waiting for the client to read (one at a time: `produce` awaits `ready`).
  let waiting: (() => void) | undefined;
  const wake = () => {
    const resume = waiting;
    waiting = undefined;
    resume?.();
  };
  const finish = () => {
    if (done.signal.aborted) return;
    done.abort();
    clearInterval(keepAlive);
    streams.open--;
    wake();
  };
  let queue: ReadableStreamDefaultController<Uint8Array> | undefined;
  const ready = (): Promise<void> =>
    done.signal.aborted || (queue?.desiredSize ?? 1) > 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          waiting = resolve;
        });
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        queue = controller;
        const close = () => {
          if (done.signal.aborted) return;
          finish();
          controller.close();
        };
        const send = (frame: SseFrame) => {
          if (done.signal.aborted) return;
          try {
            controller.enqueue(encodeSseFrame(frame));
          } catch {
            finish();
          }
        };
        if (request.signal.aborted) return close();
        request.signal.addEventListener("abort", close, { signal: done.signal });
        keepAlive = setInterval(() => send({ id: keepAliveId?.() }), SSE_KEEPALIVE_MS);
        produce({ send, ready, signal: done.signal }).then(close, (err: unknown) => {
          if (done.signal.aborted) return;
          console.error(err);
          finish();
          controller.error(err);
        });
      },
      // The client read below the bound: the producer may go on.
      pull: wake,
      cancel: finish,
    },
    new ByteLengthQueuingStrategy({ highWaterMark: SSE_BUFFER_BYTES }),
  );
  return new Response(body, { headers: SSE_HEADERS });
}

export function openStreamCount(): number {
  return streams.open;
}
