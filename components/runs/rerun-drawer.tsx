"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type ReactNode, type RefObject, useCallback, useEffect, useId, useReducer, useRef, useState } from "react";
import { CharCount, type LimitedField, OverLimitNote, overLimitReason } from "@/components/editors/char-count";
import { useUnsavedGuard } from "@/components/editors/leave-guard";
import { ScopeWarning } from "@/components/editors/scope-warning";
import { Button, buttonClass } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Drawer, DrawerClose, DrawerContent, DrawerTitle, DrawerTrigger } from "@/components/ui/drawer";
import { Field } from "@/components/ui/field";
import { Input, Select, Textarea } from "@/components/ui/input";
import { unwrap } from "@/lib/client/unwrap";
import { type ActionResult, isAppError } from "@/lib/contracts/errors";
import { type ExperimentStarted, experimentHref, type StartExperimentInput } from "@/lib/contracts/experiments";
import { LIMITS } from "@/lib/contracts/fields";
import type { RerunContext, RerunInput, SavedChanges, SaveRerunChangesInput } from "@/lib/contracts/rerun";
import type { RunStarted } from "@/lib/contracts/runs";
import {
  changesOf,
  type DraftField,
  draftReducer,
  initialDraft,
  isDirty,
  rerunRequest,
  saveChangesRequest,
  suiteRunRequest,
} from "@/lib/rerun/draft";
import { RerunModels } from "./rerun-models";
import { SaveChangesDialog } from "./save-changes-dialog";

/**
 * "Re-run with changes": edit the run's inputs, the skill text and the mental models it read, then
 * start a child run that reads the edits as a draft — nothing is saved. "Save these changes" is a
 * separate, explicit step that lists what it saves, and keeps a staleness override (which is
 * permanent) only when ticked. A modal drawer: focus starts in the question and stays inside; Escape closes
 * it and focus goes back to the button that opened it. Each opening starts from the run as it was,
 * so closing (Escape, ✕, Cancel, outside) with changes asks first.
 */
export function RerunDrawer({
  data,
  rerun,
  saveChanges,
  trigger,
  suiteRun,
}: {
  data: RerunContext;
  rerun: (input: RerunInput) => Promise<ActionResult<RunStarted>>;
  saveChanges: (input: SaveRerunChangesInput) => Promise<ActionResult<SavedChanges>>;
  /** The button that opens the drawer. */
  trigger: ReactNode;
  /** "Run the suite with these changes": the bank's suites and the action that starts an experiment. */
  suiteRun?: SuiteRun;
}) {
  const question = useRef<HTMLTextAreaElement>(null);
  const dirty = useRef(false);
  const setDirty = useCallback((d: boolean) => {
    dirty.current = d;
  }, []);
  const [open, setOpen] = useState(false);
  const [confirming, setConfirming] = useState(false);
  return (
    <Drawer
      open={open}
      onOpenChange={(next) => {
        if (next || !dirty.current) setOpen(next);
        else setConfirming(true);
      }}
    >
      <DrawerTrigger asChild>{trigger}</DrawerTrigger>
      <DrawerContent
        data-testid="rerun-drawer"
        onOpenAutoFocus={(e) => {
          e.preventDefault();
          question.current?.focus();
        }}
      >
        <RerunForm
          data={data}
          rerun={rerun}
          saveChanges={saveChanges}
          questionRef={question}
          suiteRun={suiteRun}
          onDirty={setDirty}
        />
        <ConfirmDialog
          open={confirming}
          onOpenChange={setConfirming}
          title="Discard your changes?"
          description="Closing the drawer drops the edits you have not saved. Nothing is started."
          confirmLabel="Discard changes"
          onConfirm={() => {
            setConfirming(false);
            dirty.current = false;
            setOpen(false);
          }}
          testId="rerun-discard-dialog"
          confirmTestId="confirm-discard"
        />
      </DrawerContent>
    </Drawer>
  );
}

export interface SuiteRun {
  suites: string[];
  start: (input: StartExperimentInput) => Promise<ActionResult<ExperimentStarted>>;
}

