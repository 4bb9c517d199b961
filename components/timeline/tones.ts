/** Colour classes shared by timeline components. Pairs meet WCAG AA contrast on white. */
import type { Tier } from "@/lib/reflect/domain";
import type { BadgeTone } from "@/lib/timeline/badges";

export const TONE_CLASS: Record<BadgeTone, string> = {
  info: "border-sky-300 bg-sky-50 text-sky-900",
  success: "border-emerald-300 bg-emerald-50 text-emerald-900",
  warning: "border-amber-300 bg-amber-50 text-amber-900",
  danger: "border-rose-300 bg-rose-50 text-rose-900",
  neutral: "border-slate-300 bg-slate-100 text-slate-800",
};

export const TIER_CLASS: Record<Tier, string> = {
  mental_models: "border-violet-300 bg-violet-50 text-violet-900",
  observations: "border-sky-300 bg-sky-50 text-sky-900",
  raw_facts: "border-amber-300 bg-amber-50 text-amber-900",
};

/** Left rule of a row, so the tier is visible even when scanning fast. */
export const TIER_RULE: Record<Tier, string> = {
  mental_models: "border-l-violet-500",
  observations: "border-l-sky-500",
  raw_facts: "border-l-amber-500",
};

export const TIER_LABEL: Record<Tier, string> = {
  mental_models: "mental models",
  observations: "observations",
  raw_facts: "raw facts",
};
