import { tierLabel } from "@/components/timeline/tones";
import type { CitationDiff as CitationDiffData } from "@/lib/timeline/compare";

/** Citations per tier: added in B, removed from A, kept by both. */
export function CitationDiff({ tiers }: { tiers: CitationDiffData[] }) {
  return (
    <table className="w-full text-xs" data-testid="citation-diff">
      <thead>
        <tr className="text-left text-2xs uppercase tracking-wide text-slate-500">
          <th className="py-1 pr-2 font-semibold">Tier</th>
          <th className="py-1 pr-2 font-semibold">Added</th>
          <th className="py-1 pr-2 font-semibold">Removed</th>
          <th className="py-1 font-semibold">Kept</th>
        </tr>
      </thead>
      <tbody>
        {tiers.map((t) => (
          <tr key={t.tier} className="border-t border-slate-200 align-top" data-tier={t.tier}>
            <td className="py-1 pr-2 text-slate-700">{tierLabel(t.tier)}</td>
            <td className="py-1 pr-2 font-mono text-emerald-800" data-testid="citations-added">
              {t.added.map((id) => `+${id}`).join(" ") || "—"}
            </td>
            <td className="py-1 pr-2 font-mono text-rose-800" data-testid="citations-removed">
              {t.removed.map((id) => `−${id}`).join(" ") || "—"}
            </td>
            <td className="py-1 font-mono text-slate-600">{t.kept.join(" ") || "—"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
