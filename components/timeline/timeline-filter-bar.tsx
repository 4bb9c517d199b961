"use client";

import { TIER_REGISTRY, type Tier } from "@/lib/reflect/domain";
import type { TimelineFilter } from "@/lib/timeline/filter";
import { isFiltering, NO_FILTER } from "@/lib/timeline/filter";
import type { RowKind } from "@/lib/timeline/fold";
import { plural } from "@/lib/timeline/format";

const KINDS: { kind: RowKind; label: string }[] = [
  { kind: "tier", label: "tier searches" },
  { kind: "freshness", label: "freshness checks" },
  { kind: "steering", label: "steering" },
  { kind: "guard", label: "guards" },
  { kind: "citations", label: "citations" },
];

const FIELD = "rounded border border-slate-300 bg-white px-1.5 py-0.5 text-[12px] text-slate-900";

/** Search and filter inside a run: narrows the timeline to the rows that match. */
export function TimelineFilterBar({
  filter,
  onChange,
  shownRows,
  totalRows,
}: {
  filter: TimelineFilter;
  onChange: (f: TimelineFilter) => void;
  shownRows: number;
  totalRows: number;
}) {
  const set = (patch: Partial<TimelineFilter>) => onChange({ ...filter, ...patch });
  const active = isFiltering(filter);
  return (
    <search className="mb-1.5 flex flex-wrap items-center gap-2 text-[12px]" aria-label="Search this run">
      <input
        type="search"
        value={filter.text}
        onChange={(e) => set({ text: e.target.value })}
        placeholder="Search queries, reasons, ids, verdicts…"
        aria-label="Search this run's timeline"
        data-testid="timeline-search"
        className={`${FIELD} w-64 min-w-0 flex-1`}
      />
      <select
        value={filter.kind ?? ""}
        onChange={(e) => set({ kind: (e.target.value || null) as RowKind | null })}
        aria-label="Row kind"
        data-testid="timeline-filter-kind"
        className={FIELD}
      >
        <option value="">every kind</option>
        {KINDS.map((k) => (
          <option key={k.kind} value={k.kind}>
            {k.label}
          </option>
        ))}
      </select>
      <select
        value={filter.tier ?? ""}
        onChange={(e) => set({ tier: (e.target.value || null) as Tier | null })}
        aria-label="Tier"
        data-testid="timeline-filter-tier"
        className={FIELD}
      >
        <option value="">every tier</option>
        {TIER_REGISTRY.map((t) => (
          <option key={t.id} value={t.id}>
            {t.label}
          </option>
        ))}
      </select>
      <label className="flex items-center gap-1 text-slate-700">
        <input
          type="checkbox"
          checked={filter.steeringOnly}
          onChange={(e) => set({ steeringOnly: e.target.checked })}
          data-testid="timeline-filter-steering"
        />
        only steering
      </label>
      <label className="flex items-center gap-1 text-slate-700">
        <input
          type="checkbox"
          checked={filter.failuresOnly}
          onChange={(e) => set({ failuresOnly: e.target.checked })}
          data-testid="timeline-filter-failures"
        />
        only failures
      </label>
      {active && (
        <>
          <output className="tabular-nums text-slate-600" data-testid="timeline-filter-count">
            {shownRows} of {plural(totalRows, "row")}
          </output>
          <button
            type="button"
            onClick={() => onChange(NO_FILTER)}
            className="rounded border border-slate-300 px-1.5 py-0.5 text-slate-700 hover:bg-slate-100"
          >
            Clear
          </button>
        </>
      )}
    </search>
  );
}
