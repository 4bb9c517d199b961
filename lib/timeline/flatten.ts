/** The timeline as one flat list of items for a virtualized list: group headers followed by their rows. */
import { allRows, type RunView, type TimelineIteration, type TimelineRow } from "./fold";

export type TimelineItem =
  | { type: "section"; key: string; label: string }
  | { type: "iteration"; key: string; iteration: TimelineIteration; collapsed: boolean }
  | { type: "row"; key: string; row: TimelineRow };

export function flattenTimeline(view: RunView, collapsed: ReadonlySet<number>): TimelineItem[] {
  const items: TimelineItem[] = [];
  const pushRows = (rows: TimelineRow[]) => {
    for (const row of rows) items.push({ type: "row", key: row.id, row });
  };
  if (view.rowsBefore.length > 0) {
    items.push({ type: "section", key: "before", label: "Run-level (no model call)" });
    pushRows(view.rowsBefore);
  }
  for (const it of view.iterations) {
    const isCollapsed = collapsed.has(it.index);
    items.push({ type: "iteration", key: `it${it.index}`, iteration: it, collapsed: isCollapsed });
    if (!isCollapsed) pushRows(it.rows);
  }
  if (view.rowsAfter.length > 0) {
    items.push({ type: "section", key: "after", label: "After the loop" });
    pushRows(view.rowsAfter);
  }
  return items;
}

export function rowsById(view: RunView): Map<string, TimelineRow> {
  return new Map(allRows(view).map((r) => [r.id, r]));
}
