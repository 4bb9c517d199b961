"use client";

import { memo, useMemo } from "react";
import type { Components } from "react-markdown";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { SafeMarkdown } from "@/components/ui/safe-markdown";
import type { RunStatus } from "@/lib/reflect/domain";
import { citationKey, type TimelineCitation, type TimelineRow } from "@/lib/timeline/fold";
import { words } from "@/lib/timeline/format";
import { Badge } from "./badge";
import { CitationChip } from "./citation-chip";
import { TierBadge } from "./tier-badge";

const REF_PREFIX = "#cite-";

/** Turns `[id]` mentions of cited ids into links the renderer shows as clickable references. */
function linkCitations(answer: string, ids: ReadonlySet<string>): string {
  return answer.replace(/\[([^[\]\s]+)\](?!\()/g, (whole, id: string) =>
    ids.has(id) ? `[${id}](${REF_PREFIX}${encodeURIComponent(id)})` : whole,
  );
}

/** The cited id a `#cite-…` link names, or null when its escapes do not decode (a stored `#cite-%FF`). */
function citedId(href: string): string | null {
  try {
    return decodeURIComponent(href.slice(REF_PREFIX.length));
  } catch {
    return null;
  }
}

/** Memoized: focus moves in the timeline re-render the page, not this panel. */
export const AnswerPanel = memo(function AnswerPanel({
  answer,
  status,
  citations,
  selectedKey,
  selectedRowId,
  rowsById,
  onSelect,
  onShowRow,
}: {
  answer: string | null;
  /** The run's status: a run that stopped without an answer says so. */
  status: RunStatus;
  citations: TimelineCitation[];
  selectedKey: string | null;
  /** The selected timeline row: its cited results are highlighted here. */
  selectedRowId: string | null;
  rowsById: Map<string, TimelineRow>;
  onSelect: (c: TimelineCitation) => void;
  onShowRow: (rowId: string) => void;
}) {
  const byId = useMemo(() => {
    const m = new Map<string, TimelineCitation>();
    // Kept citations win over a dropped one with the same id.
    for (const c of citations) if (!m.has(c.id) || c.status === "kept") m.set(c.id, c);
    return m;
  }, [citations]);
  const selected = citations.find((c) => citationKey(c) === selectedKey) ?? null;

  const components = useMemo<Components>(
    () => ({
      a: ({ href, children }) => {
        const id = href?.startsWith(REF_PREFIX) ? citedId(href) : undefined;
        // A malformed reference (text anyone who can retain may have stored) renders as text, never breaks the page.
        if (id === null) return <span data-testid="malformed-link">{children}</span>;
        const c = id === undefined ? undefined : byId.get(id);
        if (!c) {
          return (
            <a href={href} rel="noopener noreferrer nofollow" target="_blank" className="text-indigo-700 underline">
              {children}
            </a>
          );
        }
        return (
          <Button
            variant="bare"
            data-testid="citation-ref"
            onClick={() => onSelect(c)}
            className={`rounded px-0.5 font-mono text-2xs ${
              c.status === "dropped" ? "text-rose-800 line-through" : "text-indigo-800 underline decoration-dotted"
            }`}
          >
            [{children}]
          </Button>
        );
      },
    }),
    [byId, onSelect],
  );

  const rendered = useMemo(
    () => (answer === null ? null : linkCitations(answer, new Set(byId.keys()))),
    [answer, byId],
  );

  const retrievingRow = selected?.retrievedByRowId ? rowsById.get(selected.retrievedByRowId) : undefined;

  return (
    <section className="flex flex-col gap-3" aria-label="Answer">
      {answer !== null && (
        <div className="-mb-2 flex justify-end">
          <CopyButton text={answer} label="Copy the answer (markdown)" data-testid="copy-answer" />
        </div>
      )}
      <div
        className="min-w-0 rounded border border-slate-200 bg-white p-3 text-[13px] leading-relaxed [overflow-wrap:anywhere] [&_code]:font-mono [&_pre]:overflow-x-auto [&_pre]:whitespace-pre-wrap [&_h1]:font-semibold [&_h2]:font-semibold [&_h3]:font-semibold [&_li]:ml-4 [&_ol]:list-decimal [&_p]:my-1.5 [&_strong]:font-semibold [&_ul]:list-disc"
        data-testid="answer"
      >
        {rendered === null ? (
          <p className="text-slate-500" data-testid="no-answer">
            {status === "running"
              ? "The answer appears when the run finishes."
              : status === "interrupted"
                ? "No answer: the run was interrupted before it finished (the process running it stopped)."
                : "No answer: the run ended without one."}
          </p>
        ) : (
          <SafeMarkdown components={components}>{rendered}</SafeMarkdown>
        )}
      </div>
      <div>
        <h2 className="mb-1 text-2xs font-semibold uppercase tracking-wide text-slate-600">
          Citations ({citations.filter((c) => c.status === "kept").length} kept
          {citations.some((c) => c.status === "dropped")
            ? `, ${citations.filter((c) => c.status === "dropped").length} dropped`
            : ""}
          )
        </h2>
        {citations.length === 0 ? (
          <p className="text-xs text-slate-500">No citations.</p>
        ) : (
          <ul className="flex flex-wrap gap-1.5">
            {citations.map((c) => (
              <li key={citationKey(c)}>
                <CitationChip
                  citation={c}
                  selected={citationKey(c) === selectedKey}
                  highlighted={selectedRowId !== null && c.retrievedByRowId === selectedRowId}
                  onSelect={() => onSelect(c)}
                />
              </li>
            ))}
          </ul>
        )}
      </div>
      {selected && (
        <div className="rounded border border-slate-200 bg-white p-3 text-xs" data-testid="citation-detail">
          <div className="flex flex-wrap items-center gap-2">
            <span className="font-mono font-semibold">{selected.id}</span>
            <CopyButton text={selected.id} label={`Copy the id ${selected.id}`} />
            <TierBadge tier={selected.tier} />
            {selected.status === "kept" ? (
              <Badge tone="success">kept</Badge>
            ) : (
              <Badge tone="danger">
                dropped · {selected.reason === "wrong_tier" ? "wrong tier" : "never retrieved"}
              </Badge>
            )}
          </div>
          {retrievingRow ? (
            <p className="mt-1 text-slate-700">
              Retrieved by{" "}
              {retrievingRow.iteration === null ? "a run-level query" : `iteration ${retrievingRow.iteration}`}
              {selected.retrievedTier && selected.retrievedTier !== selected.tier
                ? ` from ${words(selected.retrievedTier)} (cited as ${words(selected.tier)})`
                : ""}
              {retrievingRow.kind === "tier" && retrievingRow.query ? ` · query “${retrievingRow.query}”` : ""}{" "}
              <Button variant="link" className="text-indigo-700" onClick={() => onShowRow(retrievingRow.id)}>
                show in timeline
              </Button>
            </p>
          ) : (
            <p className="mt-1 text-rose-900">This id was never retrieved by the run, so the citation was dropped.</p>
          )}
          {selected.text !== undefined && (
            <div className="mt-2 border-l-2 border-slate-300 pl-2 text-slate-800 [&_p]:my-1">
              <SafeMarkdown>{selected.text}</SafeMarkdown>
            </div>
          )}
        </div>
      )}
    </section>
  );
});
