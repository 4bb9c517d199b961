"use client";

import type { Dispatch } from "react";
import { CharCount } from "@/components/editors/char-count";
import { Button } from "@/components/ui/button";
import { Select, Textarea } from "@/components/ui/input";
import { LIMITS } from "@/lib/contracts/fields";
import type { RerunContext } from "@/lib/contracts/rerun";
import type { Draft, DraftAction, ModelEdit, OverrideChoice } from "@/lib/rerun/draft";

/**
 * The re-run drawer's mental models: each one the run read, whether it is stale, whether the draft
 * edits it, and (opened one at a time) its content and the staleness override for the re-run.
 */
export function RerunModels({
  data,
  draft,
  edits,
  dispatch,
}: {
  data: RerunContext;
  draft: Draft;
  edits: readonly ModelEdit[];
  dispatch: Dispatch<DraftAction>;
}) {
  return (
    <fieldset className="rounded border border-slate-200 p-2">
      <legend className="px-1 text-xs font-semibold text-slate-800">Mental models this run read</legend>
      {data.mentalModels.length === 0 && <p className="text-xs text-slate-600">None.</p>}
      <ul className="flex flex-col gap-1.5">
        {data.mentalModels.map((m) => {
          const d = draft.models[m.id] ?? { content: m.content, override: "none" as const };
          const changed = edits.some((e) => e.id === m.id);
          const editing = draft.editing === m.id;
          return (
            <li
              key={m.id}
              className="rounded border border-slate-200 px-2 py-1"
              data-testid="rerun-model"
              data-model-id={m.id}
            >
              <div className="flex items-center gap-2 text-xs">
                <span className="font-medium text-slate-900">{m.name}</span>
                <span className="font-mono text-2xs text-slate-500">v{m.version}</span>
                <span
                  className={`rounded border px-1 text-2xs ${
                    m.isStale
                      ? "border-amber-300 bg-amber-50 text-amber-900"
                      : "border-emerald-300 bg-emerald-50 text-emerald-900"
                  }`}
                  title={m.stalenessReason}
                >
                  {m.isStale ? "stale" : "fresh"}
                </span>
                {m.versionSeen !== null && m.versionSeen !== m.version && (
                  <span className="text-2xs text-amber-800">run read v{m.versionSeen}</span>
                )}
                {changed && (
                  <span className="text-2xs text-indigo-800" data-testid="rerun-model-edited">
                    {m.draft ? `unsaved draft (the run read it, based on v${m.draft.baseVersion})` : "edited"}
                  </span>
                )}
                <Button
                  size="xs"
                  className="ml-auto py-0 text-slate-700"
                  aria-expanded={editing}
                  onClick={() => dispatch({ type: "toggle-edit", id: m.id })}
                  data-testid="rerun-model-edit"
                >
                  {editing ? "Done" : "Edit"}
                </Button>
              </div>
              <p className="truncate text-2xs text-slate-500">{m.stalenessReason}</p>
              {editing && (
                <div className="mt-1 flex flex-col gap-1">
                  <Textarea
                    aria-label={`Content of ${m.name}`}
                    data-testid="rerun-model-content"
                    className="h-40 w-full resize-y py-1 font-mono"
                    value={d.content}
                    onChange={(e) => dispatch({ type: "model", id: m.id, patch: { content: e.target.value } })}
                  />
                  <CharCount value={d.content} max={LIMITS.contentChars} testId="content-count" />
                  <label className="flex items-center gap-2 text-xs">
                    <span className="text-slate-600">Staleness override for this re-run</span>
                    <Select
                      size="sm"
                      data-testid="rerun-model-override"
                      className="px-1 py-0.5"
                      value={d.override}
                      onChange={(e) =>
                        dispatch({
                          type: "model",
                          id: m.id,
                          patch: { override: e.target.value as OverrideChoice },
                        })
                      }
                    >
                      <option value="none">none (computed)</option>
                      <option value="fresh">fresh</option>
                      <option value="stale">stale</option>
                    </Select>
                  </label>
                </div>
              )}
            </li>
          );
        })}
      </ul>
    </fieldset>
  );
}
