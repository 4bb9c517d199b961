"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import {
  type Key,
  type KeyboardEvent,
  type ReactNode,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import type { TimelineItem } from "@/lib/timeline/flatten";
import type { TimelineRow } from "@/lib/timeline/fold";
import type { IterationTiming } from "@/lib/timeline/timing";
import { CitationsRow } from "./citations-row";
import { FreshnessRow } from "./freshness-row";
import { GuardRow } from "./guard-row";
import { IterationHeader } from "./iteration-header";
import { ReasoningBlock } from "./reasoning-block";
import { SteeringRow } from "./steering-row";
import { TierRow } from "./tier-row";
import { tierRule } from "./tones";

const KIND_RULE: Record<Exclude<TimelineRow["kind"], "tier">, string> = {
  freshness: "border-l-emerald-500",
  steering: "border-l-orange-500",
  guard: "border-l-rose-500",
  citations: "border-l-indigo-500",
  reasoning: "border-l-violet-400",
};

function rowRule(row: TimelineRow): string {
  if (row.kind === "tier") return row.tier ? tierRule(row.tier) : "border-l-slate-500";
  return KIND_RULE[row.kind];
}

function RowBody({ row, selected, bankId }: { row: TimelineRow; selected: boolean; bankId: string | null }) {
  switch (row.kind) {
    case "tier":
      return <TierRow row={row} selected={selected} />;
    case "freshness":
      return <FreshnessRow row={row} bankId={bankId} />;
    case "steering":
      return <SteeringRow row={row} />;
    case "guard":
      return <GuardRow row={row} />;
    case "citations":
      return <CitationsRow row={row} />;
    case "reasoning":
      return <ReasoningBlock row={row} />;
    default: {
      // A new row kind must get its component here: this stops compiling until it does.
      const unhandled: never = row;
      throw new Error(`no component for row ${JSON.stringify(unhandled)}`);
    }
  }
}

/**
 * Items rendered in the page's HTML, before the script that virtualizes the list has run: more
 * than a tall screen holds, so the first rows show as soon as the HTML arrives.
 */
const SERVER_ROWS = 40;

export interface TimelineListProps {
  items: TimelineItem[];
  focusedKey: string | null;
  onFocusKey: (key: string) => void;
  /** `collapse` true/false sets the state; undefined toggles. */
  onToggleIteration: (index: number, collapse?: boolean) => void;
  onOpenDetail: (rowId: string) => void;
  selectedRowId: string | null;
  /** The row that retrieved the selected citation. */
  highlightedRowId: string | null;
  onSelectRow: (rowId: string) => void;
  /** Fork: replayed iterations whose tool results differ from the parent's, with what differed. */
  replayNotes?: ReadonlyMap<number, string>;
  /** The run's bank, for links to the mental-model versions a step read. */
  bankId?: string | null;
  /** The run has stopped (any status but running). */
  runEnded: boolean;
  /** Each iteration's time on the run's span (the waterfall). */
  timing?: ReadonlyMap<number, IterationTiming>;
  /** What an empty list says (a filter that matches nothing is not a run without rows). */
  emptyText?: string;
}

/**
 * The virtualized timeline. Focus stays on the list container (aria-activedescendant), so a
 * focused row that scrolls out of the rendered window never loses keyboard focus.
 */
