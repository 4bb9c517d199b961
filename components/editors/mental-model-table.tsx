import Link from "next/link";
import { StalenessBadge } from "@/components/memory/staleness-badge";
import { TagList } from "@/components/memory/tag-list";
import { type Column, DataTable } from "@/components/ui/data-table";
import { mentalModelHref } from "@/lib/client/curation";
import type { MentalModelRow } from "@/lib/contracts/mental-models";
import { formatTime } from "./format-time";

const columns = (bankId: string): Column<MentalModelRow>[] => [
  {
    key: "name",
    header: "Name",
    headerClassName: "w-[24%]",
    cell: (m) => (
      <>
        <Link href={mentalModelHref(bankId, m.id)} className="text-slate-900 hover:text-indigo-700 hover:underline">
          {m.name}
        </Link>
        <span className="block font-mono text-[10px] text-slate-500">{m.id}</span>
      </>
    ),
  },
  {
    key: "staleness",
    header: "Staleness",
    headerClassName: "w-[30%]",
    cell: (m) => (
      <span className="flex items-baseline gap-1.5">
        <StalenessBadge state={m.state} reason={m.reason} />
        <span className="text-2xs text-slate-500" data-testid="staleness-reason">
          {m.reason}
        </span>
      </span>
    ),
  },
  {
    key: "refreshed",
    header: "Last refresh",
    headerClassName: "w-[12%]",
    cellClassName: "text-slate-600 tabular-nums",
    cell: (m) => (m.refreshedAt ? formatTime(m.refreshedAt) : "never"),
  },
  {
    key: "tags",
    header: "Tags",
    headerClassName: "w-[16%]",
    cell: (m) => (m.tags.length ? <TagList tags={m.tags} /> : <span className="text-slate-500">all memories</span>),
  },
  {
    key: "read-by",
    header: "Read by",
    numeric: true,
    headerClassName: "w-[9%]",
    cellClassName: "tabular-nums",
    cell: (m) => <span data-testid="read-by">{`${m.readBy} ${m.readBy === 1 ? "run" : "runs"}`}</span>,
  },
  {
    key: "version",
    header: "Version",
    numeric: true,
    headerClassName: "w-[9%]",
    cellClassName: "font-mono text-xs text-slate-600",
    cell: (m) => `v${m.version}`,
  },
];

export function MentalModelTable({ bankId, rows }: { bankId: string; rows: MentalModelRow[] }) {
  return (
    <DataTable
      columns={columns(bankId)}
      rows={rows}
      rowKey={(m) => m.id}
      rowProps={(m) => ({ "data-testid": "mental-model-row", "data-model-id": m.id })}
      empty="No mental models in this bank yet."
      testId="mental-model-table"
    />
  );
}
