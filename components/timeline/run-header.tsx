import { memo } from "react";
import { Button, buttonClass } from "@/components/ui/button";
import type { RunStatus } from "@/lib/reflect/domain";
import type { RunBadge } from "@/lib/timeline/badges";
import { STATUS_TONE, statusLabel } from "@/lib/timeline/badges";
import type { RunHeader as RunHeaderData } from "@/lib/timeline/fold";
import { formatCount, formatMs, skillLabel } from "@/lib/timeline/format";
import { flagTerm, statusTerm } from "@/lib/timeline/glossary";
import { Badge, DraftBadge, MentalModelDraftNote } from "./badge";

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="flex flex-col">
      <dt className="text-2xs uppercase tracking-wide text-slate-500">{label}</dt>
      <dd className="font-medium text-slate-900">{children}</dd>
    </div>
  );
}

/** Memoized: focus moves in the timeline re-render the page, not this panel. */
export const RunHeader = memo(function RunHeader({
  header,
  status,
  badges,
  onExport,
  replayDrift = [],
}: {
  header: RunHeaderData;
  /** Fork: the replayed steps that differ from the parent's (tool results, freshness, offered tools), in words. */
  replayDrift?: readonly { iteration: number; text: string }[];
  /** Displayed status (may come from the server when the log has no run.finished). */
  status: RunStatus;
  badges: RunBadge[];
  onExport: () => void;
}) {
  const model = header.model
    ? header.model.kind === "offline"
      ? header.model.name === "offline"
        ? "offline model"
        : `offline · ${header.model.name}`
      : `${header.model.name}${header.model.baseUrlHost ? ` · ${header.model.baseUrlHost}` : ""}`
    : "—";
  return (
    <section className="rounded border border-slate-200 bg-white p-3" aria-label="Run summary">
      <div className="flex flex-wrap items-start gap-3">
        <RunQuestion question={header.question} />
        <Badge tone={STATUS_TONE[status]} title="Run status" term={statusTerm(status)}>
          <span data-testid="run-status" data-status={status}>
            {statusLabel(status)}
          </span>
        </Badge>
        <Button onClick={onExport} className="px-2 py-0.5 text-slate-700">
          Export JSON
        </Button>
        {header.runId && (
          <a
            href={`/api/runs/${header.runId}/otlp`}
            download
            className={buttonClass("secondary", "sm", "px-2 py-0.5 text-slate-700")}
            title="OpenTelemetry trace (OTLP/JSON) for Phoenix, Jaeger or any OTLP tool"
          >
            Export OTLP
          </a>
        )}
      </div>
      {badges.length > 0 && (
        <ul className="mt-2 flex flex-wrap gap-1.5" aria-label="Run badges">
          {badges.map((b) => (
            <li key={b.flag} data-testid="run-badge" data-flag={b.flag}>
              <Badge tone={b.tone} title={b.description} term={flagTerm(b.flag)}>
                {b.label}
              </Badge>
            </li>
          ))}
        </ul>
      )}
      <dl className="mt-2 grid grid-cols-[repeat(auto-fill,minmax(120px,1fr))] gap-x-4 gap-y-1.5 text-xs">
        <Field label="Skill">
          {skillLabel(header.skill)}
          {header.skill?.draft ? <DraftBadge /> : null}
        </Field>
        <Field label="Budget">{header.budget ?? "—"}</Field>
        <Field label="Mode">{header.mode ?? "—"}</Field>
        <Field label="Scope">{header.scope ?? "—"}</Field>
        <Field label="Model">{model}</Field>
        <Field label="Total time">{formatMs(header.durationMs)}</Field>
        <Field label="Tokens in / out">
          {formatCount(header.tokensIn)} / {formatCount(header.tokensOut)}
        </Field>
        <Field label="LLM calls">{header.llmCalls}</Field>
        <Field label="Model requests">
          <span title="Every request sent to the model server: answered calls plus retries and tool-choice downgrades">
            {header.modelRequests}
          </span>
        </Field>
        <Field label="Iterations">
          {header.mode === "facts" && header.iterationCount === 0
            ? "none — facts mode"
            : `${header.iterationCount}${header.maxIterations !== null ? ` of ${header.maxIterations}` : ""}`}
        </Field>
      </dl>
      {header.skill?.mission && (
        <p className="mt-2 text-xs text-slate-600">
          <span className="font-medium text-slate-700">Mission: </span>
          {header.skill.mission}
        </p>
      )}
      {header.skill?.mentalModelDrafts.length ? (
        <p className="mt-1 text-xs">
          <MentalModelDraftNote drafts={header.skill.mentalModelDrafts} />{" "}
          <span className="text-slate-600">
            — the saved model is unchanged; its memory cards below show the text this run read.
          </span>
        </p>
      ) : null}
      {header.parentRunId && (
        <p className="mt-1 text-xs text-slate-600">
          {header.forkedAtIteration !== null ? "Forked from" : "Re-run of"}{" "}
          <a className="underline" href={`/runs/${header.parentRunId}`}>
            {header.parentRunId}
          </a>
          {header.forkedAtIteration !== null ? ` at iteration ${header.forkedAtIteration}` : ""}
        </p>
      )}
      {header.outcome.length > 0 && (
        <p className="mt-1 text-xs text-slate-700" data-testid="run-outcome">
          <span className="font-medium">Outcome: </span>
          {header.outcome.join(" · ")}
        </p>
      )}
      {replayDrift.length > 0 && (
        <div
          className="mt-1 rounded border border-amber-300 bg-amber-50 px-2 py-1 text-xs text-amber-900"
          data-testid="replay-drift"
        >
          <p>
            {replayDrift.length === 1
              ? "1 replayed step differs from the parent run"
              : `${replayDrift.length} replayed steps differ from the parent run`}
            : the fork replayed the parent's model responses, but the tools re-ran against today's memory, so these
            steps saw something else:
          </p>
          <ul className="mt-0.5 list-disc pl-5">
            {replayDrift.map((d) => (
              <li key={d.iteration} data-testid="replay-drift-note" data-iteration={d.iteration}>
                iteration {d.iteration} — {d.text}
              </li>
            ))}
          </ul>
        </div>
      )}
      {header.error && (
        <p className="mt-2 rounded border border-rose-300 bg-rose-50 px-2 py-1 text-xs text-rose-900" role="alert">
          Failed during <span className="font-semibold">{header.error.phase}</span>: {header.error.message}
        </p>
      )}
      {header.warnings.length > 0 && (
        <ul className="mt-2 text-xs text-amber-900" data-testid="run-warnings">
          {header.warnings.map((w, i) => (
            <li key={i}>⚠ {w}</li>
          ))}
        </ul>
      )}
    </section>
  );
});

/** Beyond this a question is shown cut, with the whole of it one click away: a title is not a page. */
const TITLE_CHARS = 280;

/** The run's question as the page's heading, cut when long (the whole text stays one click away). */
function RunQuestion({ question }: { question: string }) {
  const heading = "min-w-[16rem] flex-1 text-base font-semibold leading-snug text-slate-900 [overflow-wrap:anywhere]";
  if (!question) return <h1 className={heading}>(question not recorded yet)</h1>;
  if ([...question].length <= TITLE_CHARS) return <h1 className={heading}>{question}</h1>;
  return (
    <div className="min-w-[16rem] flex-1">
      <h1 className={heading} data-testid="run-question-cut">
        {[...question].slice(0, TITLE_CHARS).join("").trimEnd()}…
      </h1>
      <details className="mt-0.5 text-xs text-slate-700">
        <summary className="cursor-pointer text-indigo-800">
          The whole question ({[...question].length.toLocaleString("en-US")} characters)
        </summary>
        <p
          className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap [overflow-wrap:anywhere]"
          data-testid="run-question-full"
        >
          {question}
        </p>
      </details>
    </div>
  );
}
