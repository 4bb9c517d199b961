import Link from "next/link";
import { words } from "@/lib/timeline/format";
import { glossaryHref, statusTerm } from "@/lib/timeline/glossary";

const STATUS_STYLE: Record<string, string> = {
  running: "bg-sky-100 text-sky-800 border-sky-200",
  done: "bg-emerald-100 text-emerald-800 border-emerald-200",
  no_evidence: "bg-slate-100 text-slate-700 border-slate-300",
  halted: "bg-orange-100 text-orange-800 border-orange-200",
  degraded: "bg-amber-100 text-amber-900 border-amber-200",
  failed: "bg-red-100 text-red-800 border-red-200",
  interrupted: "bg-zinc-200 text-zinc-800 border-zinc-300",
};

/** A run's status, linking to what it means in the glossary. */
export function RunStatusBadge({ status }: { status: string }) {
  return (
    <Link
      href={glossaryHref(statusTerm(status))}
      data-testid="run-status"
      data-status={status}
      className={`inline-flex items-center rounded border px-1.5 py-px font-medium text-2xs hover:underline ${STATUS_STYLE[status] ?? STATUS_STYLE.no_evidence}`}
    >
      {words(status)}
    </Link>
  );
}
