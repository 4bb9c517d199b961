"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { FlagBadges } from "@/components/runs/flag-badges";
import { RunStatusBadge } from "@/components/runs/run-status-badge";
import { Button } from "@/components/ui/button";
import { followEventStream } from "@/lib/client/event-stream";
import { getJson, unwrap } from "@/lib/client/unwrap";
import type { ActionResult } from "@/lib/contracts/errors";
import {
  type CancelExperimentInput,
  type Experiment,
  type ExperimentComparison,
  type ExperimentRow,
  experimentCompareHref,
  experimentHref,
  suiteHref,
} from "@/lib/contracts/experiments";
import { comparisonCounts } from "@/lib/experiments/compare";
import { Scorecard } from "./scorecard";

type Filter = "all" | "failed" | "regressed" | `flag:${string}`;

function Expectations({ row }: { row: ExperimentRow }) {
  if (row.expectations.length === 0) return <span className="text-slate-600">none</span>;
  return (
    <ul className="flex flex-col gap-0.5">
      {row.expectations.map((e) => {
        const failure = row.failures.find((f) => f.expectation === e.expectation);
        return (
          <li key={e.expectation} data-testid="expectation" data-met={String(e.met)}>
            <span
              className={e.met === null ? "text-slate-600" : e.met ? "text-emerald-800" : "font-medium text-red-800"}
            >
              {e.met === null ? "…" : e.met ? "✓" : "✗"} {e.expectation}
            </span>
            {failure && <span className="text-slate-700"> — {failure.detail}</span>}
          </li>
        );
      })}
    </ul>
  );
}

