"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import type { ReasoningRow } from "@/lib/timeline/fold";
import { formatCount } from "@/lib/timeline/format";

/**
 * What the model thought before this response, folded by default: reasoning is long and the
 * iteration's calls are what most readers scan for. The full recorded text is one click away.
 */
export function ReasoningBlock({ row }: { row: ReasoningRow }) {
  const [open, setOpen] = useState(false);
  const size = `${row.chars.toLocaleString("en-US")} chars${row.tokens !== null ? ` · ${formatCount(row.tokens)} tokens` : ""}`;
  return (
    <div className="flex flex-col gap-0.5" data-testid="reasoning-block" data-open={open || undefined}>
      <Button
        variant="bare"
        type="button"
        // The list owns keyboard focus (Enter opens the row's detail, which shows the same text).
        tabIndex={-1}
        aria-expanded={open}
        onClick={(e) => {
          e.stopPropagation();
          setOpen((o) => !o);
        }}
        className="flex items-center gap-2 text-left text-xs"
      >
        <span className="w-3 text-slate-600">{open ? "▾" : "▸"}</span>
        <span className="font-semibold text-slate-900">Reasoning</span>
        <span className="text-slate-600">· {size}</span>
        {!open && <span className="min-w-0 flex-1 truncate italic text-slate-500">{firstLine(row.text)}</span>}
      </Button>
      {open && (
        <div className="pl-5">
          <p
            className="max-h-80 overflow-auto whitespace-pre-wrap border-l-2 border-violet-300 pl-2 text-xs text-slate-800"
            data-testid="reasoning-text"
          >
            {row.text}
          </p>
          {row.truncated && (
            <p className="mt-0.5 text-2xs text-slate-500">
              Shows the first {row.text.length.toLocaleString("en-US")} of {row.chars.toLocaleString("en-US")}{" "}
              characters the model wrote.
            </p>
          )}
        </div>
      )}
    </div>
  );
}

function firstLine(text: string): string {
  return text.trim().split("\n", 1)[0] ?? "";
}
