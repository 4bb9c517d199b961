"use client";

import { useEffect, useRef, useState } from "react";
import { followEventStream, type StreamState } from "@/lib/client/event-stream";
import { getJson } from "@/lib/client/unwrap";
import { type RunStatus, RunStatus as RunStatusSchema } from "@/lib/reflect/domain";
import type { RunEvent } from "@/lib/reflect/events";
import { createRunFolder, type RunFolder, type RunView } from "@/lib/timeline/fold";

/** How often newly streamed events are folded into the view. */
const FOLD_EVERY_MS = 100;

interface LiveState {
  events: RunEvent[];
  view: RunView;
}

export interface RunStream {
  /** Every event received so far, in order. */
  events: RunEvent[];
  /** The events folded into the timeline's view. */
  view: RunView;
  /** The run's status: the view's once it has finished, else how the stream or the stored row says it ended. */
  status: RunStatus;
  /** The stream's connection, said plainly when the page is not following. */
  connection: StreamState;
  /** The page is still following a running run. */
  following: boolean;
  /** The rest of a long log has not arrived yet. */
  restPending: boolean;
}

/**
 * A run's events, folded into its view, following the run live while it runs: the server-rendered
 * events first, then the event stream (docs/api.md), resuming after the newest event seen on every
 * reconnection and folding what arrived every FOLD_EVERY_MS rather than once per event. A stream
 * that ends without run.finished asks the server how the run ended (interrupted) instead of
 * reconnecting for ever.
 */
export function useRunStream({
  runId,
  initialEvents,
  totalEvents,
  storedStatus,
}: {
  runId: string;
  initialEvents: RunEvent[];
  /** Events the run had when the page was rendered; more than `initialEvents` when the rest streams in after paint. */
  totalEvents: number;
  /** The run's status as stored when the page was rendered. */
  storedStatus?: string;
}): RunStream {
  const folderRef = useRef<RunFolder | null>(null);
  const [live, setLive] = useState<LiveState>(() => {
    const folder = createRunFolder();
    folder.push(initialEvents);
    folderRef.current = folder;
    return { events: initialEvents, view: folder.view() };
  });
  const stored = RunStatusSchema.safeParse(storedStatus).data ?? null;
  /**
   * How a run ended that has no run.finished event (interrupted): known from the start when the
   * whole log is here, else read from the server when the stream ends.
   */
  const [endedStatus, setEndedStatus] = useState<RunStatus | null>(() =>
    stored !== "running" && initialEvents.length >= totalEvents ? stored : null,
  );
  const [connection, setConnection] = useState<StreamState>("connecting");
  const { events, view } = live;
  const finished = view.header.status !== "running";
  const following = !finished && endedStatus === null;
  const restPending = events.length < totalEvents;

  useEffect(() => {
    const folder = folderRef.current;
    if (!following || !folder) return;
    const controller = new AbortController();
    const eventsUrl = `/api/v1/runs/${encodeURIComponent(runId)}/events`;
    /** The newest seq received (folded or waiting for the next frame); every connection resumes after it. */
    let lastSeen = folder.lastSeq;
    let sawFinish = false;
    let pending: RunEvent[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Events arrive one SSE frame each (thousands for a long log): fold what came in the last
    // FOLD_EVERY_MS at once, so the page re-renders a few times a second, not once per event.
    const flush = () => {
      clearTimeout(timer);
      timer = undefined;
      const fresh = pending;
      pending = [];
      if (fresh.length === 0 || controller.signal.aborted) return;
      folder.push(fresh);
      setLive((prev) => ({ events: prev.events.concat(fresh), view: folder.view() }));
    };
    const receive = (e: RunEvent) => {
      // A resumed stream starts after lastSeen; this keeps a replayed event from becoming a second row.
      if (e.seq <= lastSeen) return;
      lastSeen = e.seq;
      if (e.type === "run.finished") sawFinish = true;
      pending.push(e);
      timer ??= setTimeout(flush, FOLD_EVERY_MS);
    };
    void followEventStream({
      url: () => `${eventsUrl}?after=${lastSeen}`,
      signal: controller.signal,
      onState: setConnection,
      onFrame: (f) => {
        if (f.data) receive(JSON.parse(f.data) as RunEvent);
      },
      onEnd: async () => {
        // Fold what is pending now: the page stops following once the end is in the view.
        flush();
        if (sawFinish) return false;
        // The stream ends without run.finished when the run stopped some other way (interrupted);
        // anything else (a proxy closing an idle connection) reconnects.
        const body = await getJson<{ status: string; events: RunEvent[] }>(`${eventsUrl}?after=${lastSeen}`);
        for (const e of body.events) receive(e);
        const status = RunStatusSchema.safeParse(body.status);
        if (!status.success || status.data === "running") return true;
        flush();
        setEndedStatus(status.data);
        return false;
      },
    });
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [following, runId]);

  const status: RunStatus = finished
    ? view.header.status
    : (endedStatus ?? (restPending && stored ? stored : view.header.status));
  return { events, view, status, connection, following, restPending };
}
