"use client";

import { useEffect, useRef } from "react";
import type { RunEvent } from "@/lib/reflect/events";
import { findEvent } from "@/lib/timeline/event-lookup";
import type { TimelineRow } from "@/lib/timeline/fold";

/** Tool results carry their content as a JSON string; indent it when it parses (a capped one may not). */
function prettyContent(content: string): string {
  try {
    return JSON.stringify(JSON.parse(content), null, 2);
  } catch {
    return content;
  }
}

/** The full payloads behind one timeline row, looked up only when opened. */
export function RowDetail({
  row,
  events,
  onClose,
}: {
  row: TimelineRow;
  events: readonly RunEvent[];
  onClose: () => void;
}) {
  const closeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => closeRef.current?.focus(), []);
  const sources = row.seqs.map((seq) => findEvent(events, seq)).filter((e) => e !== undefined);
  return (
    <aside
      role="dialog"
      aria-modal="false"
      aria-label={`Detail of ${row.kind} row ${row.id}`}
      data-testid="row-detail"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.stopPropagation();
          onClose();
        }
      }}
      className="fixed inset-y-0 right-0 z-20 flex w-[min(560px,100vw)] flex-col border-l border-slate-300 bg-white shadow-xl"
    >
      <header className="flex items-center gap-2 border-b border-slate-200 px-3 py-2">
        <h2 className="text-[13px] font-semibold">
          {row.kind} row <span className="font-mono text-slate-500">{row.id}</span>
          {row.iteration !== null ? ` · iteration ${row.iteration}` : " · run-level"}
        </h2>
        <button
          ref={closeRef}
          type="button"
          onClick={onClose}
          className="ml-auto rounded border border-slate-300 px-2 py-0.5 text-[12px]"
        >
          Close (Esc)
        </button>
      </header>
      <div className="flex-1 overflow-auto p-3">
        {sources.map((ev) => (
          <section key={ev.seq} className="mb-3">
            <h3 className="mb-1 font-mono text-[11px] text-slate-600">
              seq {ev.seq} · {ev.type} · at {ev.at} ms
            </h3>
            <pre className="whitespace-pre-wrap break-words rounded bg-slate-900 p-2 font-mono text-[11px] text-slate-100">
              {JSON.stringify(ev.payload, null, 2)}
            </pre>
            {ev.type === "tool.result" && (
              <>
                <h3 className="mt-2 mb-1 font-mono text-[11px] text-slate-600">content sent to the model</h3>
                <pre className="whitespace-pre-wrap break-words rounded bg-slate-100 p-2 font-mono text-[11px] text-slate-900">
                  {prettyContent(ev.payload.content)}
                </pre>
              </>
            )}
          </section>
        ))}
      </div>
    </aside>
  );
}