/** One row per question, totals on top, filters, and a live progress bar with cancel while it runs. */
export function ExperimentView({
  initial,
  comparison,
  cancel,
}: {
  initial: Experiment;
  comparison: ExperimentComparison | null;
  cancel: (input: CancelExperimentInput) => Promise<ActionResult<{ id: string }>>;
}) {
  const router = useRouter();
  const [e, setE] = useState(initial);
  const [filter, setFilter] = useState<Filter>("all");
  useEffect(() => setE(initial), [initial]);

  const running = e.status === "running";
  useEffect(() => {
    if (!running) return;
    const ctl = new AbortController();
    const url = `/api/v1/experiments/${encodeURIComponent(initial.id)}`;
    void followEventStream({
      url: () => url,
      signal: ctl.signal,
      onFrame: () => {
        void getJson<Experiment>(url).then((next) => {
          setE(next);
          if (next.status !== "running") router.refresh();
        });
      },
    });
    return () => ctl.abort();
  }, [running, initial.id, router]);

  const cancelling = useMutation({
    mutationFn: () => unwrap(cancel({ id: e.id })),
    onSuccess: () => router.refresh(),
  });

  const byIndex = useMemo(
    () => new Map(comparison?.questions.filter((q) => q.head).map((q) => [q.head?.index, q]) ?? []),
    [comparison],
  );
  const flags = Object.keys(e.totals.flags).sort();
  const notComparedCount = comparison ? comparisonCounts(comparison.questions).notCompared : 0;
  const rows = e.rows.filter((r) => {
    if (filter === "failed") return r.passed === false;
    if (filter === "regressed") return byIndex.get(r.index)?.regression ?? false;
    if (filter.startsWith("flag:")) return r.flags.includes(filter.slice(5));
    return true;
  });
  const t = e.totals;
  const pct = t.questions ? Math.round((t.finished / t.questions) * 100) : 0;

  return (
    <div className="flex flex-col gap-3" data-testid="experiment" data-status={e.status}>
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h1 className="font-semibold text-lg">Experiment {e.id}</h1>
        <Link className="text-xs text-indigo-800 underline" href={suiteHref(e.bankId, e.suite)}>
          suite {e.suite} v{e.suiteVersion}
        </Link>
        <span className="text-xs text-slate-700" data-testid="experiment-status">
          {e.status}
        </span>
        <span className="text-xs text-slate-700">
          {e.config.draft ? "draft: " : "current state"}
          {e.config.skill &&
            ` skill ${e.config.skill.name}${e.config.skill.version ? ` v${e.config.skill.version}` : ""}${e.config.skill.mission ? " (unsaved mission)" : ""}`}
          {e.config.mentalModels.length > 0 && ` · ${e.config.mentalModels.length} mental-model edit(s), not saved`}
          {e.config.budget && ` · budget ${e.config.budget}`} · {e.config.model.name}
        </span>
      </div>

      <dl className="grid grid-cols-2 gap-2 sm:grid-cols-3 lg:grid-cols-6" data-testid="experiment-totals">
        {[
          // Of the questions that ran: a cancelled experiment's skipped ones are said, never counted as passed.
          [
            "Pass rate",
            t.passRate === null
              ? "—"
              : `${Math.round(t.passRate * 100)}%${t.skipped > 0 ? ` of ${t.finished} that ran` : ""}`,
          ],
          ["Passed", `${t.passed} / ${t.finished}`],
          ["Failed", String(t.failed)],
          ["Questions", t.skipped > 0 ? `${t.questions} (${t.skipped} skipped)` : String(t.questions)],
          ["LLM calls", t.judgeCalls > 0 ? `${t.llmCalls} (+${t.judgeCalls} judge)` : String(t.llmCalls)],
          ["Tokens", t.tokens.toLocaleString("en-US")],
        ].map(([label, value]) => (
          <div key={label} className="rounded border border-slate-200 bg-white px-2 py-1">
            <dt className="text-2xs text-slate-600">{label}</dt>
            <dd
              className="font-semibold text-slate-900"
              data-testid={`total-${label?.toLowerCase().replace(" ", "-")}`}
            >
              {value}
            </dd>
          </div>
        ))}
      </dl>

      <Scorecard card={e.scorecard} />

      {(running || e.status === "cancelled") && (
        <div className="flex items-center gap-2">
          <div
            role="progressbar"
            aria-label="Questions finished"
            aria-valuemin={0}
            aria-valuemax={t.questions}
            aria-valuenow={t.finished}
            className="h-2 flex-1 overflow-hidden rounded bg-slate-200"
          >
            <div className="h-full bg-indigo-600 transition-all" style={{ width: `${pct}%` }} />
          </div>
          <span className="text-xs text-slate-700">
            {t.finished} / {t.questions}
          </span>
          {running && (
            <Button onClick={() => cancelling.mutate()} disabled={cancelling.isPending} data-testid="cancel-experiment">
              Cancel
            </Button>
          )}
        </div>
      )}
      {e.error && (
        <p className="text-xs text-slate-700" role="status">
          {e.error}
        </p>
      )}

      {comparison && (
        <p className="text-xs text-slate-800" data-testid="baseline-summary">
          Against {comparison.base.id}: <strong>{comparison.totals.regressions} regressed</strong>,{" "}
          {comparison.totals.improvements} improved
          {notComparedCount > 0 && ` · ${notComparedCount} not compared (not run on both sides)`} ·{" "}
          <Link className="text-indigo-800 underline" href={experimentCompareHref(comparison.base.id, e.id)}>
            compare
          </Link>
        </p>
      )}

      <fieldset className="flex flex-wrap items-center gap-1 text-xs">
        <legend className="sr-only">Filter questions</legend>
        {(["all", "failed", ...(comparison ? ["regressed"] : []), ...flags.map((f) => `flag:${f}`)] as Filter[]).map(
          (f) => (
            <Button
              key={f}
              variant={filter === f ? "primary" : "secondary"}
              pressed={filter === f}
              onClick={() => setFilter(f)}
              className={`px-2 py-0.5 font-normal text-[13px] ${filter === f ? "border border-indigo-600" : ""}`}
              data-testid={`filter-${f}`}
            >
              {f.startsWith("flag:") ? `${f.slice(5)} (${t.flags[f.slice(5)]})` : f}
            </Button>
          ),
        )}
      </fieldset>

      <div className="overflow-x-auto">
        <table className="w-full min-w-[900px] border-collapse text-xs" data-testid="experiment-rows">
          <thead>
            <tr className="border-b border-slate-300 text-left text-slate-700">
              <th className="py-1 pr-2">#</th>
              <th className="py-1 pr-2">Question</th>
              <th className="py-1 pr-2">Status</th>
              <th className="py-1 pr-2 text-right">LLM calls</th>
              <th className="py-1 pr-2 text-right">Tokens</th>
              <th className="py-1 pr-2 text-right">Latency</th>
              <th className="py-1 pr-2">Citations</th>
              <th className="py-1 pr-2">Expectations</th>
              <th className="py-1 pr-2">Flags</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => {
              const cmp = byIndex.get(r.index);
              return (
                <tr
                  key={r.index}
                  className={`border-b border-slate-100 align-top ${r.passed === false ? "bg-red-50" : ""}`}
                  data-testid="experiment-row"
                  data-passed={String(r.passed)}
                  data-regressed={String(cmp?.regression ?? false)}
                >
                  <td className="py-1 pr-2 font-mono text-slate-600">{r.index + 1}</td>
                  <td className="max-w-[28rem] py-1 pr-2">
                    {r.runId ? (
                      <Link className="text-indigo-800 underline" href={`/runs/${r.runId}`}>
                        {r.question}
                      </Link>
                    ) : (
                      r.question
                    )}
                    {r.skill && <span className="ml-1 text-2xs text-slate-600">· {r.skill}</span>}
                    {r.tags.length > 0 && (
                      <span className="ml-1 text-2xs text-slate-600" data-testid="row-tags">
                        · {r.tags.join(", ")}
                      </span>
                    )}
                    {r.judgeRunId && (
                      <div className="text-2xs">
                        <Link
                          className="text-indigo-800 underline"
                          href={`/runs/${r.judgeRunId}`}
                          data-testid="judge-run"
                        >
                          judge run
                        </Link>
                      </div>
                    )}
                    {cmp?.regression && (
                      <div className="text-2xs text-red-800" data-testid="row-regressions">
                        ↓ {cmp.reason}
                        {cmp.base?.runId && r.runId && (
                          <>
                            {" "}
                            <Link
                              className="underline"
                              href={`/runs/compare?a=${encodeURIComponent(cmp.base.runId)}&b=${encodeURIComponent(r.runId)}`}
                            >
                              compare runs
                            </Link>
                          </>
                        )}
                      </div>
                    )}
                    {cmp?.improvement && <div className="text-2xs text-emerald-800">↑ {cmp.reason}</div>}
                  </td>
                  <td className="py-1 pr-2">
                    {r.status === "pending" || r.status === "skipped" ? (
                      <span className="text-slate-600">{r.status}</span>
                    ) : (
                      <RunStatusBadge status={r.status} />
                    )}
                  </td>
                  <td className="py-1 pr-2 text-right tabular-nums">{r.llmCalls}</td>
                  <td className="py-1 pr-2 text-right tabular-nums">
                    {(r.inputTokens + r.outputTokens).toLocaleString("en-US")}
                  </td>
                  <td className="py-1 pr-2 text-right tabular-nums">
                    {r.durationMs === null ? "—" : `${r.durationMs} ms`}
                  </td>
                  <td className="py-1 pr-2 font-mono text-2xs" title={r.citations.join(", ")}>
                    {r.citations.length
                      ? r.citations.slice(0, 4).join(", ") +
                        (r.citations.length > 4 ? ` +${r.citations.length - 4}` : "")
                      : "—"}
                  </td>
                  <td className="py-1 pr-2">
                    <Expectations row={r} />
                  </td>
                  <td className="py-1 pr-2">
                    <FlagBadges flags={r.flags} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <p className="text-2xs text-slate-600">
        Each question ran as an ordinary run: open one to see its timeline.{" "}
        <Link className="underline" href={experimentHref(e.id)}>
          Permalink
        </Link>
      </p>
    </div>
  );
}
