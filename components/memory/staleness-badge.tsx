import Link from "next/link";
import type { StalenessState } from "@/lib/contracts/mental-models";
import { glossaryHref } from "@/lib/timeline/glossary";

const LABEL: Record<StalenessState, string> = {
  fresh: "fresh",
  stale: "stale",
  never_refreshed: "never refreshed",
  overridden_stale: "forced stale",
  overridden_fresh: "forced fresh",
  unusable: "unusable",
};

const STYLE: Record<StalenessState, string> = {
  fresh: "border-emerald-200 bg-emerald-50 text-emerald-800",
  stale: "border-amber-300 bg-amber-50 text-amber-900",
  never_refreshed: "border-slate-300 bg-slate-100 text-slate-700",
  overridden_stale: "border-orange-300 bg-orange-50 text-orange-800",
  overridden_fresh: "border-teal-300 bg-teal-50 text-teal-800",
  unusable: "border-red-200 bg-red-50 text-red-800",
};

const TERM: Record<StalenessState, string> = {
  fresh: "fresh",
  stale: "stale",
  never_refreshed: "stale",
  overridden_stale: "forced-fresh",
  overridden_fresh: "forced-fresh",
  unusable: "unusable",
};

/** A mental model's staleness in words, linking to what it means; the reason is its tooltip. */
export function StalenessBadge({ state, reason }: { state: StalenessState; reason: string }) {
  return (
    <Link
      href={glossaryHref(TERM[state])}
      data-testid="staleness-badge"
      data-state={state}
      title={reason}
      className={`inline-flex items-center rounded border px-1.5 py-px font-medium text-2xs hover:underline ${STYLE[state]}`}
    >
      {LABEL[state]}
    </Link>
  );
}
