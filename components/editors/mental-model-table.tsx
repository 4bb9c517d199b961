import Link from "next/link";
import { StalenessBadge } from "@/components/memory/staleness-badge";
import { TagList } from "@/components/memory/tag-list";
import { mentalModelHref } from "@/lib/client/curation";
import type { MentalModelRow } from "@/lib/contracts/mental-models";
import { formatTime } from "./format-time";

export function MentalModelTable({ bankId, rows }: { bankId: string; rows: MentalModelRow[] }) {
  if (rows.length === 0) {
    return (
      <p className="rounded border border-dashed border-slate-300 p-6 text-center text-slate-500">
        No mental models in this bank yet.
      </p>
    );
  }
  return (
    <table className="w-full table-fixed border-collapse text-left" data-testid="mental-model-table">
      <thead className="border-b border-slate-200 text-[11px] text-slate-500 uppercase tracking-wide">
        <tr>
          <th className="w-[24%] py-1.5 pr-2 font-medium">Name</th>
          <th className="w-[30%] pr-2 font-medium">Staleness</th>
          <th className="w-[12%] pr-2 font-medium">Last refresh</th>
          <th className="w-[16%] pr-2 font-medium">Tags</th>
          <th className="w-[9%] pr-2 text-right font-medium">Read by</th>
          <th className="w-[9%] text-right font-medium">Version</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((m) => (
          <tr
            key={m.id}
            className="border-b border-slate-100 align-top hover:bg-white"
            data-testid="mental-model-row"
            data-model-id={m.id}
          >
            <td className="py-1.5 pr-2">
              <Link
                href={mentalModelHref(bankId, m.id)}
                className="text-slate-900 hover:text-indigo-700 hover:underline"
              >
                {m.name}
              </Link>
              <span className="block font-mono text-[10px] text-slate-500">{m.id}</span>
            </td>
            <td className="pr-2">
              <span className="flex items-baseline gap-1.5">
                <StalenessBadge state={m.state} reason={m.reason} />
                <span className="text-[11px] text-slate-500" data-testid="staleness-reason">
                  {m.reason}
                </span>
              </span>
            </td>
            <td className="pr-2 text-slate-600 tabular-nums">{m.refreshedAt ? formatTime(m.refreshedAt) : "never"}</td>
            <td className="pr-2">
              {m.tags.length ? <TagList tags={m.tags} /> : <span className="text-slate-500">all memories</span>}
            </td>
            <td className="pr-2 text-right tabular-nums" data-testid="read-by">
              {m.readBy} {m.readBy === 1 ? "run" : "runs"}
            </td>
            <td className="text-right font-mono text-[12px] text-slate-600">v{m.version}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
