import { Button } from "@/components/ui/button";
import type { TimelineCitation } from "@/lib/timeline/fold";
import { words } from "@/lib/timeline/format";
import { tierClass, tierLabel } from "./tones";

export function CitationChip({
  citation,
  selected,
  highlighted,
  onSelect,
}: {
  citation: TimelineCitation;
  selected: boolean;
  /** The selected timeline row retrieved this citation. */
  highlighted: boolean;
  onSelect: () => void;
}) {
  const dropped = citation.status === "dropped";
  const colour = dropped ? "border-rose-300 bg-rose-50 text-rose-900" : tierClass(citation.tier);
  const ring = selected ? "ring-2 ring-indigo-600" : highlighted ? "ring-2 ring-yellow-400" : "";
  return (
    <Button
      variant="bare"
      onClick={onSelect}
      aria-pressed={selected}
      data-testid="citation-chip"
      data-citation-id={citation.id}
      data-status={citation.status}
      data-tier={citation.tier}
      data-highlighted={highlighted || undefined}
      title={`${tierLabel(citation.tier)}${dropped ? ` · dropped: ${citation.reason ? words(citation.reason) : ""}` : ""}`}
      className={`inline-flex items-center gap-1 rounded border px-1.5 py-px font-mono text-2xs ${colour} ${ring}`}
    >
      <span className={dropped ? "line-through" : undefined}>{citation.id}</span>
      {dropped && <span className="font-sans text-[10px] uppercase">dropped</span>}
    </Button>
  );
}
