"use client";

import Link from "next/link";
import { useState } from "react";
import { DraftBadge, MentalModelDraftNote } from "@/components/timeline/badge";
import { Button } from "@/components/ui/button";
import { Check } from "@/components/ui/input";
import { ScrollRegion } from "@/components/ui/scroll-region";
import type { RunListItem } from "@/lib/contracts/runs";
import { FlagBadges } from "./flag-badges";
import { RunStatusBadge } from "./run-status-badge";

function duration(ms: number | null): string {
  if (ms === null) return "—";
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Where a run came from: a fork replays its parent up to an iteration, a re-run starts over. */
function lineage(r: RunListItem): string {
  if (!r.parentRunId) return "";
  return r.forkedAtIteration !== null
    ? ` · fork of ${r.parentRunId} at iteration ${r.forkedAtIteration}`
    : ` · re-run of ${r.parentRunId}`;
}

/** Runs ticked for comparison, in the order they were ticked (the first is A). */
function CompareBar({ picked, onClear }: { picked: string[]; onClear: () => void }) {
  const [a, b] = picked;
  return (
    <div className="mb-1 flex items-center gap-2 text-xs text-slate-700" data-testid="compare-bar">
      <span>
        {picked.length === 0
          ? "Tick two runs to compare them."
          : picked.length === 1
            ? "Tick one more run to compare."
            : "Two runs ticked."}
      </span>
      {a && b ? (
        <Link
          href={`/runs/compare?${new URLSearchParams({ a, b })}`}
          className="rounded bg-indigo-600 px-2 py-0.5 font-medium text-white hover:bg-indigo-700"
          data-testid="compare-selected"
        >
          Compare
        </Link>
      ) : (
        <span className="rounded border border-slate-300 px-2 py-0.5 text-slate-600" aria-disabled="true">
          Compare
        </span>
      )}
      {picked.length > 0 && (
        <Button variant="link" onClick={onClear}>
          clear
        </Button>
      )}
    </div>
  );
}

export function RunTable({ runs }: { runs: RunListItem[] }) {
  const [picked, setPicked] = useState<string[]>([]);
  const toggle = (id: string, on: boolean) =>
    setPicked((prev) => (on ? [...prev.filter((p) => p !== id), id].slice(-2) : prev.filter((p) => p !== id)));
  if (runs.length === 0) {
    return (
      <p className="rounded border border-dashed border-slate-300 p-6 text-center text-slate-500">No runs match.</p>
    );
  }
  return (
    <>
      <CompareBar picked={picked} onClear={() => setPicked([])} />
      {/* Narrow screens scroll the table sideways instead of squeezing its columns over each other. */}
      <ScrollRegion label="Runs" className="overflow-x-auto">
        <table className="w-full min-w-[900px] table-fixed border-collapse text-left" data-testid="run-table">
          <thead className="border-b border-slate-200 text-2xs text-slate-500 uppercase tracking-wide">
            <tr>
              <th className="w-7 py-1.5 font-medium">
                <span className="sr-only">Compare</span>
              </th>
              <th className="w-[34%] py-1.5 pr-2 font-medium">Question</th>
              <th className="w-[9%] pr-2 font-medium">Skill</th>
              <th className="w-[7%] pr-2 font-medium">Budget · mode</th>
              <th className="w-[8%] pr-2 font-medium">Status</th>
              <th className="w-[5%] pr-2 text-right font-medium">LLM</th>
              <th className="w-[9%] pr-2 text-right font-medium">Tokens in/out</th>
              <th className="w-[6%] pr-2 text-right font-medium">Time</th>
              <th className="w-[14%] pr-2 font-medium">Badges</th>
              <th className="w-[8%] font-medium">Started</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr
                key={r.id}
                className="border-b border-slate-100 align-top hover:bg-white"
                data-testid="run-row"
                data-run-id={r.id}
                data-status={r.status}
              >
                <td className="py-1.5">
                  <Check
                    type="checkbox"
                    checked={picked.includes(r.id)}
                    onChange={(e) => toggle(r.id, e.target.checked)}
                    aria-label={`Compare: ${r.question}`}
                    data-testid="run-compare-check"
                  />
                </td>
                <td className="py-1.5 pr-2">
                  <Link
                    href={`/runs/${r.id}`}
                    className="line-clamp-2 text-slate-900 hover:text-indigo-700 hover:underline"
                  >
                    {r.question}
                  </Link>
                  <span className="font-mono text-[10px] text-slate-500">
                    {r.bankId} · {r.scope} · {r.modelName}
                    {lineage(r)}
                  </span>
                </td>
                <td className="pr-2" data-testid="run-skill">
                  {r.skillName}{" "}
                  {r.skillVersion > 0 ? (
                    <span className="text-slate-500">
                      {r.skillDraft ? `draft on v${r.skillVersion}` : `v${r.skillVersion}`}
                    </span>
                  ) : null}
                  {r.skillDraft ? <DraftBadge /> : null}
                  {r.mentalModelDrafts.length ? (
                    <span className="block text-2xs">
                      <MentalModelDraftNote drafts={r.mentalModelDrafts} />
                    </span>
                  ) : null}
                </td>
                <td className="pr-2 text-slate-600">
                  {r.budget} · {r.mode}
                </td>
                <td className="pr-2">
                  <RunStatusBadge status={r.status} />
                </td>
                <td className="pr-2 text-right tabular-nums" data-testid="run-llm-calls">
                  {r.llmCalls}
                </td>
                <td className="pr-2 text-right text-slate-600 tabular-nums">
                  {r.inputTokens.toLocaleString("en-US")}/{r.outputTokens.toLocaleString("en-US")}
                </td>
                <td className="pr-2 text-right tabular-nums">{duration(r.durationMs)}</td>
                <td className="pr-2">
                  <FlagBadges flags={r.flags} />
                </td>
                <td className="text-slate-500 text-2xs">{r.createdAt.slice(0, 16).replace("T", " ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
    </>
  );
}
