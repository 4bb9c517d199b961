/** Colour classes shared by timeline components. Pairs meet WCAG AA contrast on white. */
import { TIER_INFO, type Tier, type TierColour } from "@/lib/reflect/domain";
import type { BadgeTone } from "@/lib/timeline/badges";

export const TONE_CLASS: Record<BadgeTone, string> = {
  info: "border-sky-300 bg-sky-50 text-sky-900",
  success: "border-emerald-300 bg-emerald-50 text-emerald-900",
  warning: "border-amber-300 bg-amber-50 text-amber-900",
  danger: "border-rose-300 bg-rose-50 text-rose-900",
  neutral: "border-slate-300 bg-slate-100 text-slate-800",
};

/**
 * The Tailwind classes of each tier colour token (the registry in lib/reflect/domain.ts names the
 * token). Written out in full so Tailwind finds them in the source.
 */
const COLOUR_CLASS: Record<TierColour, { badge: string; rule: string }> = {
  violet: { badge: "border-violet-300 bg-violet-50 text-violet-900", rule: "border-l-violet-500" },
  sky: { badge: "border-sky-300 bg-sky-50 text-sky-900", rule: "border-l-sky-500" },
  amber: { badge: "border-amber-300 bg-amber-50 text-amber-900", rule: "border-l-amber-500" },
};

/** Border, background and text of a tier badge. */
export function tierClass(tier: Tier): string {
  return COLOUR_CLASS[TIER_INFO[tier].colour].badge;
}

/** Left rule of a row, so the tier is visible even when scanning fast. */
export function tierRule(tier: Tier): string {
  return COLOUR_CLASS[TIER_INFO[tier].colour].rule;
}

export function tierLabel(tier: Tier): string {
  return TIER_INFO[tier].label;
}
