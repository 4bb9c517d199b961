"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { AnswerPanel } from "@/components/timeline/answer-panel";
import { MessagesView } from "@/components/timeline/messages-view";
import { RowDetail } from "@/components/timeline/row-detail";
import { RunHeader } from "@/components/timeline/run-header";
import { TimelineList } from "@/components/timeline/timeline-list";
import type { RunStatus } from "@/lib/reflect/domain";
import { RunStatus as RunStatusSchema } from "@/lib/reflect/domain";
import type { RunEvent } from "@/lib/reflect/events";
import { flattenTimeline, rowsById as indexRows } from "@/lib/timeline/flatten";
import {
  citationKey,
  createRunFolder,
  type RunFolder,
  type RunView as RunViewData,
  type TimelineCitation,
} from "@/lib/timeline/fold";

const POLL_MS = 500;

interface LiveState {
  events: RunEvent[];
  view: RunViewData;
}

/** The run page body: header, virtualized timeline, answer and messages; follows a running run live. */
export function RunView({
  runId,
  initialEvents,
  complete = true,
  storedStatus,
  replayNotes,
}: {
  runId: string;
  initialEvents: RunEvent[];
  /** False when the server sent only the first events of a long log; the rest loads after paint. */
  complete?: boolean;
  /** The run's status as stored, shown while the rest of a long log is still loading. */
  storedStatus?: string;
  /** Fork: replayed iterations whose tool results differ from the parent's. */
  replayNotes?: { iteration: number; text: string }[];
}) {
  const folderRef = useRef<RunFolder | null>(null);
  const [live, setLive] = useState<LiveState>(() => {
    const folder = createRunFolder();
    folder.push(initialEvents);
    folderRef.current = folder;
    return { events: initialEvents, view: folder.view() };
  });
  /** Status reported by the server; it ends polling for runs that stopped without run.finished. */
  const [serverStatus, setServerStatus] = useState<RunStatus | null>(() =>
    complete ? null : (RunStatusSchema.safeParse(storedStatus).data ?? null),
  );
  /** The rest of a long log still has to be fetched (one request returns everything after lastSeq). */
  const [restPending, setRestPending] = useState(!complete);
  const { events, view } = live;
  const finished = view.header.status !== "running";
  const following = restPending || (!finished && (serverStatus === null || serverStatus === "running"));

  useEffect(() => {
    if (!following) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      const folder = folderRef.current;
      if (!folder) return;
      try {
        const res = await fetch(`/api/runs/${encodeURIComponent(runId)}/events?after=${folder.lastSeq}`, {
          cache: "no-store",
        });
        if (res.ok) {
          const body = (await res.json()) as { events: RunEvent[]; status: string };
          const fresh = body.events.filter((e) => e.seq > folder.lastSeq);
          if (fresh.length > 0 && !stopped) {
            folder.push(fresh);
            setLive((prev) => ({ events: prev.events.concat(fresh), view: folder.view() }));
          }
          const parsed = RunStatusSchema.safeParse(body.status);
          if (parsed.success && !stopped) setServerStatus(parsed.data);
          if (!stopped) setRestPending(false);
        }
      } catch {
        // A dropped poll is retried on the next tick; the log is append-only so nothing is lost.
      }
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    };
    timer = setTimeout(poll, restPending ? 0 : POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [following, restPending, runId]);

  const status: RunStatus = !finished && serverStatus && serverStatus !== "running" ? serverStatus : view.header.status;

  // The page's server-rendered parts (the re-run drawer's models, the fork button) were read while
  // the run was still running: render them again once it has stopped.
  const router = useRouter();
  const renderedRunning = useRef(status === "running");
  useEffect(() => {
    if (status === "running" || !renderedRunning.current) return;
    renderedRunning.current = false;
    router.refresh();
  }, [status, router]);

  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(() => new Set());
  const [focusedKey, setFocusedKey] = useState<string | null>(null);
  const [selectedRowId, setSelectedRowId] = useState<string | null>(null);
  const [selectedCitation, setSelectedCitation] = useState<string | null>(null);
  const [highlightedRowId, setHighlightedRowId] = useState<string | null>(null);
  const [detailRowId, setDetailRowId] = useState<string | null>(null);
  const [tab, setTab] = useState<"answer" | "messages">("answer");

  const items = useMemo(() => flattenTimeline(view, collapsed), [view, collapsed]);
  const rowsById = useMemo(() => indexRows(view), [view]);
  const replayNoteByIteration = useMemo(
    () => new Map((replayNotes ?? []).map((n) => [n.iteration, n.text] as const)),
    [replayNotes],
  );

  const toggleIteration = useCallback((index: number, collapse?: boolean) => {
    setCollapsed((prev) => {
      const isCollapsed = prev.has(index);
      const want = collapse ?? !isCollapsed;
      if (want === isCollapsed) return prev;
      const next = new Set(prev);
      if (want) next.add(index);
      else next.delete(index);
      return next;
    });
  }, []);

  const showRow = useCallback(
    (rowId: string) => {
      const row = rowsById.get(rowId);
      if (!row) return;
      if (row.iteration !== null) toggleIteration(row.iteration, false);
      setHighlightedRowId(rowId);
      setFocusedKey(rowId);
    },
    [rowsById, toggleIteration],
  );

  const selectCitation = useCallback(
    (c: TimelineCitation) => {
      setSelectedCitation(citationKey(c));
      if (c.retrievedByRowId) showRow(c.retrievedByRowId);
      else setHighlightedRowId(null);
    },
    [showRow],
  );

  const exportJson = useCallback(() => {
    const blob = new Blob([JSON.stringify({ run: { ...view.header, id: runId }, events }, null, 2)], {
      type: "application/json",
    });
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = `run-${runId}.json`;
    a.click();
    URL.revokeObjectURL(url);
  }, [view.header, events, runId]);

  const timelineRef = useRef<HTMLDivElement>(null);
  const closeDetail = useCallback(() => {
    setDetailRowId(null);
    timelineRef.current?.querySelector<HTMLElement>('[role="listbox"]')?.focus();
  }, []);

  const detailRow = detailRowId ? rowsById.get(detailRowId) : undefined;

  return (
    <div className="flex flex-col gap-3" data-testid="run-view" data-run-id={runId}>
      <RunHeader header={view.header} status={status} badges={view.badges} onExport={exportJson} />
      <div className="grid grid-cols-1 gap-3 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div className="min-w-0" ref={timelineRef}>
          <div className="mb-1 flex items-center gap-2 text-[11px] text-slate-600">
            <h2 className="font-semibold uppercase tracking-wide">Timeline</h2>
            <span>
              {view.iterations.length} iterations · {view.lastSeq + 1} events
              {restPending ? <span data-testid="loading-rest"> · loading the rest…</span> : null}
            </span>
            {following && !restPending && <span className="text-sky-800">● live</span>}
            <span className="ml-auto">
              <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>←</kbd>/<kbd>→</kbd> collapse · <kbd>Enter</kbd> detail
            </span>
          </div>
          <TimelineList
            items={items}
            focusedKey={focusedKey}
            onFocusKey={setFocusedKey}
            onToggleIteration={toggleIteration}
            onOpenDetail={setDetailRowId}
            selectedRowId={selectedRowId}
            highlightedRowId={highlightedRowId}
            onSelectRow={setSelectedRowId}
            replayNotes={replayNoteByIteration}
            bankId={view.header.bankId}
          />
        </div>
        <div className="min-w-0">
          <div role="tablist" aria-label="Run output" className="mb-2 flex gap-1 border-b border-slate-200">
            {(["answer", "messages"] as const).map((t) => (
              <button
                key={t}
                type="button"
                role="tab"
                aria-selected={tab === t}
                onClick={() => setTab(t)}
                className={`-mb-px border-b-2 px-3 py-1 text-[12px] ${
                  tab === t ? "border-indigo-600 font-semibold text-slate-900" : "border-transparent text-slate-600"
                }`}
              >
                {t === "answer" ? "Answer" : "Messages"}
              </button>
            ))}
          </div>
          <div role="tabpanel" className="max-h-[calc(100vh-260px)] overflow-auto">
            {tab === "answer" ? (
              <AnswerPanel
                answer={view.answer}
                citations={view.citations}
                selectedKey={selectedCitation}
                selectedRowId={selectedRowId}
                rowsById={rowsById}
                onSelect={selectCitation}
                onShowRow={showRow}
              />
            ) : (
              <MessagesView events={events} />
            )}
          </div>
        </div>
      </div>
      {detailRow && <RowDetail key={detailRow.id} row={detailRow} events={events} onClose={closeDetail} />}
    </div>
  );
}
