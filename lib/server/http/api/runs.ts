/** Runs for the API: detail and event log (lib/server/services/runs.ts), and the log as a server-sent event stream. */
export { runDetail, runEventList } from "../../services/runs";

import type { Db } from "@/db/client";
import { requireRun, runEventsAfter } from "../../services/runs";
import { sseResponse } from "./sse";

export const SSE_POLL_MS = 250;
/** Events a stream reads at a time: a long run's log is sent page by page as the client reads it. */
export const SSE_PAGE_EVENTS = 256;

/**
 * The run's events as a server-sent event stream: what exists, then new events as the DB gains
 * them (polled every SSE_POLL_MS), until `run.finished` (or the run stopped without one, e.g.
 * interrupted). `after` (from Last-Event-ID on reconnect) skips what the client already has.
 */
export async function runEventStream(db: Db, id: string, after: number | undefined, request: Request) {
  await requireRun(db, id);
  let last = after;
  return sseResponse(
    request,
    async ({ send, ready, signal }) => {
      let first = true;
      while (!signal.aborted) {
        // Status before events: a run that stops after this read still has its events read below.
        const { run, events } = await runEventsAfter(db, id, last, SSE_PAGE_EVENTS);
        // The response goes out with its first bytes: a client that has every event so far must
        // not wait for the next one (or the keep-alive) to learn that it is connected.
        if (first && events.length === 0 && run?.status === "running") send({ id: last });
        first = false;
        for (const e of events) {
          if (signal.aborted) return;
          send({ id: e.seq, event: e.type, data: e });
          last = e.seq;
          if (e.type === "run.finished") return;
          // Only as fast as the client reads (sse.ts SSE_BUFFER_BYTES).
          await ready();
        }
        // A full page: more may follow at once, read before the status counts.
        if (events.length === SSE_PAGE_EVENTS) continue;
        if (run?.status !== "running") return;
        await new Promise((r) => setTimeout(r, SSE_POLL_MS));
      }
    },
    () => last,
  );
}
