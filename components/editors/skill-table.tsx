import Link from "next/link";
import { type Column, DataTable } from "@/components/ui/data-table";
import { skillHref } from "@/lib/client/curation";
import type { Skill } from "@/lib/contracts/skills";
import { formatTime } from "./format-time";

const columns = (bankId: string): Column<Skill>[] => [
  {
    key: "name",
    header: "Skill",
    headerClassName: "w-[11%]",
    cell: (s) => (
      <Link href={skillHref(bankId, s.id)} className="font-medium text-slate-900 hover:text-indigo-700 hover:underline">
        {s.name}
      </Link>
    ),
  },
  {
    key: "mission",
    header: "Mission",
    headerClassName: "w-[44%]",
    cellClassName: "text-slate-700",
    cell: (s) => <span className="line-clamp-2">{s.mission}</span>,
  },
  {
    key: "disposition",
    header: "Disposition",
    headerClassName: "w-[15%]",
    cellClassName: "text-slate-600",
    cell: (s) => s.disposition.join(", "),
  },
  {
    key: "budget",
    header: "Budget · scope",
    headerClassName: "w-[12%]",
    cellClassName: "text-slate-600",
    cell: (s) => `${s.budget} · ${s.retrieval.scope}`,
  },
  {
    key: "version",
    header: "Version",
    numeric: true,
    headerClassName: "w-[6%]",
    cellClassName: "font-mono text-xs text-slate-600",
    cell: (s) => `v${s.version}`,
  },
  {
    key: "updated",
    header: "Updated",
    headerClassName: "w-[12%]",
    cellClassName: "text-2xs text-slate-500",
    cell: (s) => formatTime(s.updatedAt),
  },
];

export function SkillTable({ bankId, skills }: { bankId: string; skills: Skill[] }) {
  return (
    <DataTable
      columns={columns(bankId)}
      rows={skills}
      rowKey={(s) => s.id}
      rowProps={() => ({ "data-testid": "skill-row" })}
      empty="No skills in this bank."
      testId="skill-table"
    />
  );
}
