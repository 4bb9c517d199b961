"use client";

import { memo, useMemo, useState } from "react";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { JsonView, unwrapJson } from "@/components/ui/json-view";
import { ScrollRegion } from "@/components/ui/scroll-region";
import type { RunEvent } from "@/lib/reflect/events";
import { formatCount, formatMs, words } from "@/lib/timeline/format";
import { type CallMessage, type ModelCall, modelCalls } from "@/lib/timeline/messages";
import { Badge } from "./badge";

const PAGE = 50;

function MessageBlock({ m }: { m: CallMessage }) {
  return (
    <li
      className={`rounded border px-2 py-1 ${m.injection ? "border-amber-300 bg-amber-50" : "border-slate-200 bg-white"}`}
      data-testid="call-message"
      data-role={m.role}
      data-injection={m.injection ?? undefined}
    >
      <div className="flex items-center gap-2 text-2xs">
        <span className="font-semibold uppercase tracking-wide text-slate-700">{m.role}</span>
        <span className="text-slate-500">#{m.index}</span>
        {m.injection && (
          <Badge tone="warning" title="Sent with this request only; never persisted in the conversation">
            request-scoped · {words(m.injection)}
          </Badge>
        )}
        {m.toolCallId && <span className="font-mono text-slate-500">for {m.toolCallId}</span>}
        <CopyButton
          className="ml-auto"
          text={() => JSON.stringify({ role: m.role, content: m.content, toolCalls: m.toolCalls }, null, 2)}
          label={`Copy message ${m.index}`}
          data-testid="copy-message"
        />
      </div>
      {m.content !== null &&
        m.content !== "" &&
        (unwrapJson(m.content) !== m.content ? (
          <div className="mt-1">
            <JsonView value={m.content} openDepth={1} label={`Message ${m.index} content`} />
          </div>
        ) : (
          <ScrollRegion
            label={`Message ${m.index}`}
            className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap break-words font-mono text-2xs text-slate-800"
          >
            {m.content}
          </ScrollRegion>
        ))}
      {m.toolCalls.map((c) => (
        <div key={c.id} className="mt-1 font-mono text-2xs text-indigo-900">
          → {c.name} <span className="text-slate-500">{c.id}</span>
          <JsonView value={c.arguments} openDepth={1} label={`Arguments of ${c.name}`} />
        </div>
      ))}
    </li>
  );
}

function CallItem({ call }: { call: ModelCall }) {
  const [open, setOpen] = useState(false);
  const choice =
    call.toolChoice === null ? "—" : call.toolChoice.type === "forced" ? `forced: ${call.toolChoice.tool}` : "auto";
  const r = call.response;
  return (
    <li className="rounded border border-slate-200 bg-white" data-testid="model-call">
      <Button
        variant="bare"
        type="button"
        onClick={() => setOpen((o) => !o)}
        aria-expanded={open}
        className="flex w-full items-center gap-2 px-2 py-1 text-left text-xs hover:bg-slate-50"
      >
        <span className="w-3 text-slate-500">{open ? "▾" : "▸"}</span>
        <span className="font-semibold">Call {call.number}</span>
        <span className="text-slate-600">{call.iteration === null ? "run-level" : `iteration ${call.iteration}`}</span>
        <span className="font-mono text-2xs text-slate-700">{choice}</span>
        {call.messages.some((m) => m.injection) && <Badge tone="warning">injected</Badge>}
        <span className="ml-auto tabular-nums text-2xs text-slate-600">
          {r
            ? `${formatMs(r.latencyMs)} · ${formatCount(r.tokensIn)} in / ${formatCount(r.tokensOut)} out${r.replayed ? " · replayed" : ""}`
            : "awaiting response"}
        </span>
      </Button>
      {open && (
        <div className="flex flex-col gap-2 border-t border-slate-200 p-2">
          <div className="text-xs">
            <span className="text-slate-500">Tools offered: </span>
            <span className="font-mono">{call.tools.join(", ") || "none"}</span>
            <span className="text-slate-500"> · tool choice: </span>
            <span className="font-mono">{choice}</span>
          </div>
          <ol className="flex flex-col gap-1">
            {call.messages.map((m) => (
              <MessageBlock key={m.index} m={m} />
            ))}
          </ol>
          <div>
            <h4 className="text-2xs font-semibold uppercase tracking-wide text-slate-600">Raw response</h4>
            {r ? (
              <JsonView value={r} openDepth={1} label={`Raw response of call ${call.number}`} />
            ) : (
              <p className="text-xs text-slate-600">(no response yet)</p>
            )}
          </div>
        </div>
      )}
    </li>
  );
}

/** Every model call with its exact request and response; bodies render only when opened. */
/** Memoized: focus moves in the timeline re-render the page, not this panel. */
export const MessagesView = memo(function MessagesView({ events }: { events: readonly RunEvent[] }) {
  const calls = useMemo(() => modelCalls(events), [events]);
  const [shown, setShown] = useState(PAGE);
  if (calls.length === 0) return <p className="text-xs text-slate-500">This run made no model call.</p>;
  return (
    <div className="flex flex-col gap-1.5">
      <ol className="flex flex-col gap-1.5">
        {calls.slice(0, shown).map((c) => (
          <CallItem key={c.number} call={c} />
        ))}
      </ol>
      {calls.length > shown && (
        <Button onClick={() => setShown((n) => n + PAGE)} className="self-start px-2 py-0.5">
          Show {Math.min(PAGE, calls.length - shown)} more of {calls.length - shown}
        </Button>
      )}
    </div>
  );
});
