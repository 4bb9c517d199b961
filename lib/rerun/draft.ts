/**
 * The re-run drawer's state, without React: what the user has changed (a draft of the run's inputs,
 * the skill text and the mental models it read), what that changes against what is saved, and the
 * requests it turns into — a re-run, "Save these changes", or a suite run with the edits applied
 * only inside the experiment. Pure: the drawer (components/runs/rerun-drawer.tsx) holds it in a
 * reducer; docs/curation.md describes the loop.
 */
import type { StartExperimentInput } from "@/lib/contracts/experiments";
import type { RerunContext, RerunInput, SaveRerunChangesInput } from "@/lib/contracts/rerun";
import type { Budget, RunMode } from "@/lib/reflect/domain";

export type OverrideChoice = "none" | "stale" | "fresh";

export interface ModelDraft {
  content: string;
  override: OverrideChoice;
}

/** Everything the drawer lets the user change, in one place. */
export interface Draft {
  question: string;
  budget: string;
  mode: string;
  scope: string;
  mission: string;
  /** As typed: comma-separated. */
  disposition: string;
  models: Record<string, ModelDraft>;
  /** The mental model whose editor is open. */
  editing: string | null;
}

export type DraftField = "question" | "budget" | "mode" | "scope" | "mission" | "disposition";

export type DraftAction =
  | { type: "set"; field: DraftField; value: string }
  | { type: "model"; id: string; patch: Partial<ModelDraft> }
  | { type: "toggle-edit"; id: string };

/** The drawer as it opens: the run as it was (a model the run read as a draft re-opens with that draft). */
export function initialDraft(data: RerunContext): Draft {
  return {
    question: data.run.question,
    budget: data.run.budget,
    mode: data.run.mode,
    scope: data.run.scope,
    mission: data.skill?.mission ?? "",
    disposition: (data.skill?.disposition ?? []).join(", "),
    models: Object.fromEntries(
      data.mentalModels.map((m) => [
        m.id,
        m.draft
          ? { content: m.draft.content, override: m.draft.staleOverride ?? "none" }
          : { content: m.content, override: m.staleOverride ?? "none" },
      ]),
    ),
    editing: null,
  };
}

export function draftReducer(draft: Draft, action: DraftAction): Draft {
  switch (action.type) {
    case "set":
      return { ...draft, [action.field]: action.value };
    case "model": {
      const current = draft.models[action.id] ?? { content: "", override: "none" };
      return { ...draft, models: { ...draft.models, [action.id]: { ...current, ...action.patch } } };
    }
    case "toggle-edit":
      return { ...draft, editing: draft.editing === action.id ? null : action.id };
    default: {
      const unknown: never = action;
      return unknown;
    }
  }
}

/** Whether the draft differs from the run as it opened (which editor is open does not count). */
export function isDirty(data: RerunContext, draft: Draft): boolean {
  const { editing: _, ...asEdited } = draft;
  const { editing: __, ...asLoaded } = initialDraft(data);
  return JSON.stringify(asEdited) !== JSON.stringify(asLoaded);
}

/** A comma-separated disposition as its words. */
export const parseDisposition = (text: string): string[] =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/** One mental model's edit: the content and/or staleness override that differ from the saved model. */
export interface ModelEdit {
  id: string;
  expectedVersion: number;
  content?: string;
  staleOverride?: "stale" | "fresh" | null;
}

/** What the draft changes against what is saved: the mental-model edits and whether the skill text differs. */
export function changesOf(data: RerunContext, draft: Draft): { edits: ModelEdit[]; skillChanged: boolean } {
  const edits = data.mentalModels.flatMap((m): ModelEdit[] => {
    const d = draft.models[m.id];
    if (!d) return [];
    const override = d.override === "none" ? null : d.override;
    const contentChanged = d.content !== m.content;
    const overrideChanged = override !== m.staleOverride;
    if (!contentChanged && !overrideChanged) return [];
    return [
      {
        id: m.id,
        expectedVersion: m.version,
        ...(contentChanged ? { content: d.content } : {}),
        ...(overrideChanged ? { staleOverride: override } : {}),
      },
    ];
  });
  const saved = data.skill && {
    mission: data.skill.savedMission ?? data.skill.mission,
    disposition: data.skill.savedDisposition ?? data.skill.disposition,
  };
  const skillChanged =
    !!saved &&
    (draft.mission !== saved.mission || parseDisposition(draft.disposition).join(",") !== saved.disposition.join(","));
  return { edits, skillChanged };
}

/** The skill text the draft sends (none without a skill), checked against the version it is at now. */
function skillEdits(data: RerunContext, draft: Draft) {
  return data.skill
    ? {
        mission: draft.mission,
        disposition: parseDisposition(draft.disposition),
        skillExpectedVersion: data.skill.currentVersion ?? undefined,
      }
    : {};
}

/**
 * The re-run request: the run's inputs as edited, the skill as shown (the child reads what is shown)
 * and the mental-model edits, all read as a draft. The selects offer only valid budgets and modes;
 * the action validates them again.
 */
export function rerunRequest(data: RerunContext, draft: Draft): RerunInput {
  return {
    parentRunId: data.run.id,
    question: draft.question,
    budget: draft.budget as Budget,
    mode: draft.mode as RunMode,
    scope: draft.scope,
    ...skillEdits(data, draft),
    mentalModelEdits: changesOf(data, draft).edits,
  };
}

/**
 * "Save these changes": the skill text when it changed, and each model's content; a staleness
 * override is permanent, so it is saved only for the models in `keepOverride` (ticked by the user),
 * never by the way. A model whose only change is an unticked override saves nothing.
 */
export function saveChangesRequest(
  data: RerunContext,
  draft: Draft,
  keepOverride: ReadonlySet<string>,
): SaveRerunChangesInput {
  const { edits, skillChanged } = changesOf(data, draft);
  return {
    parentRunId: data.run.id,
    ...(skillChanged ? skillEdits(data, draft) : {}),
    mentalModelEdits: edits.flatMap(({ staleOverride, ...edit }) => {
      const kept = staleOverride !== undefined && keepOverride.has(edit.id) ? { staleOverride } : {};
      return edit.content !== undefined || "staleOverride" in kept ? [{ ...edit, ...kept }] : [];
    }),
  };
}

/** A suite run with the same edits, applied only inside the experiment: nothing is saved. */
export function suiteRunRequest(data: RerunContext, draft: Draft, suite: string): StartExperimentInput {
  const { edits, skillChanged } = changesOf(data, draft);
  return {
    bankId: data.run.bankId,
    suite,
    config: {
      skill:
        data.skill && skillChanged
          ? { name: data.skill.name, mission: draft.mission, disposition: parseDisposition(draft.disposition) }
          : undefined,
      mentalModels: edits.map(({ expectedVersion: _v, ...edit }) => edit),
    },
  };
}
