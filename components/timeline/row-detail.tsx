"use client";

import { Drawer, DrawerClose, DrawerContent, DrawerTitle } from "@/components/ui/drawer";
import { ScrollRegion } from "@/components/ui/scroll-region";
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
  const sources = row.seqs.map((seq) => findEvent(events, seq)).filter((e) => e !== undefined);
  return (
    // Non-modal: the timeline stays usable beside it. Escape closes it; the caller puts focus back.
    <Drawer open modal={false} onOpenChange={(open) => !open && onClose()}>
      <DrawerContent
        modal={false}
        width="max-w-[560px]"
        data-testid="row-detail"
        onInteractOutside={(e) => e.preventDefault()}
        onCloseAutoFocus={(e) => e.preventDefault()}
      >
        <header className="flex items-center gap-2 border-b border-slate-200 px-3 py-2">
          <DrawerTitle className="text-[13px] font-semibold">
            {row.kind} row <span className="font-mono text-slate-500">{row.id}</span>
            {row.iteration !== null ? ` · iteration ${row.iteration}` : " · run-level"}
          </DrawerTitle>
          <DrawerClose className="ml-auto rounded border border-slate-300 px-2 py-0.5 text-[12px]">
            Close (Esc)
          </DrawerClose>
        </header>
        <ScrollRegion className="flex-1 overflow-auto p-3" label="Events behind this row">
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
        </ScrollRegion>
      </DrawerContent>
    </Drawer>
  );
}
