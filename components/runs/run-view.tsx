"use client";

import dynamic from "next/dynamic";
import { useRouter } from "next/navigation";
import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from "react";
import { AnswerPanel } from "@/components/timeline/answer-panel";
import { ProbeSection } from "@/components/timeline/probe-section";
import { RunEventsContext } from "@/components/timeline/run-events-context";
import { RunHeader } from "@/components/timeline/run-header";
import { RunTiming } from "@/components/timeline/run-timing";
import { TimelineFilterBar } from "@/components/timeline/timeline-filter-bar";
import { TimelineList } from "@/components/timeline/timeline-list";
import { Tab, TabList, TabPanel, Tabs } from "@/components/ui/tabs";
import type { StreamState } from "@/lib/client/event-stream";
import type { RunEvent } from "@/lib/reflect/events";
import { countRows, filterTimeline, isFiltering, NO_FILTER, type TimelineFilter } from "@/lib/timeline/filter";
import { flattenTimeline, rowsById as indexRows } from "@/lib/timeline/flatten";
import { citationKey, type TimelineCitation } from "@/lib/timeline/fold";
import { plural } from "@/lib/timeline/format";
import { runTiming } from "@/lib/timeline/timing";
import { useRunStream } from "./use-run-stream";

// Shown only on request (a row's detail, the Messages tab): their code loads after the page is
// ready, not before its first paint.
const loadRowDetail = () => import("@/components/timeline/row-detail").then((m) => m.RowDetail);
const loadMessagesView = () => import("@/components/timeline/messages-view").then((m) => m.MessagesView);
const RowDetail = dynamic(loadRowDetail, { ssr: false });
const MessagesView = dynamic(loadMessagesView, { ssr: false });

const NOTHING_COLLAPSED: ReadonlySet<number> = new Set();

/** The row that starts last at or before event `seq`. */
function nearestRowBefore<R extends { seqs: number[] }>(rows: readonly R[], seq: number): R | undefined {
  let best: R | undefined;
  for (const r of rows) {
    const first = r.seqs[0];
    if (first !== undefined && first <= seq && (best === undefined || first > (best.seqs[0] ?? -1))) best = r;
  }
  return best;
}

/** The step a link names (`?step=<seq>`), read once when the page opens. */
function stepFromUrl(): number | null {
  if (typeof window === "undefined") return null;
  const step = new URLSearchParams(window.location.search).get("step");
  return step !== null && /^\d+$/.test(step) ? Number(step) : null;
}

const LIVE_LABEL: Record<StreamState, { text: string; className: string }> = {
  connecting: { text: "connecting…", className: "text-slate-500" },
  live: { text: "● live", className: "text-sky-800" },
  reconnecting: { text: "connection lost · reconnecting…", className: "text-amber-800" },
  ended: { text: "", className: "" },
  refused: { text: "not following: the server refused the stream", className: "text-red-700" },
};

/** Whether the page is still following the run, said plainly when it is not. */
function LiveState({ state }: { state: StreamState }) {
  const { text, className } = LIVE_LABEL[state];
  if (!text) return null;
  return (
    <span className={className} data-testid="live-state" data-state={state} role="status">
      {text}
    </span>
  );
}