function RerunForm({
  data,
  rerun,
  saveChanges,
  questionRef,
  suiteRun,
  onDirty,
}: {
  data: RerunContext;
  rerun: (input: RerunInput) => Promise<ActionResult<RunStarted>>;
  saveChanges: (input: SaveRerunChangesInput) => Promise<ActionResult<SavedChanges>>;
  questionRef: RefObject<HTMLTextAreaElement | null>;
  suiteRun?: SuiteRun;
  onDirty: (dirty: boolean) => void;
}) {
  const router = useRouter();
  const [draft, dispatch] = useReducer(draftReducer, data, initialDraft);
  const dirty = isDirty(data, draft);
  const guard = useUnsavedGuard(dirty);
  useEffect(() => {
    onDirty(dirty);
  }, [dirty, onDirty]);
  const set = (field: DraftField) => (e: { target: { value: string } }) =>
    dispatch({ type: "set", field, value: e.target.value });

  const mutation = useMutation({
    mutationFn: (input: RerunInput) => unwrap(rerun(input)),
    onSuccess: ({ runId }) => {
      guard.allow();
      onDirty(false);
      router.push(`/runs/${runId}`);
    },
  });
  const fieldErrors = isAppError(mutation.error) ? (mutation.error.details.fieldErrors ?? {}) : {};
  const { edits, skillChanged } = changesOf(data, draft);

  const [saving, setSaving] = useState(false);
  const save = useMutation({
    mutationFn: (keepOverride: ReadonlySet<string>) =>
      unwrap(saveChanges(saveChangesRequest(data, draft, keepOverride))),
    onSuccess: () => {
      setSaving(false);
      router.refresh();
    },
  });

  // Over a limit the server would refuse it: the buttons say why instead.
  const draftFields: LimitedField[] = [
    ...(data.skill ? [{ label: "the mission", value: draft.mission, max: LIMITS.missionChars }] : []),
    ...data.mentalModels.map((m) => ({
      label: `${m.name}'s content`,
      value: draft.models[m.id]?.content ?? m.content,
      max: LIMITS.contentChars,
    })),
  ];
  const rerunBlocked = overLimitReason(
    [{ label: "the question", value: draft.question, max: LIMITS.questionChars }, ...draftFields],
    "run it",
  );
  const suiteBlocked = overLimitReason(draftFields, "run the suite");
  const blockedId = useId();

  const [suite, setSuite] = useState(suiteRun?.suites[0] ?? "");
  const experiment = useMutation({
    mutationFn: (input: StartExperimentInput) => unwrap(suiteRun?.start(input) ?? Promise.reject()),
    onSuccess: ({ experimentId }) => router.push(experimentHref(experimentId)),
  });
  // The same edits as a draft applied only inside the experiment: nothing is saved.
  const runSuite = () => experiment.mutate(suiteRunRequest(data, draft, suite));
  const submit = () => mutation.mutate(rerunRequest(data, draft));

  return (
    <>
      {guard.dialog}
      <div className="flex items-center gap-2 border-b border-slate-200 px-4 py-2">
        <DrawerTitle className="font-semibold text-slate-900">Re-run with changes</DrawerTitle>
        <span className="font-mono text-2xs text-slate-500">parent {data.run.id}</span>
        <DrawerClose className={buttonClass("ghost", "md", "ml-auto px-2 py-0")} aria-label="Close">
          ✕
        </DrawerClose>
      </div>
      <form
        className="flex flex-1 flex-col gap-3 overflow-y-auto px-4 py-3"
        onSubmit={(e) => {
          e.preventDefault();
          if (!rerunBlocked) submit();
        }}
      >
        <Field
          label="Question"
          counter={<CharCount value={draft.question} max={LIMITS.questionChars} testId="question-count" />}
          error={fieldErrors.question}
        >
          <Textarea
            ref={questionRef}
            name="question"
            className="w-full py-1 h-16 resize-y"
            value={draft.question}
            onChange={set("question")}
          />
        </Field>
        <div className="grid grid-cols-3 gap-2">
          <Field label="Budget">
            <Select name="budget" className="w-full py-1" value={draft.budget} onChange={set("budget")}>
              <option value="low">low (5)</option>
              <option value="mid">mid (10)</option>
              <option value="high">high (20)</option>
            </Select>
          </Field>
          <Field label="Mode">
            <Select name="mode" className="w-full py-1" value={draft.mode} onChange={set("mode")}>
              <option value="synthesize">synthesize</option>
              <option value="facts">facts</option>
            </Select>
          </Field>
          <Field label="Scope">
            <Select name="scope" className="w-full py-1" value={draft.scope} onChange={set("scope")}>
              {[...new Set([draft.scope, ...data.scopes])].map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </Select>
            <ScopeWarning
              scope={draft.scope}
              permittedTeams={data.scopes.flatMap((s) => (s.startsWith("team:") ? [s.slice(5)] : []))}
            />
          </Field>
        </div>

        {data.skill && (
          <fieldset className="rounded border border-slate-200 p-2">
            <legend className="px-1 text-xs font-semibold text-slate-800">
              Skill {data.skill.name} <span className="font-normal text-slate-500">as run: v{data.skill.version}</span>
              {data.skill.currentVersion !== null && data.skill.currentVersion !== data.skill.version && (
                <span className="font-normal text-amber-800"> · now v{data.skill.currentVersion}</span>
              )}
            </legend>
            <Field
              label="Mission"
              counter={<CharCount value={draft.mission} max={LIMITS.missionChars} testId="mission-count" />}
              error={fieldErrors.mission}
            >
              <Textarea
                name="mission"
                className="w-full py-1 h-24 resize-y"
                value={draft.mission}
                onChange={set("mission")}
              />
            </Field>
            <Field label="Disposition (comma-separated)" error={fieldErrors.disposition} className="mt-2">
              <Input
                name="disposition"
                className="w-full py-1"
                value={draft.disposition}
                onChange={set("disposition")}
              />
            </Field>
            {skillChanged && (
              <p className="mt-1 text-2xs text-indigo-800" data-testid="skill-draft-note">
                Differs from the saved {data.skill.name}: the re-run reads it as a draft; it is saved only with Save
                these changes.
              </p>
            )}
          </fieldset>
        )}

        <RerunModels data={data} draft={draft} edits={edits} dispatch={dispatch} />
        {mutation.error && (
          <p className="text-xs text-red-700" role="alert">
            {mutation.error.message}
          </p>
        )}
        {experiment.error && (
          <p className="text-xs text-red-700" role="alert">
            {experiment.error.message}
          </p>
        )}
      </form>
      <div className="flex flex-wrap items-center justify-end gap-2 border-t border-slate-200 px-4 py-2">
        {rerunBlocked ? (
          <div className="basis-full">
            <OverLimitNote id={blockedId} reason={rerunBlocked} />
          </div>
        ) : null}
        <span className="mr-auto text-2xs text-slate-600" data-testid="rerun-saves">
          {edits.length > 0 || skillChanged
            ? "Re-run reads your edits as a draft: nothing is saved. The run is badged draft."
            : "No edits: runs the same memory again."}
        </span>
        {save.isSuccess && !saving ? (
          <span className="basis-full text-xs text-emerald-800" role="status" data-testid="rerun-saved">
            Saved {save.data.saved.map((x) => `${x.name} v${x.version}`).join(", ") || "nothing"}.
          </span>
        ) : null}
        {edits.length > 0 || skillChanged ? (
          <Button
            variant="bare"
            type="button"
            onClick={() => {
              save.reset();
              setSaving(true);
            }}
            disabled={save.isPending || suiteBlocked !== null}
            className="rounded border border-slate-400 px-3 py-1 text-[13px] text-slate-800 hover:bg-slate-50 disabled:opacity-50"
            data-testid="rerun-save-changes"
          >
            Save these changes…
          </Button>
        ) : null}
        <SaveChangesDialog
          open={saving}
          onOpenChange={setSaving}
          data={data}
          draft={draft}
          edits={edits}
          skillChanged={skillChanged}
          pending={save.isPending}
          error={save.error?.message}
          onSave={(keep) => save.mutate(keep)}
        />
        <DrawerClose className={buttonClass("secondary", "md", "py-1 text-slate-900")}>Cancel</DrawerClose>
        {suiteRun && suiteRun.suites.length > 0 && (
          <span className="flex items-center gap-1">
            <Select
              size="sm"
              aria-label="Suite to run"
              className="px-1"
              value={suite}
              onChange={(e) => setSuite(e.target.value)}
            >
              {suiteRun.suites.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </Select>
            <Button
              variant="bare"
              type="button"
              onClick={runSuite}
              disabled={experiment.isPending || !suite || suiteBlocked !== null}
              aria-describedby={suiteBlocked ? blockedId : undefined}
              className="rounded border border-indigo-600 px-3 py-1 text-[13px] text-indigo-800 hover:bg-indigo-50 disabled:opacity-50"
              title="Runs every question of the suite with these edits applied only inside the experiment (nothing is saved)"
              data-testid="rerun-run-suite"
            >
              {experiment.isPending ? "Starting…" : "Run the suite with these changes (saves nothing)"}
            </Button>
          </span>
        )}
        <Button
          variant="primary"
          size="md"
          onClick={submit}
          disabled={mutation.isPending || rerunBlocked !== null}
          aria-describedby={rerunBlocked ? blockedId : undefined}
          className="py-1 text-[13px]"
          data-testid="rerun-submit"
        >
          {mutation.isPending ? "Starting…" : edits.length > 0 || skillChanged ? "Re-run with the draft" : "Re-run"}
        </Button>
      </div>
    </>
  );
}
