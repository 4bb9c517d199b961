/** `model check`'s report as a terminal table: no SDK here, so printing a report loads none. */
import { findingRows, type ModelCheckReport, recommendationText } from "@/lib/contracts/model-check";

/** The report as a table for a terminal. */
export function formatModelCheck(r: ModelCheckReport): string {
  const where = r.provider.kind === "offline" ? "offline model" : `${r.provider.model} at ${r.provider.baseUrlHost}`;
  const rows = r.probes.map((p) => [
    p.label,
    p.ok ? "ok" : p.latencyMs === null ? "—" : "no",
    p.latencyMs === null ? "" : `${Math.round(p.latencyMs)} ms`,
    p.detail,
  ]);
  for (const f of findingRows(r)) rows.push([f.label, f.result, "", f.detail]);
  const head = ["probe", "result", "latency", "detail"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [
    `Model check: ${where}`,
    "",
    line(head),
    ...rows.map(line),
    "",
    `tool calls: ${r.toolCalls}`,
    `recommended: ${recommendationText(r)}`,
    r.summary,
  ].join("\n");
}
