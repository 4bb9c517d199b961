"use client";

import { buttonClass } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Drawer, DrawerClose, DrawerContent, DrawerTitle } from "@/components/ui/drawer";
import { JsonView } from "@/components/ui/json-view";
import { ScrollRegion } from "@/components/ui/scroll-region";
import type { RunEvent } from "@/lib/reflect/events";
import { findEvent } from "@/lib/timeline/event-lookup";
import type { TimelineRow } from "@/lib/timeline/fold";

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
          <CopyButton text={row.id} label="Copy the row id" />
          <DrawerClose className={buttonClass("secondary", "sm", "ml-auto px-2 py-0.5")}>Close (Esc)</DrawerClose>
        </header>
        <ScrollRegion className="flex-1 overflow-auto p-3" label="Events behind this row">
          {sources.map((ev) => (
            <section key={ev.seq} className="mb-3" data-testid="row-detail-event" data-type={ev.type}>
              <h3 className="mb-1 flex items-center gap-2 font-mono text-2xs text-slate-600">
                <span className="flex-1">
                  seq {ev.seq} · {ev.type} · at {ev.at} ms
                </span>
                <CopyButton
                  text={() => JSON.stringify(ev.payload, null, 2)}
                  label={`Copy the JSON of event ${ev.seq}`}
                  data-testid="copy-json"
                />
              </h3>
              {ev.type === "tool.result" ? (
                <>
                  <JsonView value={{ ...ev.payload, content: undefined }} label={`Event ${ev.seq}`} />
                  <h4 className="mt-2 mb-1 flex items-center gap-2 font-mono text-2xs text-slate-600">
                    <span className="flex-1">content sent to the model</span>
                    <CopyButton text={ev.payload.content} label="Copy the content sent to the model" />
                  </h4>
                  <JsonView value={ev.payload.content} label="Content sent to the model" />
                </>
              ) : (
                <JsonView value={ev.payload} label={`Event ${ev.seq}`} />
              )}
            </section>
          ))}
        </ScrollRegion>
      </DrawerContent>
    </Drawer>
  );
}
