/**
 * Following a server-sent event stream from the browser. Read with fetch rather than EventSource so
 * each reconnect asks for exactly what the caller is missing (the run page's last seq, the runs
 * list's cursor), a stream that ended on purpose is told apart from a dropped one, and a refused
 * stream (404, 400) is not retried forever.
 */

export interface StreamFrame {
  id?: string;
  event: string;
  /** Empty for frames that only move the cursor (keep-alives). */
  data: string;
}

/**
 * Incremental text/event-stream parser (the WHATWG rules without `retry`): feed it decoded text as
 * it arrives; it calls `onFrame` for every complete frame.
 */
export function createFrameParser(onFrame: (frame: StreamFrame) => void): (text: string) => void {
  let buffer = "";
  let id: string | undefined;
  let event = "";
  let data: string[] = [];
  let hasFields = false;
  const line = (text: string) => {
    if (text === "") {
      if (hasFields) onFrame({ id, event: event || "message", data: data.join("\n") });
      id = undefined;
      event = "";
      data = [];
      hasFields = false;
      return;
    }
    if (text.startsWith(":")) return;
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") event = value;
    else if (field === "id" && !value.includes("\0")) id = value;
    else return;
    hasFields = true;
  };
  return (text) => {
    buffer += text;
    for (;;) {
      const match = /\r\n|\r|\n/.exec(buffer);
      // A lone \r at the end may be the first half of \r\n: wait for the next chunk.
      if (!match || (match[0] === "\r" && match.index === buffer.length - 1)) return;
      line(buffer.slice(0, match.index));
      buffer = buffer.slice(match.index + match[0].length);
    }
  };
}

/** `ended`: the server finished the stream and the caller agreed; `refused`: a 4xx, not retried. */
export type StreamState = "connecting" | "live" | "reconnecting" | "ended" | "refused";

export interface FollowOptions {
  /** The URL of the next connection; it carries the caller's own resume point. */
  url: () => string;
  onFrame: (frame: StreamFrame) => void;
  /**
   * The server ended the stream on purpose. Resolve true to reconnect (it ended for a reason the
   * caller can check, e.g. a proxy timeout); the default is to stop.
   */
  onEnd?: () => Promise<boolean> | boolean;
  onState?: (state: StreamState) => void;
  signal: AbortSignal;
}

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5_000;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/**
 * Follows a stream until the caller aborts, the server refuses it (4xx other than 429), or it
 * ends and `onEnd` says so. Drops and server errors reconnect with backoff (250 ms doubling to 5 s).
 */
export async function followEventStream({ url, onFrame, onEnd, onState, signal }: FollowOptions): Promise<void> {
  let failures = 0;
  onState?.("connecting");
  while (!signal.aborted) {
    try {
      const res = await fetch(url(), { headers: { accept: "text/event-stream" }, cache: "no-store", signal });
      if (!res.ok || !res.body) {
        if (res.status >= 400 && res.status < 500 && res.status !== 429) {
          onState?.("refused");
          return;
        }
        throw new Error(`stream answered ${res.status}`);
      }
      failures = 0;
      onState?.("live");
      const parse = createFrameParser(onFrame);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parse(value);
      }
      if (signal.aborted) return;
      if (!(await (onEnd?.() ?? false))) {
        onState?.("ended");
        return;
      }
    } catch {
      if (signal.aborted) return;
      failures++;
    }
    onState?.("reconnecting");
    await sleep(Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** Math.max(0, failures - 1)), signal);
  }
}
