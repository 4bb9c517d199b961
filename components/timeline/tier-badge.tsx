import type { Tier } from "@/lib/reflect/domain";
import { tierClass, tierLabel } from "./tones";

export function TierBadge({ tier, tool }: { tier: Tier | null; tool?: string }) {
  if (!tier) {
    return (
      <span className="inline-flex rounded border border-slate-300 bg-white px-1.5 py-px font-mono text-2xs text-slate-700">
        {tool ?? "unknown tool"}
      </span>
    );
  }
  return (
    <span
      className={`inline-flex rounded border px-1.5 py-px text-2xs font-semibold leading-4 whitespace-nowrap ${tierClass(tier)}`}
      data-tier={tier}
    >
      {tierLabel(tier)}
    </span>
  );
}
