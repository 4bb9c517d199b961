/**
 * The runs list, live: a server-sent event stream of the runs that appear or change under the
 * list's filters. It rides on the process's one change poller (run-list-feed.ts); each open stream
 * only re-reads the runs that changed. Frames:
 *   `run`    a run summary (new, or changed and still matching the filters)
 *   `remove` `{id}`: a run changed and no longer matches the filters (or is gone)
 *   `reset`  `{}`: too much changed since the cursor to replay; reload the list
 * Every frame's `id` is a cursor (ms): resume with it as Last-Event-ID or `?since=`.
 */
import type { Db } from "@/db/client";
import { runChangePoller, runsChangedSince } from "../../services/run-list-feed";
import { type RunListFilter, runItemsAmong } from "../../services/runs";
import { sseResponse } from "./sse";

/**
 * A reconnect replays the runs created or finished since the cursor minus this margin: the time
 * between a writer stamping `createdAt`/`finishedAt` and its commit, and clock skew between
 * processes sharing the database. Replaying a run twice is harmless; the list upserts.
 */
export const CATCH_UP_MARGIN_MS = 30_000;
/** More changes than this since the cursor and the stream says `reset` instead of replaying them. */
export const CATCH_UP_LIMIT = 500;

export function runListStream(db: Db, filter: RunListFilter, resumeAt: number | undefined, request: Request): Response {
  // A cursor from the future is not one this server gave out: resume from now.
  const since = resumeAt === undefined ? undefined : Math.min(resumeAt, Date.now());
  let cursor = since ?? Date.now();
  return sseResponse(
    request,
    async ({ send, signal }) => {
      const deliver = async (ids: string[], at: number) => {
        if (ids.length > 0) {
          const items = await runItemsAmong(db, filter, ids);
          const kept = new Set(items.map((r) => r.id));
          for (const item of items) send({ id: at, event: "run", data: item });
          for (const id of ids) if (!kept.has(id)) send({ id: at, event: "remove", data: { id } });
        }
        cursor = Math.max(cursor, at);
      };

      // Ends the stream: on disconnect, or with the error a read failed with (the client reconnects).
      let stop!: (err?: unknown) => void;
      const stopped = new Promise<unknown>((resolve) => {
        stop = resolve;
      });
      if (signal.aborted) stop();
      signal.addEventListener("abort", () => stop(), { once: true });

      // Batches wait in one queue so they go out in the order they were read, after the catch-up.
      let queue: Promise<void> = Promise.resolve();
      const enqueue = (job: () => Promise<void>) => {
        queue = queue.then(job).catch(stop);
      };
      let subscribed!: () => void;
      const ready = new Promise<void>((resolve) => {
        subscribed = resolve;
      });
      enqueue(async () => {
        await ready;
        // The response goes out with its first bytes: tell the client it is connected, and where it is.
        send({ id: cursor });
        if (since === undefined) return;
        const at = Date.now();
        const ids = await runsChangedSince(db, new Date(since - CATCH_UP_MARGIN_MS).toISOString(), CATCH_UP_LIMIT + 1);
        if (ids.length > CATCH_UP_LIMIT) send({ id: at, event: "reset", data: {} });
        else await deliver(ids, at);
        cursor = Math.max(cursor, at);
      });
      const unsubscribe = await runChangePoller(db).subscribe((batch) => enqueue(() => deliver(batch.ids, batch.at)));
      subscribed();
      const failure = await stopped;
      unsubscribe();
      if (failure) throw failure;
    },
    () => cursor,
  );
}
