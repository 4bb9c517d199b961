import Link from "next/link";
import { skillHref } from "@/lib/client/curation";
import type { Skill } from "@/lib/contracts/skills";
import { formatTime } from "./format-time";

export function SkillTable({ bankId, skills }: { bankId: string; skills: Skill[] }) {
  if (skills.length === 0) {
    return (
      <p className="rounded border border-dashed border-slate-300 p-6 text-center text-slate-500">
        No skills in this bank.
      </p>
    );
  }
  return (
    <table className="w-full table-fixed border-collapse text-left" data-testid="skill-table">
      <thead className="border-b border-slate-200 text-[11px] text-slate-500 uppercase tracking-wide">
        <tr>
          <th className="w-[11%] py-1.5 pr-2 font-medium">Skill</th>
          <th className="w-[44%] pr-2 font-medium">Mission</th>
          <th className="w-[15%] pr-2 font-medium">Disposition</th>
          <th className="w-[12%] pr-2 font-medium">Budget · scope</th>
          <th className="w-[6%] pr-2 text-right font-medium">Version</th>
          <th className="w-[12%] font-medium">Updated</th>
        </tr>
      </thead>
      <tbody>
        {skills.map((s) => (
          <tr key={s.id} className="border-b border-slate-100 align-top hover:bg-white" data-testid="skill-row">
            <td className="py-1.5 pr-2">
              <Link
                href={skillHref(bankId, s.id)}
                className="font-medium text-slate-900 hover:text-indigo-700 hover:underline"
              >
                {s.name}
              </Link>
            </td>
            <td className="pr-2 text-slate-700">
              <span className="line-clamp-2">{s.mission}</span>
            </td>
            <td className="pr-2 text-slate-600">{s.disposition.join(", ")}</td>
            <td className="pr-2 text-slate-600">
              {s.budget} · {s.retrieval.scope}
            </td>
            <td className="pr-2 text-right font-mono text-[12px] text-slate-600">v{s.version}</td>
            <td className="text-[11px] text-slate-500">{formatTime(s.updatedAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
