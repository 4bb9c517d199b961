import type { SteeringRow as SteeringRowData } from "@/lib/timeline/fold";
import { repeatedCall } from "@/lib/timeline/format";
import { Badge } from "./badge";

const TONE = { nudge: "warning", halt: "danger", anchor: "info" } as const;

export function SteeringRow({ row }: { row: SteeringRowData }) {
  return (
    <div className="flex flex-col gap-0.5">
      <div className="flex items-center gap-2">
        <Badge tone={TONE[row.action]}>{row.action}</Badge>
        <span className="truncate text-xs text-slate-700">{row.triggerLabel}</span>
        {row.signature && (
          <span className="ml-auto truncate text-2xs text-slate-600" title={`Ladder signature: ${row.signature}`}>
            repeated: {repeatedCall(row.signature)}
          </span>
        )}
      </div>
      <blockquote className="whitespace-pre-wrap border-l-2 border-slate-300 pl-2 text-xs text-slate-800">
        {row.text}
      </blockquote>
      {row.action !== "halt" && (
        <p className="pl-1 text-2xs text-slate-500">request-scoped: sent with the next request only</p>
      )}
    </div>
  );
}
