import type { ReactNode } from "react";
import type { VersionEntry } from "@/lib/text/version-changes";
import { FieldChanges } from "./field-changes";
import { formatTime } from "./format-time";

/**
 * Every saved version, newest first, each with its diff to the version before; `action` renders
 * beside each older version (e.g. restore).
 */
export function VersionHistory({
  versions,
  current,
  action,
}: {
  versions: readonly VersionEntry[];
  current: number;
  action?: (version: number) => ReactNode;
}) {
  return (
    <section aria-labelledby="versions-heading">
      <h2 id="versions-heading" className="mb-1.5 font-semibold text-xs text-slate-700">
        Versions <span className="font-normal text-slate-600">({versions.length})</span>
      </h2>
      <ol className="divide-y divide-slate-100 rounded border border-slate-200 bg-white" data-testid="version-list">
        {versions.map((v) => (
          <li key={v.version} className="px-2.5 py-2" data-testid="version" data-version={v.version}>
            <div className="mb-1 flex flex-wrap items-baseline gap-2">
              <span className="font-medium font-mono text-xs">v{v.version}</span>
              {v.version === current ? (
                <span className="rounded bg-indigo-50 px-1 text-[10px] text-indigo-700">current</span>
              ) : null}
              <span className="ml-auto text-2xs text-slate-600">{formatTime(v.createdAt)}</span>
              {action && v.version !== current ? action(v.version) : null}
            </div>
            {v.changes.length > 0 ? (
              <FieldChanges changes={v.changes} />
            ) : (
              <p className="text-2xs text-slate-500">
                {v.version === versions[versions.length - 1]?.version ? "first version" : "no field changed"}
              </p>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
