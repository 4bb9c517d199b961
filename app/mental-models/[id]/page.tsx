import Link from "next/link";
import { notFound } from "next/navigation";
import {
  acceptRefreshAction,
  deleteMentalModelAction,
  discardRefreshAction,
  refreshMentalModelAction,
  restoreMentalModelAction,
  saveMentalModelAction,
} from "@/app/actions/curation";
import { DeleteModelButton } from "@/components/editors/delete-model-button";
import { FieldChanges } from "@/components/editors/field-changes";
import { formatTime } from "@/components/editors/format-time";
import { HeldMentalModelEditor } from "@/components/editors/held-mental-model-editor";
import { MarkdownPreview } from "@/components/editors/markdown-preview";
import { RefreshDecision } from "@/components/editors/refresh-decision";
import { RefreshModelButton } from "@/components/editors/refresh-model-button";
import { RestoreVersionButton } from "@/components/editors/restore-version-button";
import { RunRefList } from "@/components/editors/run-ref-list";
import { UnsavedEditProvider } from "@/components/editors/unsaved-edit";
import { VersionHistory } from "@/components/editors/version-history";
import { StalenessBadge } from "@/components/memory/staleness-badge";
import { decodeSegment, orNotFound, queryValue, type SearchParams } from "@/lib/server/http/page-params";
import { getAppDb } from "@/lib/server/runtime/db";
import { defaultBankId } from "@/lib/server/services/memory";
import { getMentalModelPage } from "@/lib/server/services/mental-models";

export const dynamic = "force-dynamic";

export default async function MentalModelPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const [{ id }, query] = await Promise.all([params, searchParams]);
  const db = await getAppDb();
  const bankId = queryValue(query, "bank") ?? (await defaultBankId(db));
  if (!bankId) notFound();
  const seen = Number.parseInt(queryValue(query, "seen") ?? "", 10);
  const page = await orNotFound(
    getMentalModelPage(db, bankId, decodeSegment(id), Number.isNaN(seen) ? undefined : seen),
  );
  if (!page) notFound();
  const { model } = page;
  const deleted = page.deleted;
  return (
    <UnsavedEditProvider>
      <div>
        <nav className="mb-1 text-2xs text-slate-500">
          <Link href={`/mental-models?bank=${encodeURIComponent(bankId)}`} className="hover:underline">
            Mental models
          </Link>{" "}
          / <span className="font-mono">{model.id}</span>
        </nav>
        <div className="mb-3 flex flex-wrap items-center gap-x-3 gap-y-1">
          <h1 className="font-semibold text-lg" data-testid="model-title">
            {model.name}
          </h1>
          {deleted ? null : <StalenessBadge state={model.state} reason={model.reason} />}
          <span className="text-2xs text-slate-500" data-testid="staleness-reason">
            {model.reason}
            {model.refreshedAt ? ` · refreshed ${formatTime(model.refreshedAt)}` : ""} · based on{" "}
            {model.basedOnIds.length} {model.basedOnIds.length === 1 ? "memory" : "memories"} · read by {model.readBy}{" "}
            {model.readBy === 1 ? "run" : "runs"}
          </span>
          <span className="font-mono text-2xs text-slate-600" data-testid="model-version">
            v{model.version}
          </span>
          {deleted ? null : (
            <RefreshModelButton
              bankId={bankId}
              id={model.id}
              version={model.version}
              refresh={refreshMentalModelAction}
              accept={acceptRefreshAction}
              discard={discardRefreshAction}
              actions={
                <DeleteModelButton
                  bankId={bankId}
                  id={model.id}
                  name={model.name}
                  versions={page.versions.length}
                  readBy={model.readBy}
                  remove={deleteMentalModelAction}
                />
              }
            />
          )}
        </div>
        {deleted ? (
          <p
            className="mb-3 rounded border border-rose-300 bg-rose-50 px-3 py-2 text-xs text-rose-900"
            role="status"
            data-testid="model-deleted"
          >
            This mental model was deleted on {formatTime(deleted.at)}. Its versions are kept read-only so the runs that
            read them can still show what they read; search and reflect no longer see it.
          </p>
        ) : null}
        {page.seen ? (
          <section className="mb-4 rounded border border-indigo-200 bg-indigo-50/40 p-3" data-testid="seen-version">
            <h2 className="mb-1.5 font-semibold text-xs text-slate-700">
              Version {page.seen.version}, as a run read it → current version {model.version}
            </h2>
            {page.seen.changes.length ? (
              <FieldChanges changes={page.seen.changes} />
            ) : (
              <p className="text-xs text-slate-600">Unchanged since the run read it.</p>
            )}
          </section>
        ) : null}
        <div className="grid grid-cols-1 gap-5 xl:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
          <div className="self-start rounded border border-slate-200 bg-white p-3">
            {deleted ? (
              <div data-testid="deleted-content">
                <p className="mb-2 text-2xs text-slate-600">Last version (v{model.version}), read-only</p>
                <MarkdownPreview markdown={model.content} />
              </div>
            ) : (
              <HeldMentalModelEditor bankId={bankId} model={model} save={saveMentalModelAction} />
            )}
          </div>
          <div className="space-y-4">
            <VersionHistory
              versions={page.versions}
              current={model.version}
              action={(version) =>
                deleted ? null : (
                  <RestoreVersionButton
                    bankId={bankId}
                    id={model.id}
                    version={version}
                    current={model.version}
                    restore={restoreMentalModelAction}
                  />
                )
              }
            />
            <RunRefList
              title="Refresh runs"
              runs={page.refreshRuns}
              empty="Never refreshed from here yet."
              testId="refresh-runs"
              action={(r) =>
                r.outcome === "open" && !deleted ? (
                  <RefreshDecision
                    bankId={bankId}
                    modelId={model.id}
                    runId={r.id}
                    baseVersion={model.version}
                    accept={acceptRefreshAction}
                    discard={discardRefreshAction}
                  />
                ) : null
              }
            />
            <RunRefList
              title={`Runs that read it (${model.readBy})`}
              runs={page.readers}
              empty="No run has retrieved this model yet."
              testId="model-readers"
            />
          </div>
        </div>
      </div>
    </UnsavedEditProvider>
  );
}