/** The run page body: header, virtualized timeline, answer and messages; follows a running run live. */
export function RunView({
  runId,
  initialEvents,
  totalEvents = initialEvents.length,
  storedStatus,
  replayNotes,
}: {
  runId: string;
  initialEvents: RunEvent[];
  /** Events the run had when the page was rendered; more than `initialEvents` when the rest streams in after paint. */
  totalEvents?: number;
  /** The run's status as stored when the page was rendered. */
  storedStatus?: string;
  /** Fork: replayed iterations whose tool results differ from the parent's. */
  replayNotes?: { iteration: number; text: string }[];
}) {
  const { events, view, status, connection, following, restPending } = useRunStream({
    runId,
    initialEvents,
    totalEvents,
    storedStatus,
  });

  // The page's server-rendered parts (the re-run drawer's models, the fork button) were read while
  // the run was still running: render them again once it has stopped.
  const router = useRouter();
  const renderedRunning = useRef(status === "running");
  useEffect(() => {
    if (status === "running" || !renderedRunning.current) return;
    renderedRunning.current = false;
    router.refresh();
  }, [status, router]);

  // Fetch the on-request parts once the page is idle, so a first Enter or click opens at once.
  useEffect(() => {
    const preload = () => void Promise.all([loadRowDetail(), loadMessagesView()]).catch(() => undefined);
    if (typeof window.requestIdleCallback !== "function") return void setTimeout(preload, 200);
    const id = window.requestIdleCallback(preload, { timeout: 2000 });
    return () => window.cancelIdleCallback(id);
  }, []);

  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(() => new Set());
  const [focusedKey, setFocusedKey] = useState<string | null>(null);
  const [selectedRowId, setSelectedRowId] = useState<string | null>(null);
  const [selectedCitation, setSelectedCitation] = useState<string | null>(null);
  const [highlightedRowId, setHighlightedRowId] = useState<string | null>(null);
  const [detailRowId, setDetailRowId] = useState<string | null>(null);
  const [tab, setTab] = useState<"answer" | "messages">("answer");

  const [filter, setFilter] = useState<TimelineFilter>(NO_FILTER);
  // Typing stays responsive on a long run: the list catches up with the filter a frame later.
  const deferredFilter = useDeferredValue(filter);
  const items = useMemo(
    () =>
      isFiltering(deferredFilter)
        ? // Matches show even in an iteration the user collapsed.
          filterTimeline(flattenTimeline(view, NOTHING_COLLAPSED), deferredFilter)
        : flattenTimeline(view, collapsed),
    [view, collapsed, deferredFilter],
  );
  const rowsById = useMemo(() => indexRows(view), [view]);
  const timing = useMemo(() => runTiming(view), [view]);
  const runEvents = useMemo(() => ({ events, bankId: view.header.bankId }), [events, view.header.bankId]);
  const shownRows = useMemo(() => countRows(items), [items]);
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

  // The URL follows the selected or focused step (a click, Enter, j/k), so a link opens the run at that row.
  const stepToUrl = useCallback(
    (rowId: string) => {
      const seq = rowsById.get(rowId)?.seqs[0];
      if (seq === undefined) return;
      const url = new URL(window.location.href);
      url.searchParams.set("step", String(seq));
      window.history.replaceState(window.history.state, "", url);
    },
    [rowsById],
  );
  const selectRow = useCallback(
    (rowId: string) => {
      setSelectedRowId(rowId);
      stepToUrl(rowId);
    },
    [stepToUrl],
  );
  const focusKey = useCallback(
    (key: string) => {
      setFocusedKey(key);
      stepToUrl(key);
    },
    [stepToUrl],
  );
  // A `?step=` this run does not have is said, never ignored silently.
  const [missingStep, setMissingStep] = useState<number | null>(null);
  const linkedStep = useRef(stepFromUrl());
  useEffect(() => {
    const seq = linkedStep.current;
    if (seq === null) return;
    // The row that holds this event; a long log may still be loading it. An event no row shows
    // (a model request, say) opens at the nearest row before it, once the log has reached it.
    const rows = [...rowsById.values()];
    const row =
      rowsById.get(`e${seq}`) ??
      rows.find((r) => r.seqs.includes(seq)) ??
      (events.some((e) => e.seq >= seq) ? nearestRowBefore(rows, seq) : undefined);
    if (!row) {
      // The whole log of a finished run is here and no event reaches the step: it is not in this run.
      if (!restPending && status !== "running" && !events.some((e) => e.seq >= seq)) {
        linkedStep.current = null;
        setMissingStep(seq);
      }
      return;
    }
    linkedStep.current = null;
    setSelectedRowId(row.id);
    showRow(row.id);
  }, [rowsById, showRow, events, restPending, status]);

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
    timelineRef.current?.querySelector<HTMLElement>('[role="treegrid"]')?.focus();
  }, []);

  const detailRow = detailRowId ? rowsById.get(detailRowId) : undefined;

  return (
    <div className="flex flex-col gap-3" data-testid="run-view" data-run-id={runId}>
      <RunHeader
        header={view.header}
        status={status}
        badges={view.badges}
        onExport={exportJson}
        replayDrift={replayNotes ?? []}
      />
      <RunTiming timing={timing} />
      <div className="grid grid-cols-1 gap-3 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div className="min-w-0" ref={timelineRef}>
          <div className="mb-1 flex items-center gap-2 text-2xs text-slate-600">
            <h2 className="font-semibold uppercase tracking-wide">Timeline</h2>
            <span data-testid="timeline-counts">
              {view.iterations.length === 0 && view.header.mode === "facts"
                ? "no model iterations — facts mode"
                : plural(view.iterations.length, "iteration")}{" "}
              · {plural(events.length, "event")}
              {restPending ? <span data-testid="loading-rest"> · loading the rest…</span> : null}
            </span>
            {following && <LiveState state={connection} />}
            <span className="ml-auto">
              <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>←</kbd>/<kbd>→</kbd> collapse · <kbd>Enter</kbd> detail
            </span>
          </div>
          {missingStep !== null ? (
            <p
              className="mb-1 rounded border border-amber-300 bg-amber-50 px-2 py-1 text-xs text-amber-900"
              role="status"
              data-testid="step-not-found"
            >
              The link's step {missingStep} is not in this run (its events are numbered 0–
              {events[events.length - 1]?.seq ?? 0}); showing the run from the start.
            </p>
          ) : null}
          <TimelineFilterBar filter={filter} onChange={setFilter} shownRows={shownRows} totalRows={rowsById.size} />
          <RunEventsContext.Provider value={runEvents}>
            <TimelineList
              items={items}
              focusedKey={focusedKey}
              onFocusKey={focusKey}
              emptyText={
                rowsById.size > 0
                  ? `No row matches this filter (${plural(rowsById.size, "row")} hidden). Clear the filter to see them.`
                  : undefined
              }
              onToggleIteration={toggleIteration}
              onOpenDetail={setDetailRowId}
              selectedRowId={selectedRowId}
              highlightedRowId={highlightedRowId}
              onSelectRow={selectRow}
              replayNotes={replayNoteByIteration}
              bankId={view.header.bankId}
              runEnded={status !== "running"}
              timing={timing.iterations}
            />
          </RunEventsContext.Provider>
        </div>
        <div className="min-w-0">
          <Tabs value={tab} onValueChange={(v) => setTab(v as "answer" | "messages")}>
            <TabList aria-label="Run output" className="mb-2 border-b border-slate-200 text-xs">
              <Tab value="answer" data-testid="run-tab-answer">
                Answer
              </Tab>
              <Tab value="messages" data-testid="run-tab-messages">
                Messages
              </Tab>
            </TabList>
            <TabPanel value="answer" className="max-h-[calc(100vh-260px)] overflow-auto">
              <AnswerPanel
                answer={view.answer}
                status={status}
                citations={view.citations}
                selectedKey={selectedCitation}
                selectedRowId={selectedRowId}
                rowsById={rowsById}
                onSelect={selectCitation}
                onShowRow={showRow}
              />
              {view.probe && <ProbeSection probe={view.probe} bankId={view.header.bankId} />}
            </TabPanel>
            <TabPanel value="messages" className="max-h-[calc(100vh-260px)] overflow-auto">
              <MessagesView events={events} />
            </TabPanel>
          </Tabs>
        </div>
      </div>
      {detailRow && <RowDetail key={detailRow.id} row={detailRow} events={events} onClose={closeDetail} />}
    </div>
  );
}
