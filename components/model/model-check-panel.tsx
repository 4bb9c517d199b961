"use client";

import { useMutation } from "@tanstack/react-query";
import { Button } from "@/components/ui/button";
import { unwrap } from "@/lib/client/unwrap";
import type { ActionResult } from "@/lib/contracts/errors";
import {
  findingRows,
  type ModelCheckInput,
  type ModelCheckReport,
  recommendationText,
} from "@/lib/contracts/model-check";

/** "Check model": a few tiny requests to the configured server, shown as a capability table. */
export function ModelCheckPanel({
  check,
}: {
  check: (input: ModelCheckInput) => Promise<ActionResult<ModelCheckReport>>;
}) {
  const mutation = useMutation({ mutationFn: () => unwrap(check({})) });
  const report = mutation.data;
  return (
    <section className="flex flex-col gap-3" aria-label="Model check">
      <div className="flex items-center gap-3">
        <Button
          disabled={mutation.isPending}
          onClick={() => mutation.mutate()}
          className="shrink-0 whitespace-nowrap font-medium"
          data-testid="check-model"
        >
          {mutation.isPending ? "Checking… (a few tiny requests)" : "Check model"}
        </Button>
        <span className="text-xs text-slate-600">
          Plain chat, tools under auto, named and required tool choice, no tool choice, tool calls written as text,
          reasoning. The same as <code className="font-mono">npm run cli -- model check</code>.
        </span>
      </div>
      {mutation.error ? (
        <p className="text-xs text-red-700" role="alert">
          {mutation.error.message}
        </p>
      ) : null}
      {report ? <ReportTable report={report} /> : null}
    </section>
  );
}

function ReportTable({ report }: { report: ModelCheckReport }) {
  return (
    <div className="flex flex-col gap-2" data-testid="model-check-report" data-tool-calls={report.toolCalls}>
      <p
        role="status"
        className={`text-[13px] ${report.exitCode === 0 ? (report.toolCalls === "structured" ? "text-emerald-800" : "text-amber-900") : "text-red-700"}`}
      >
        {report.summary}
      </p>
      <table className="w-full border-collapse text-xs">
        <thead>
          <tr className="border-b border-slate-300 text-left text-slate-600">
            <th className="py-1 pr-3 font-medium">Probe</th>
            <th className="py-1 pr-3 font-medium">Result</th>
            <th className="py-1 pr-3 font-medium">Latency</th>
            <th className="py-1 font-medium">Detail</th>
          </tr>
        </thead>
        <tbody>
          {report.probes.map((p) => (
            <tr
              key={p.probe}
              className="border-b border-slate-100"
              data-testid="model-check-probe"
              data-probe={p.probe}
            >
              <td className="py-1 pr-3">{p.label}</td>
              <td className={`py-1 pr-3 font-medium ${p.ok ? "text-emerald-800" : "text-red-700"}`}>
                {p.ok ? "ok" : p.latencyMs === null ? "not sent" : "no"}
              </td>
              <td className="py-1 pr-3 tabular-nums">{p.latencyMs === null ? "—" : `${Math.round(p.latencyMs)} ms`}</td>
              <td className="py-1 break-words">{p.detail}</td>
            </tr>
          ))}
          {findingRows(report).map((f) => (
            <tr key={f.label} className="border-b border-slate-100">
              <td className="py-1 pr-3">{f.label}</td>
              <td className="py-1 pr-3 font-medium">{f.result}</td>
              <td />
              <td className="py-1">{f.detail}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="text-xs text-slate-700" data-testid="model-check-recommendation">
        Recommended forced tool choice: <span className="font-mono">{recommendationText(report)}</span>
      </p>
    </div>
  );
}
