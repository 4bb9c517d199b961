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

export function FlagBadges({ flags }: { flags: string[] }) {
  return (
    <span className="inline-flex flex-wrap gap-1">
      {flags.map((f) => (
        <span
          key={f}
          data-testid="run-flag"
          className={`rounded border px-1 py-px text-[10px] ${FLAG_STYLE[f] ?? "border-slate-200 bg-slate-50"}`}
        >
          {f.replace("_", "-")}
        </span>
      ))}
    </span>
  );
}
