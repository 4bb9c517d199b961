import type { GuardRow as GuardRowData } from "@/lib/timeline/fold";
import { words } from "@/lib/timeline/format";
import { Badge } from "./badge";

const OUTPUT_TONE = { recovered: "success", unwrapped: "success", retry: "warning", degraded: "danger" } as const;
const DONE_WHY = {
  no_evidence_yet: "done called before any evidence was retrieved",
  release_miss: "done after a freshness release cited nothing",
};

const FORMAT_LABEL = {
  hermes: "Hermes <tool_call>",
  mistral: "Mistral [TOOL_CALLS]",
  bare_json: "bare JSON",
  harmony: "harmony to=functions",
} as const;

/** Tool calls the model wrote as text, read back by the provider (no structured calls came back). */
function TextToolCallRow({ detail, format }: { detail: string; format?: keyof typeof FORMAT_LABEL }) {
  return (
    <div className="flex flex-col gap-0.5" data-testid="text-tool-call">
      <div className="flex items-center gap-2">
        <span className="text-xs font-semibold text-slate-900">Tool calls read from text</span>
        <Badge
          tone="warning"
          title="The server returned no structured tool calls; the provider read them from the text"
        >
          text tool call
        </Badge>
        {format && <span className="font-mono text-2xs text-slate-600">{FORMAT_LABEL[format]}</span>}
      </div>
      <p className="pl-1 text-xs text-slate-700">{detail}</p>
    </div>
  );
}

export function GuardRow({ row }: { row: GuardRowData }) {
  switch (row.action) {
    case "output":
      if (row.pattern === "text_tool_call") return <TextToolCallRow detail={row.detail} format={row.format} />;
      return (
        <div className="flex flex-col gap-0.5">
          <div className="flex items-center gap-2">
            <span className="text-xs font-semibold text-slate-900">Output guard</span>
            <Badge tone={OUTPUT_TONE[row.outcome]}>{row.outcome}</Badge>
            <span className="font-mono text-2xs text-slate-600">{row.pattern}</span>
          </div>
          <p className="pl-1 text-xs text-slate-700">{row.detail}</p>
        </div>
      );
    case "done_rejected":
      return (
        <div className="flex flex-col gap-0.5">
          <div className="flex items-center gap-2">
            <span className="text-xs font-semibold text-slate-900">Done rejected</span>
            <Badge tone="warning">{words(row.why)}</Badge>
            <span className="text-xs text-slate-600">{DONE_WHY[row.why]}</span>
          </div>
          <blockquote className="whitespace-pre-wrap border-l-2 border-slate-300 pl-2 text-xs text-slate-800">
            {row.message}
          </blockquote>
        </div>
      );
    case "calls_dropped":
      return (
        <div className="flex items-center gap-2">
          <span className="text-xs font-semibold text-slate-900">Calls dropped</span>
          <Badge tone="neutral">{words(row.reason)}</Badge>
          <span className="truncate font-mono text-2xs text-slate-700">
            {row.calls.map((c) => `${c.name} (${c.id})`).join(", ")}
          </span>
        </div>
      );
    case "provider_warning":
      return (
        <div className="flex items-center gap-2" data-testid="provider-warning">
          <span className="text-xs font-semibold text-slate-900">Provider warning</span>
          <Badge tone="warning">downgraded</Badge>
          <span className="font-mono text-2xs text-slate-700">{row.message}</span>
        </div>
      );
    default: {
      const unhandled: never = row;
      throw new Error(`no view for guard row ${JSON.stringify(unhandled)}`);
    }
  }
}
