"use client";

import { Button } from "@/components/ui/button";
import { Check, Input, Select } from "@/components/ui/input";
import { TIER_REGISTRY } from "@/lib/reflect/domain";
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

/** One of `options`, or any (null). */
function Choice<T extends string>({
  label,
  testId,
  any,
  value,
  options,
  onChange,
}: {
  label: string;
  testId: string;
  any: string;
  value: T | null;
  options: { value: T; label: string }[];
  onChange: (value: T | null) => void;
}) {
  return (
    <Select
      size="sm"
      value={value ?? ""}
      onChange={(e) => onChange((options.find((o) => o.value === e.target.value)?.value ?? null) as T | null)}
      aria-label={label}
      data-testid={testId}
      className="py-0.5"
    >
      <option value="">{any}</option>
      {options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.label}
        </option>
      ))}
    </Select>
  );
}

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
    <search className="mb-1.5 flex flex-wrap items-center gap-2 text-xs" aria-label="Search this run">
      <Input
        size="sm"
        type="search"
        value={filter.text}
        onChange={(e) => set({ text: e.target.value })}
        placeholder="Search queries, reasons, ids, verdicts…"
        aria-label="Search this run's timeline"
        data-testid="timeline-search"
        className="py-0.5 min-w-0 flex-1 basis-full sm:basis-64"
      />
      <Choice
        label="Row kind"
        testId="timeline-filter-kind"
        any="every kind"
        value={filter.kind}
        options={KINDS.map((k) => ({ value: k.kind, label: k.label }))}
        onChange={(kind) => set({ kind })}
      />
      <Choice
        label="Tier"
        testId="timeline-filter-tier"
        any="every tier"
        value={filter.tier}
        options={TIER_REGISTRY.map((t) => ({ value: t.id, label: t.label }))}
        onChange={(tier) => set({ tier })}
      />
      <label className="flex items-center gap-1 text-slate-700">
        <Check
          type="checkbox"
          checked={filter.steeringOnly}
          onChange={(e) => set({ steeringOnly: e.target.checked })}
          data-testid="timeline-filter-steering"
        />
        only steering
      </label>
      <label className="flex items-center gap-1 text-slate-700">
        <Check
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
          <Button size="md" onClick={() => onChange(NO_FILTER)} className="px-1.5 py-0.5 text-slate-700">
            Clear
          </Button>
        </>
      )}
    </search>
  );
}
