"use client";

import { useEffect, useReducer, useState } from "react";
import { followEventStream, type StreamState } from "@/lib/client/event-stream";
import { getJson } from "@/lib/client/unwrap";
import type { RunListItem, RunListPage } from "@/lib/contracts/runs";
import { RunTable } from "./run-table";

type ListAction =
  /** `insert`: where a run not listed yet may go; an older page only updates the runs it lists. */
  | { type: "upsert"; run: RunListItem; insert: "anywhere" | "above-last" | "nowhere" }
  | { type: "remove"; id: string }
  | { type: "replace"; runs: RunListItem[] };

/** Newest first, as the server lists them. */
const newerFirst = (a: RunListItem, b: RunListItem) =>
  a.createdAt === b.createdAt ? b.id.localeCompare(a.id) : b.createdAt.localeCompare(a.createdAt);

function listReducer(runs: RunListItem[], action: ListAction): RunListItem[] {
  switch (action.type) {
    case "upsert": {
      const at = runs.findIndex((r) => r.id === action.run.id);
      if (at >= 0) return runs.map((r, i) => (i === at ? action.run : r));
      if (action.insert === "nowhere") return runs;
      const last = runs[runs.length - 1];
      // With older pages after this one, a run that sorts past the last row belongs to them.
      if (action.insert === "above-last" && last && newerFirst(action.run, last) > 0) return runs;
      return [...runs, action.run].sort(newerFirst);
    }
    case "remove":
      return runs.some((r) => r.id === action.id) ? runs.filter((r) => r.id !== action.id) : runs;
    case "replace":
      return action.runs;
    default: {
      const unknown: never = action;
      return unknown;
    }
  }
}

/**
 * The runs table, kept live: runs started anywhere (another tab, the CLI, the API) appear and
 * listed runs update as they finish, under the list's filters. Follows the runs stream of the API.
 */
export function LiveRunTable({
  initialRuns,
  since,
  filters,
  pageCursor,
  hasOlder,
}: {
  initialRuns: RunListItem[];
  /** When the server read `initialRuns` (ms): the stream replays what changed after it. */
  since: number;
  /** The list's filters (bank, skill, status, badge, q), as in the page URL. */
  filters: Record<string, string>;
  /** Set when this is an older page: new runs are not added to it, listed ones still update. */
  pageCursor?: string;
  hasOlder: boolean;
}) {
  const [runs, dispatch] = useReducer(listReducer, initialRuns);
  const [connection, setConnection] = useState<StreamState>("connecting");
  const [reloadFailed, setReloadFailed] = useState(false);
  const filterQuery = new URLSearchParams(Object.entries(filters).filter(([, v]) => v)).toString();

  useEffect(() => {
    const controller = new AbortController();
    let cursor = String(since);
    const insert = pageCursor ? "nowhere" : hasOlder ? "above-last" : "anywhere";
    const listQuery = new URLSearchParams(filterQuery);
    if (pageCursor) listQuery.set("cursor", pageCursor);
    void followEventStream({
      url: () => `/api/v1/runs/stream?${filterQuery}${filterQuery ? "&" : ""}since=${cursor}`,
      signal: controller.signal,
      onState: setConnection,
      onFrame: (frame) => {
        if (frame.id) cursor = frame.id;
        if (!frame.data) return;
        if (frame.event === "run") dispatch({ type: "upsert", run: JSON.parse(frame.data) as RunListItem, insert });
        else if (frame.event === "remove")
          dispatch({ type: "remove", id: (JSON.parse(frame.data) as { id: string }).id });
        else if (frame.event === "reset") {
          getJson<RunListPage>(`/api/v1/runs?${listQuery}`).then(
            (page) => {
              dispatch({ type: "replace", runs: page.runs });
              setReloadFailed(false);
            },
            () => setReloadFailed(true),
          );
        }
      },
      // The list stream has no end of its own: if it ends, a proxy closed it.
      onEnd: () => true,
    });
    return () => controller.abort();
  }, [since, filterQuery, pageCursor, hasOlder]);

  return (
    <div data-testid="live-run-table" data-stream={connection}>
      <p className="mb-1 text-2xs" role="status">
        {reloadFailed ? (
          <span className="text-red-700">some changes could not be loaded: reload the page</span>
        ) : connection === "live" ? (
          <span className="text-sky-800">
            {pageCursor
              ? "● live: status changes of these runs appear here; new runs appear on the newest page"
              : "● live: new runs and status changes appear here"}
          </span>
        ) : connection === "reconnecting" ? (
          <span className="text-amber-800">connection lost · reconnecting…</span>
        ) : connection === "refused" ? (
          <span className="text-red-700">not live: the server refused the stream; new runs will not appear</span>
        ) : (
          <span className="text-slate-500">connecting…</span>
        )}
      </p>
      <RunTable runs={runs} />
    </div>
  );
}
