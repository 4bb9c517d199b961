import type { ReactNode } from "react";
import type { BadgeTone } from "@/lib/timeline/badges";
import { TONE_CLASS } from "./tones";

export function Badge({ tone, title, children }: { tone: BadgeTone; title?: string; children: ReactNode }) {
  return (
    <span
      className={`inline-flex items-center rounded border px-1.5 py-px text-[11px] font-medium leading-4 whitespace-nowrap ${TONE_CLASS[tone]}`}
      title={title}
    >
      {children}
    </span>
  );
}
