import Link from "next/link";
import { RUN_FLAGS, type RunFlag } from "@/lib/reflect/domain";
import { badgesFromFlags } from "@/lib/timeline/badges";
import { flagTerm, glossaryHref } from "@/lib/timeline/glossary";

const FLAG_STYLE: Record<string, string> = {
  short_circuited: "bg-violet-50 text-violet-800 border-violet-200",
  nudged: "bg-amber-50 text-amber-900 border-amber-200",
  halted: "bg-orange-50 text-orange-800 border-orange-200",
  anchored: "bg-indigo-50 text-indigo-800 border-indigo-200",
  ungrounded: "bg-red-50 text-red-800 border-red-200",
  degraded: "bg-amber-50 text-amber-900 border-amber-300",
  release_miss: "bg-fuchsia-50 text-fuchsia-800 border-fuchsia-200",
  replayed: "bg-slate-50 text-slate-700 border-slate-200",
  missed_evidence: "bg-rose-50 text-rose-800 border-rose-300",
};

/** A run's flags as compact badges, each linking to its glossary entry (the tooltip is its one sentence). */
export function FlagBadges({ flags }: { flags: readonly string[] }) {
  const known = new Set<string>(RUN_FLAGS);
  return (
    <span className="inline-flex flex-wrap gap-1">
      {badgesFromFlags(flags.filter((f): f is RunFlag => known.has(f))).map((b) => (
        <Link
          key={b.flag}
          href={glossaryHref(flagTerm(b.flag))}
          title={b.description}
          data-testid="run-flag"
          data-flag={b.flag}
          className={`rounded border px-1 py-px text-[10px] hover:underline ${FLAG_STYLE[b.flag] ?? "border-slate-200 bg-slate-50"}`}
        >
          {b.label}
        </Link>
      ))}
      {flags
        .filter((f) => !known.has(f))
        .map((f) => (
          <span
            key={f}
            data-testid="run-flag"
            className="rounded border border-slate-200 bg-slate-50 px-1 py-px text-[10px]"
          >
            {f}
          </span>
        ))}
    </span>
  );
}