export function TimelineList({
  items,
  focusedKey,
  onFocusKey,
  onToggleIteration,
  onOpenDetail,
  selectedRowId,
  highlightedRowId,
  onSelectRow,
  emptyText,
  replayNotes,
  bankId = null,
  runEnded,
  timing,
}: TimelineListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // Rows of iterations replayed from a parent run are dimmed: the model was not asked for them.
  const replayedIterations = useMemo(
    () => new Set(items.flatMap((i) => (i.type === "iteration" && i.iteration.replayed ? [i.iteration.index] : []))),
    [items],
  );
  const [hasFocus, setHasFocus] = useState(false);
  const indexByKey = useMemo(() => new Map(items.map((it, i) => [it.key, i])), [items]);
  const focusedIndex = focusedKey === null ? -1 : (indexByKey.get(focusedKey) ?? -1);

  // The server and the hydrating client render the first rows in flow (the virtualizer needs the
  // list's size, which only the browser knows); the virtualized list takes over before the first
  // paint after hydration.
  const [virtualized, setVirtualized] = useState(false);
  useLayoutEffect(() => setVirtualized(true), []);

  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (items[i]?.type === "row" ? 60 : 30),
    getItemKey: (i) => items[i]?.key ?? i,
    overscan: 12,
  });

  // The first focus (a `?step=` deep link) is centred: at the list's bottom edge it can sit below
  // the window. Later moves (j/k) scroll only as far as they must.
  const focusedBefore = useRef(false);
  useEffect(() => {
    if (focusedIndex < 0) return;
    virtualizer.scrollToIndex(focusedIndex, { align: focusedBefore.current ? "auto" : "center" });
    focusedBefore.current = true;
  }, [focusedIndex, virtualizer]);

  const move = (delta: number) => {
    if (items.length === 0) return;
    const next = Math.min(items.length - 1, Math.max(0, (focusedIndex < 0 ? -1 : focusedIndex) + delta));
    const item = items[next];
    if (item) onFocusKey(item.key);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    // Keys typed on a control inside a row (a memory chip, a link) are that control's.
    if (e.target !== e.currentTarget) return;
    const item = focusedIndex >= 0 ? items[focusedIndex] : undefined;
    switch (e.key) {
      case "j":
      case "ArrowDown":
        move(1);
        break;
      case "k":
      case "ArrowUp":
        move(-1);
        break;
      case "Home":
        move(-items.length);
        break;
      case "End":
        move(items.length);
        break;
      case "ArrowLeft":
        if (item?.type === "iteration") onToggleIteration(item.iteration.index, true);
        else if (item?.type === "row" && item.row.iteration !== null) {
          onToggleIteration(item.row.iteration, true);
          onFocusKey(`it${item.row.iteration}`);
        }
        break;
      case "ArrowRight":
        if (item?.type === "iteration") onToggleIteration(item.iteration.index, false);
        break;
      case "Enter":
        if (item?.type === "iteration") onToggleIteration(item.iteration.index);
        else if (item?.type === "row") {
          onSelectRow(item.row.id);
          onOpenDetail(item.row.id);
        }
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  const activeId = focusedIndex >= 0 && items[focusedIndex] ? `tl-${items[focusedIndex].key}` : undefined;

  /** One row of the list: at `position` when virtualized, in flow before that. */
  const renderRow = (item: TimelineItem, index: number, key: Key, position?: { start: number }): ReactNode => {
    const focused = index === focusedIndex;
    const focusRing = focused && hasFocus ? "outline-2 -outline-offset-2 outline-indigo-600" : "";
    return (
      // biome-ignore lint/a11y/useSemanticElements: virtualized rows are positioned divs; a <tr> cannot be.
      <div
        key={key}
        ref={position ? virtualizer.measureElement : undefined}
        data-index={index}
        id={`tl-${item.key}`}
        role="row"
        aria-rowindex={index + 1}
        aria-level={item.type === "row" && item.row.iteration !== null ? 2 : 1}
        aria-expanded={item.type === "iteration" ? !item.collapsed : undefined}
        aria-selected={focused}
        tabIndex={-1}
        className={`${position ? "absolute left-0 top-0" : ""} w-full ${focusRing}`}
        style={position ? { transform: `translateY(${position.start}px)` } : undefined}
      >
        {/* biome-ignore lint/a11y/useSemanticElements: the one cell of a virtualized row (see above). */}
        <div role="gridcell" tabIndex={-1}>
          {item.type === "section" ? (
            <div className="border-b border-slate-200 bg-slate-50 px-2 py-1 text-2xs font-semibold uppercase tracking-wide text-slate-600">
              {item.label}
            </div>
          ) : item.type === "iteration" ? (
            <IterationHeader
              iteration={item.iteration}
              collapsed={item.collapsed}
              onToggle={() => onToggleIteration(item.iteration.index)}
              replayNote={replayNotes?.get(item.iteration.index)}
              runEnded={runEnded}
              timing={timing?.get(item.iteration.index)}
            />
          ) : (
            <div
              data-testid="timeline-row"
              data-kind={item.row.kind}
              data-replayed={(item.row.iteration !== null && replayedIterations.has(item.row.iteration)) || undefined}
              data-row-id={item.row.id}
              data-selected={item.row.id === selectedRowId || undefined}
              data-highlighted={item.row.id === highlightedRowId || undefined}
              className={`border-b border-l-4 border-b-slate-100 py-1 pr-2 pl-3 ${rowRule(item.row)} ${
                item.row.iteration !== null && replayedIterations.has(item.row.iteration) ? "border-dashed" : ""
              } ${
                item.row.id === highlightedRowId
                  ? "bg-yellow-50"
                  : item.row.id === selectedRowId
                    ? "bg-indigo-50/60"
                    : "hover:bg-slate-50"
              }`}
            >
              <RowBody row={item.row} selected={item.row.id === selectedRowId} bankId={bankId} />
            </div>
          )}
        </div>
      </div>
    );
  };

  return (
    <div
      ref={scrollRef}
      // A tree grid, not a listbox: its rows may hold links and buttons (an option may not), and an
      // iteration row says whether it is expanded.
      role="treegrid"
      aria-label="Run timeline (j/k or arrows to move, left/right to collapse or expand, Enter or click for detail)"
      aria-activedescendant={activeId}
      aria-rowcount={items.length}
      tabIndex={0}
      onKeyDown={onKeyDown}
      onFocus={() => {
        setHasFocus(true);
        if (focusedIndex < 0) move(1);
      }}
      onBlur={() => setHasFocus(false)}
      onClick={(e) => {
        // One delegated handler: rows are virtualized and keyboard input lives on this container.
        const el = (e.target as HTMLElement).closest<HTMLElement>("[data-index]");
        const item = el ? items[Number(el.dataset.index)] : undefined;
        if (!item) return;
        // A link or button inside a row does its own thing (a version link, a memory chip).
        const control = (e.target as HTMLElement).closest("a, button");
        // Else keep DOM focus on the list, which owns the keyboard handling.
        if (!control) scrollRef.current?.focus({ preventScroll: true });
        onFocusKey(item.key);
        if (item.type === "row") {
          onSelectRow(item.row.id);
          if (!control) onOpenDetail(item.row.id);
        } else if (item.type === "iteration") onToggleIteration(item.iteration.index);
      }}
      className="relative h-[calc(100vh-260px)] min-h-[420px] overflow-auto rounded border border-slate-200 bg-white"
      data-testid="timeline"
      // Set once the list is virtualized and its keys and clicks are handled (after hydration).
      data-ready={virtualized || undefined}
    >
      {items.length === 0 ? (
        <p className="p-4 text-xs text-slate-600" data-testid="timeline-empty">
          {emptyText ?? "No timeline rows: the run made no model call and no retrieval."}
        </p>
      ) : virtualized ? (
        <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
          {virtualizer.getVirtualItems().map((v) => {
            const item = items[v.index];
            return item ? renderRow(item, v.index, v.key, v) : null;
          })}
        </div>
      ) : (
        <div>{items.slice(0, SERVER_ROWS).map((item, i) => renderRow(item, i, item.key))}</div>
      )}
    </div>
  );
}
